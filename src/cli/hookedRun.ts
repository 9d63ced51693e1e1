/**
 * What record, replay and fork do with a command: run it under the hook, then check
 * the cassette it should have written. Exit code: the child's when it failed, else
 * non-zero when no cassette was written, the written one fails verify, or a replay's
 * command made no call of a recording that has calls. The run ends when the command
 * and the process holding the run's claim have both ended (runHooked waits for it).
 * When a process of the run already printed why (a `blackbox:` error, marked for the
 * run token), nothing is guessed on top of it.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { endRunClaim, locksDir, runClaim, runToken, takeReported, unfinishedWhy, type Unfinished } from "../edges/claim.js";
import { findConfig } from "../edges/config.js";
import { noCallsDivergence, OWN_ENV_HINT } from "../edges/run.js";
import { loadTrace } from "../edges/store.js";
import { outcomeOf } from "../trace/outcome.js";
import { callCounts } from "../trace/payloads.js";
import { clip, printable } from "../trace/printable.js";
import type { Trace } from "../trace/types.js";
import type { BuiltinIo } from "./builtin.js";
import { shownPath } from "./input.js";
import { CliExit } from "./exit.js";
import { useColor } from "./style.js";
import { hookedEnv, runHooked } from "./spawnHooked.js";
import { verifyFile } from "./verify.js";

export interface HookedRun {
  command: string[];
  vars: Record<string, string | undefined>;
  placeholderKeys?: boolean;
  /** The cassette the run must write (record, fork). */
  writes?: string;
  /** The cassette the run reads (replay, fork): it must pass verify first. */
  reads?: string;
}

async function mustVerify(file: string, what: string): Promise<boolean> {
  const verdict = await verifyFile(file);
  if (verdict.ok) return true;
  process.stderr.write(`blackbox: the cassette ${file} fails verify, so ${what}; run \`blackbox verify ${file}\` for the details\n`);
  for (const p of verdict.problems.slice(0, 5)) process.stderr.write(`  ${p.stepIndex === null ? "trace" : `step ${p.stepIndex}`} ${p.path}: ${p.message}\n`);
  return false;
}

function stamp(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const s = statSync(file);
  return `${s.mtimeMs}:${s.size}:${s.ino}`;
}

