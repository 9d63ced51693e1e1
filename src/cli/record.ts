/** `blackbox record [-o out.json] [--config f] [--id id] -- <command...>` */
import { resolve } from "node:path";
import type { Command } from "commander";
import { runUnderHook } from "./hookedRun.js";

export const DEFAULT_OUT = "blackbox.json";

export function register(program: Command): void {
  program
    .command("record")
    .description("run a command (e.g. npm start) and record its model and tool calls into a cassette")
    .argument("[command...]", "the command to run, after --")
    .option("-o, --out <file>", "cassette to write", DEFAULT_OUT)
    .option("--config <file>", "config file (default: blackbox.config.{ts,mts,cts,js,mjs,cjs} in the current folder, for every process of the command that has none in its own folder)")
    .option("--id <id>", "id stored in the cassette (default: the out file's name)")
    .action(async (command: string[], opts: { out: string; config?: string; id?: string }, cmd: Command) => {
      if (command.length === 0) cmd.error("error: record needs a command after --, e.g. blackbox record -o run.json -- npm start", { exitCode: 2 });
      const out = resolve(opts.out);
      await runUnderHook({
        command,
        writes: out,
        vars: {
          BLACKBOX_MODE: "record",
          BLACKBOX_OUT: out,
          BLACKBOX_TRACE_ID: opts.id,
          BLACKBOX_CONFIG: opts.config ? resolve(opts.config) : process.env.BLACKBOX_CONFIG,
        },
      });
    });
}
