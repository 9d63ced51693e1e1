/** `blackbox record [-o out.json|folder/] [--config f] [--id id] [--json] -- <command...>` */
import type { Command } from "commander";
import { runUnderHook, strictToolsVar } from "./hookedRun.js";
import { recordOut } from "./outPath.js";
import { endRun, JSON_HELP, summaryOf } from "./runJson.js";
import type { RecordJson } from "./schemas.js";
import { CONFIG_HELP, configPath, usageError } from "./usage.js";

export const DEFAULT_OUT = "blackbox.json";

interface RecordOptions {
  out: string;
  config?: string;
  id?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command("record")
    .description("run a command (e.g. npm start) and record its model and tool calls into a cassette")
    .argument("[command...]", "the command to run, after --")
    .option("-o, --out <file>", "cassette to write; a folder (ending in /) gets record-<date>-<time>.json", DEFAULT_OUT)
    .option("--config <file>", CONFIG_HELP)
    .option("--id <id>", "id stored in the cassette (default: the out file's name)")
    .option(
      "--strict-tools",
      "fail, writing no cassette, when tools ran outside Blackbox's view (BLACKBOX_STRICT_TOOLS=1)",
    )
    .option("--json", JSON_HELP)
    .action(async (command: string[], opts: RecordOptions, cmd: Command) => {
      if (command.length === 0)
        usageError(cmd, "error: record needs a command after --, e.g. blackbox record -o run.json -- npm start");
      const config = configPath(cmd, opts.config);
      const out = recordOut(opts.out);
      const r = await runUnderHook({
        command,
        writes: out,
        stdoutToStderr: opts.json,
        vars: {
          BLACKBOX_MODE: "record",
          BLACKBOX_OUT: out,
          BLACKBOX_TRACE_ID: opts.id,
          BLACKBOX_CONFIG: config,
          ...strictToolsVar(cmd),
        },
      });
      const json: RecordJson = {
        ok: r.exitCode === 0,
        command,
        exitCode: r.childCode,
        error: r.error,
        cassette: r.writtenTo ?? out, // a run of several conversations: its folder (docs/conversations.md)
        written: r.written,
        run: r.written ? await summaryOf(r.writtenTo ?? out) : null,
      };
      endRun(opts.json, json, r.exitCode);
    });
}