export async function runUnderHook(run: HookedRun): Promise<void> {
  if (run.command.length === 0) throw new Error("runUnderHook needs a command");
  if (run.reads && !(await mustVerify(run.reads, "the command was not run"))) throw new CliExit(1);
  const before = run.writes ? stamp(run.writes) : undefined;
  // One token per run: a second process of the tree that makes calls is refused, not allowed to clobber.
  const token = runToken();
  const vars = { ...run.vars, BLACKBOX_RUN: token, BLACKBOX_LOCKS: locksDir(), ...pinnedConfig(run.vars.BLACKBOX_CONFIG) }; // the locks stay found if the command changes TMPDIR
  const claimedPath = (run.writes ?? run.reads)!;
  let code: number;
  let claimed = false;
  let unfinished: Unfinished | undefined;
  let reported = false;
  try {
    code = await runHooked(run.command, hookedEnv(vars, { placeholderKeys: run.placeholderKeys }), {
      holder: () => runClaim(claimedPath, token).holder,
    });
  } finally {
    ({ claimed, unfinished } = endRunClaim(claimedPath, token));
    reported = takeReported(token);
  }
  const failed = code !== 0 ? code : 1;
  if (run.writes) {
    const after = stamp(run.writes);
    if (after === undefined || after === before) {
      if (reported) {
        // A process of the run printed what went wrong (a bad config, a refused fork point or write) above.
        if (before !== undefined) process.stderr.write(`blackbox: the cassette already at ${run.writes} was left as it was\n`);
        throw new CliExit(code !== 0 ? code : 1);
      }
      const kept = before !== undefined ? ` (the cassette already there was left as it was)` : "";
      const how = code > 128 ? `was killed (exit code ${code}, signal ${code - 128})` : `exited with code ${code}`;
      if (unfinished !== undefined) {
        const what = unfinishedWhy(unfinished, "it could write the cassette", "record again");
        process.stderr.write(`blackbox: no cassette was written to ${run.writes}${kept}: ${code !== 0 ? `the command ${how}; ` : ""}${what}.\n`);
        throw new CliExit(failed);
      }
      if (code !== 0) {
        process.stderr.write(
          `blackbox: no cassette was written to ${run.writes}${kept}: the command ${how} before it made a model call, or was killed too hard to write one (SIGKILL). ` +
            "Run it again; a crash, exit or Ctrl-C after the first call still leaves a cassette.\n",
        );
        throw new CliExit(code);
      }
      process.stderr.write(
        `blackbox: no cassette was written to ${run.writes}${kept}: the command made no model call through Blackbox. ` +
          "Check that the agent runs in Node with the provider SDK (api.anthropic.com / api.openai.com, or ANTHROPIC_BASE_URL / OPENAI_BASE_URL), " +
          `that ${OWN_ENV_HINT}, ` +
          "or name its tools in blackbox.config.ts\n",
      );
      throw new CliExit(1);
    }
    if (!(await mustVerify(run.writes, "the run is not trustworthy"))) throw new CliExit(code !== 0 ? code : 1);
  } else if (run.reads && unfinished !== undefined && !reported) {
    process.stderr.write(
      `blackbox: the replay was not checked: ${unfinishedWhy(unfinished, "its end-of-run check (which shows that it made every recorded call and ended as recorded)", "replay again")}.\n`,
    );
    throw new CliExit(failed);
  } else if (run.reads && !claimed && !reported) {
    // No process of the run made a call: a replay of a recording that has calls diverged.
    const diverged = noCallsDivergence(await loadTrace(run.reads), "the command");
    if (diverged) {
      process.stderr.write(`blackbox: ${diverged.message}\n`);
      throw new CliExit(code !== 0 ? code : 1);
    }
  }
  if (code !== 0) throw new CliExit(code);
  // A process of the run printed a `blackbox:` error (a replay that diverged, a second process or thread refused)
  // whose exit code never reached this one: a launcher that ignores it (`sh -c '...; true'`), a worker thread's.
  if (reported) throw new CliExit(1);
  if (run.writes || claimed) process.stderr.write(`${await doneLine(run)}\n`);
}

/**
 * The one line a run that went as it should ends with, on stderr (stdout stays the
 * command's): where the cassette is and what it holds, or that the replay made every
 * recorded call as recorded.
 */
async function doneLine(run: HookedRun): Promise<string> {
  const file = (run.writes ?? run.reads)!;
  const held = holds(await loadTrace(file));
  if (run.writes && run.reads) return `blackbox: forked ${shown(run.reads)} into ${shown(run.writes)}: ${held}`;
  if (run.writes) return `blackbox: recorded ${shown(run.writes)}: ${held}`;
  return `blackbox: replayed ${shown(file)} as recorded: ${held}`;
}

/** "3 model calls, 2 tool calls, ended: success" */
function holds(trace: Trace): string {
  const { models, tools } = callCounts(trace.steps);
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  const o = outcomeOf(trace);
  const ended = o.status === "success" ? "success" : o.status === "error" ? `error (${clip(printable(o.error ?? ""), 80)})` : "no outcome";
  return `${n(models, "model call")}, ${n(tools, "tool call")}, ended: ${ended}`;
}

const shown = (file: string): string => printable(shownPath(file));

/**
 * The config the processes of the run load. --config or BLACKBOX_CONFIG: that file, as an
 * absolute path, for every process. Else blackbox.config.* of the folder blackbox runs in,
 * as the default of a process whose own working folder has none: one in another folder
 * (`cd app && node agent.js`, spawn's `cwd`, a worker after process.chdir()) would otherwise
 * find none and record (and replay) its tools unwrapped, while a process in a folder with
 * a config of its own (a package of a monorepo) keeps using that one, as it did before.
 */
function pinnedConfig(named: string | undefined): { BLACKBOX_CONFIG?: string; BLACKBOX_CONFIG_DEFAULT?: string } {
  const given = named ?? process.env.BLACKBOX_CONFIG;
  if (given) return { BLACKBOX_CONFIG: resolve(given) };
  return { BLACKBOX_CONFIG_DEFAULT: findConfig(process.cwd(), undefined) };
}

/** The built-in agent's output on this process's stdout/stderr. */
export function consoleIo(): BuiltinIo {
  return { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t), color: useColor() };
}
