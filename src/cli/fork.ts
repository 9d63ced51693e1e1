/**
 * `blackbox fork <cassette> --at N --set <json|@file> [--live | --script file]
 *  [--match strict|sequence] [-o out.json] [-- <command...>]`
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { plainJsonProblem } from "../trace/plainJson.js";
import type { JsonValue } from "../trace/types.js";
import { defaultForkPath, forkBuiltin } from "./builtin.js";
import { CliExit, missingCassette } from "./exit.js";
import { consoleIo } from "./hookedRun.js";
import { runUnderHook } from "./hookedRun.js";
import { checkForkOut } from "../session/setup.js";

interface ForkOptions {
  at: number;
  set?: string;
  live?: boolean;
  script?: string;
  match: "strict" | "sequence";
  out?: string;
}

function stepIndex(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("it must be a step index (a whole number such as 3).");
  return Number(value);
}

/** `--set` as JSON text: inline JSON, or `@file` for a JSON file. */
export function readSet(value: string): string {
  // a UTF-8 byte-order mark (some Windows editors write one) is not part of the JSON
  const text = value.startsWith("@") ? readFileSync(resolve(value.slice(1)), "utf8").replace(/^\uFEFF/, "") : value;
  JSON.parse(text);
  return text;
}

/** Why the --set text cannot be a cassette value (e.g. 1e999 reads as Infinity), or undefined. */
export function setProblem(text: string): string | undefined {
  return plainJsonProblem("--set", JSON.parse(text));
}

export function register(program: Command): void {
  program
    .command("fork")
    .description("re-run from a cassette with another tool result at step N, then continue live or from a script")
    .argument("<cassette>", "cassette to fork")
    .argument("[command...]", "the command to run, after -- (default: the built-in demo agent)")
    .requiredOption("--at <N>", "index of the step to fork at (a tool_result for a recorded agent)", stepIndex)
    .option("--set <json|@file>", "replacement tool result as JSON, or @file holding it")
    .addOption(new Option("--live", "continue by calling the provider").conflicts("script"))
    .option("--script <file>", "continue from a JSON list of model outputs (offline)")
    .addOption(new Option("--match <mode>", "how requests before the fork point are matched").choices(["strict", "sequence"]).default("strict"))
    .option("-o, --out <file>", "cassette to write (default: <cassette>.fork-<N>.json beside it)")
    .action(async (cassette: string, command: string[], opts: ForkOptions, cmd: Command) => {
      const file = resolve(cassette);
      if (!existsSync(file)) cmd.error(missingCassette(file, cassette, process.argv, "fork"), { exitCode: 2 });
      let set: string | undefined;
      if (opts.set !== undefined) {
        try {
          set = readSet(opts.set);
        } catch (err) {
          cmd.error(`error: --set is not valid JSON or its file cannot be read (${(err as Error).message}); quote strings, e.g. --set '"sunny"' or --set @result.json`, { exitCode: 2 });
        }
        const bad = setProblem(set!);
        if (bad) cmd.error(`error: ${bad}`, { exitCode: 2 });
      }
      const out = resolve(opts.out ?? defaultForkPath(file, opts.at));
      try {
        checkForkOut({ mode: "fork", cassette: file, out });
      } catch (err) {
        cmd.error(`error: ${(err as Error).message}`, { exitCode: 2 });
      }
      const script = opts.script ? resolve(opts.script) : undefined;
      if (command.length === 0) {
        // these steer the hooked run of a command; the demo agent has its own offline planner
        for (const [name, flag] of [["live", "--live"], ["script", "--script"], ["match", "--match"]] as const) {
          if (cmd.getOptionValueSource(name) === "cli") {
            cmd.error(`error: ${flag} applies when forking a command (after --); without one, the built-in demo agent goes on with its own offline planner. Drop ${flag}, or add -- <command>`, { exitCode: 2 });
          }
        }
        const code = await forkBuiltin(file, { at: opts.at, out, ...(set === undefined ? {} : { set: JSON.parse(set) as JsonValue }) }, consoleIo());
        if (code !== 0) throw new CliExit(code);
        return;
      }
      if (set === undefined) cmd.error("error: forking a command needs --set <json|@file>: the replacement result of the tool_result at --at", { exitCode: 2 });
      await runUnderHook({
        command,
        reads: file,
        writes: out,
        placeholderKeys: script !== undefined,
        vars: {
          BLACKBOX_MODE: "fork",
          BLACKBOX_CASSETTE: file,
          BLACKBOX_OUT: out,
          BLACKBOX_FORK_AT: String(opts.at),
          BLACKBOX_FORK_SET: set,
          BLACKBOX_CONTINUE: script ? "script" : "live",
          BLACKBOX_SCRIPT: script,
          BLACKBOX_MATCH: opts.match,
        },
      });
    });
}
