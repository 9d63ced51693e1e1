/** `blackbox replay <cassette> [--match strict|sequence] [-- <command...>]` */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { replayBuiltin } from "./builtin.js";
import { CliExit, missingCassette } from "./exit.js";
import { consoleIo } from "./hookedRun.js";
import { runUnderHook } from "./hookedRun.js";

export function register(program: Command): void {
  program
    .command("replay")
    .description("run a command offline against a cassette (or, without one, the built-in demo agent); non-zero when the run diverged")
    .argument("<cassette>", "cassette to replay")
    .argument("[command...]", "the command to run, after --")
    .addOption(new Option("--match <mode>", "how requests are matched").choices(["strict", "sequence"]).default("strict"))
    .action(async (cassette: string, command: string[], opts: { match: "strict" | "sequence" }, cmd: Command) => {
      const file = resolve(cassette);
      if (!existsSync(file)) cmd.error(missingCassette(file, cassette, process.argv, "replay"), { exitCode: 2 });
      if (command.length === 0) {
        if (cmd.getOptionValueSource("match") === "cli") {
          cmd.error("error: --match applies when replaying a command (after --); without one, the built-in demo agent is replayed from the cassette alone. Drop --match, or add -- <command>", { exitCode: 2 });
        }
        const code = await replayBuiltin(file, consoleIo());
        if (code !== 0) throw new CliExit(code);
        return;
      }
      await runUnderHook({
        command,
        reads: file,
        placeholderKeys: true,
        vars: { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: file, BLACKBOX_MATCH: opts.match },
      });
    });
}
