/**
 * `blackbox fork <cassette> --at N --set <json|@file> [--live | --script file]
 *  [--match strict|sequence] [-o out.json|folder/] [--config f] [--json] [-- <command...>]`
 */
import { sameFile } from "../store/files.js";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { loadTrace } from "../store/index.js";
import { plainJsonProblem } from "../trace/plainJson.js";
import type { JsonValue } from "../trace/types.js";
import { defaultForkPath, forkBuiltin, type BuiltinFindings } from "./builtin.js";
import { consoleIo, runUnderHook } from "./hookedRun.js";
import { forkOut } from "./outPath.js";
import { endRun, JSON_HELP, summaryOf } from "./runJson.js";
import type { ForkJson } from "./schemas.js";
import { runSummary } from "./summary.js";
import {
  CONFIG_HELP,
  configPath,
  refuseCommandOptions,
  requireCassette,
  requireReadable,
  usageError,
} from "./usage.js";
import { checkForkOut } from "../session/options.js";

interface ForkOptions {
  at: number;
  set?: string;
  live?: boolean;
  script?: string;
  match: "strict" | "sequence";
  out?: string;
  config?: string;
  json?: boolean;
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
    .addOption(
      new Option("--match <mode>", "how requests before the fork point are matched")
        .choices(["strict", "sequence"])
        .default("strict"),
    )
    .option(
      "-o, --out <file>",
      "cassette to write (default: <cassette>.fork-<N>.json beside it; a folder: that name in it)",
    )
    .option("--config <file>", CONFIG_HELP)
    .option("--json", JSON_HELP)
    .action(async (cassette: string, command: string[], opts: ForkOptions, cmd: Command) => {
      const file = resolve(cassette);
      requireCassette(cmd, file, cassette, "fork");
      if (opts.set?.startsWith("@"))
        requireReadable(cmd, resolve(opts.set.slice(1)), "--set file", "pass a JSON file after @, or the JSON itself");
      let set: string | undefined;
      if (opts.set !== undefined) {
        try {
          set = readSet(opts.set);
        } catch (err) {
          usageError(
            cmd,
            `error: --set is not valid JSON or its file cannot be read (${(err as Error).message}); quote strings, e.g. --set '"sunny"' or --set @result.json`,
          );
        }
        const bad = setProblem(set!);
        if (bad) usageError(cmd, bad);
      }
      const script = opts.script ? resolve(opts.script) : undefined;
      if (script) requireReadable(cmd, script, "--script file", "pass a JSON list of model outputs");
      await loadTrace(file); // not a cassette: exit 2 (main.ts)
      const defaultOut = defaultForkPath(file, opts.at);
      const out = opts.out === undefined ? defaultOut : forkOut(opts.out, defaultOut);
      try {
        checkForkOut({ mode: "fork", cassette: file, out }, sameFile);
      } catch (err) {
        usageError(cmd, (err as Error).message);
      }
      const base = { cassette: file, out, at: opts.at, set: set === undefined ? null : (JSON.parse(set) as unknown) };
      if (command.length === 0) {
        refuseCommandOptions(cmd, "forking");
        const found: BuiltinFindings = {};
        const code = await forkBuiltin(
          file,
          { at: opts.at, out, ...(set === undefined ? {} : { set: JSON.parse(set) as JsonValue }) },
          consoleIo(opts.json),
          found,
        );
        const json: ForkJson = {
          ok: code === 0,
          command: null,
          exitCode: null,
          error: found.error ?? null,
          ...base,
          written: found.child !== undefined,
          run: found.child ? runSummary(found.child) : null,
          divergence: found.divergence ?? null,
        };
        endRun(opts.json && code !== 2, json, code); // 2: a usage error (what to type instead), no result
        return;
      }
      if (set === undefined)
        usageError(
          cmd,
          "error: forking a command needs --set <json|@file>: the replacement result of the tool_result at --at",
        );
      const r = await runUnderHook({
        command,
        reads: file,
        writes: out,
        placeholderKeys: script !== undefined,
        stdoutToStderr: opts.json,
        vars: {
          BLACKBOX_MODE: "fork",
          BLACKBOX_CASSETTE: file,
          BLACKBOX_OUT: out,
          BLACKBOX_FORK_AT: String(opts.at),
          BLACKBOX_FORK_SET: set,
          BLACKBOX_CONTINUE: script ? "script" : "live",
          BLACKBOX_SCRIPT: script,
          BLACKBOX_MATCH: opts.match,
          BLACKBOX_CONFIG: configPath(cmd, opts.config),
        },
      });
      const json: ForkJson = {
        ok: r.exitCode === 0,
        command,
        exitCode: r.childCode,
        error: r.error,
        ...base,
        written: r.written,
        run: r.written ? await summaryOf(out) : null,
        divergence: r.divergence,
      };
      endRun(opts.json, json, r.exitCode);
    });
}
