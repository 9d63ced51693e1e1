/**
 * What record, replay and fork do with a command: run it under the hook, then check
 * the cassette it should have written. Exit code: the child's when it failed, else
 * non-zero when no cassette was written, the written one fails verify, or a replay's
 * command made no call of a recording that has calls. The run ends when the command
 * and the process holding the run's claim have both ended (runHooked waits for it).
 * When a process of the run already printed why (a `blackbox:` error, marked for the
 * run token), nothing is guessed on top of it. A command that could not start is
 * reported as that alone.
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { endRunClaim, locksDir, runClaim, runToken, unfinishedWhy, type Unfinished } from "../process/claim.js";
import { takeReport, type RunReport } from "../process/reported.js";
import { findConfig } from "../config/index.js";
import { noCallsDivergence, OWN_ENV_HINT } from "../process/run.js";
import { loadTrace } from "../store/index.js";
import { redactedSummary } from "../redact/index.js";
import { clip, printable, printableLines } from "../trace/printable.js";
import type { Trace } from "../trace/types.js";
import { unrecordedTools, unrecordedToolsNote } from "../trace/unrecordedTools.js";
import { checkReplayedTools, strictToolsOf } from "../session/unseen.js";
import { isBlackboxError } from "../errors.js";
import type { BuiltinIo } from "./builtin.js";
import { shownPath } from "./input.js";
import type { DivergenceJson } from "./schemas.js";
import { useColor } from "./style.js";
import { divergenceJson, runSummary } from "./summary.js";
import { hookedEnv, runHooked } from "./spawnHooked.js";
import { verifyFile, verifyRunFolder, type FileVerdict } from "./verify.js";
import { conversationsLine, isRunFolder, loadRun, runFolderFor, runFolderSummary } from "./runFolder.js";

export interface HookedRun {
  command: string[];
  vars: Record<string, string | undefined>;
  placeholderKeys?: boolean;
  /** The cassette the run must write (record, fork). */
  writes?: string;
  /** The cassette the run reads (replay, fork): it must pass verify first. */
  reads?: string;
  /** The command's stdout goes to stderr (under --json, where stdout is the JSON alone). */
  stdoutToStderr?: boolean;
  /** A cassette read whose tools ran unrecorded is refused before the command starts (else a warning). */
  strictTools?: boolean;
}

/** How the run ended, for the exit code and the --json summary. */
export interface HookedResult {
  /** The CLI's exit code (0: the run went as it should). */
  exitCode: number;
  /** The command's own exit code, or null when it was not run (the cassette it reads failed verify). */
  childCode: number | null;
  /** Whether the cassette to write was written by this run. */
  written: boolean;
  /** Where it was written: `writes`, or the run folder of its name when the run held several conversations. */
  writtenTo?: string;
  /** What went wrong, as printed on stderr, or null. */
  error: string | null;
  divergence: DivergenceJson | null;
}

async function mustVerify(file: string, what: string): Promise<string | undefined> {
  const verdict = isRunFolder(file) ? runVerdict(await verifyRunFolder(file)) : await verifyFile(file);
  if (verdict.ok) return undefined;
  const which = isRunFolder(file) ? `the run ${file}` : `the cassette ${file}`;
  const line = `${which} fails verify, so ${what}; run \`blackbox verify ${file}\` for the details`;
  process.stderr.write(`blackbox: ${line}\n`);
  for (const p of verdict.problems.slice(0, 5))
    process.stderr.write(
      `  ${p.stepIndex === null ? "trace" : `step ${p.stepIndex}`} ${printable(p.path)}: ${printable(p.message)}\n`,
    );
  return line;
}

/** A run's verdicts as one: its problems, each naming its cassette. */
function runVerdict(verdicts: FileVerdict[]): FileVerdict {
  const problems = verdicts.flatMap((v) => v.problems.map((p) => ({ ...p, path: `${shownPath(v.file)} ${p.path}` })));
  return { file: verdicts[0]?.file ?? "", ok: problems.length === 0, steps: null, problems };
}

/** The traces a run reads or wrote: a cassette's one, or a run folder's conversations. */
async function tracesOf(path: string): Promise<Trace[]> {
  return isRunFolder(path) ? loadRun(path).traces : [await loadTrace(path)];
}

function stamp(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const s = statSync(file);
  return `${s.mtimeMs}:${s.size}:${s.ino}`;
}

/** The one-line message of a failed run, printed, as a result. */
function failed(
  exitCode: number,
  childCode: number | null,
  message: string,
  divergence: DivergenceJson | null = null,
): HookedResult {
  process.stderr.write(`blackbox: ${printableLines(message)}\n`);
  return { exitCode, childCode, written: false, error: message, divergence };
}

/** What a process of the run reported (already printed by it). */
function reportedResult(report: RunReport, exitCode: number, childCode: number, written: boolean): HookedResult {
  const d = report.divergence;
  return {
    exitCode,
    childCode,
    written,
    error: report.message ?? "a process of the run reported an error (above)",
    divergence: d ? divergenceJson({ ...d, message: report.message ?? "the replay diverged" }) : null,
  };
}

export async function runUnderHook(run: HookedRun): Promise<HookedResult> {
  if (run.command.length === 0) throw new Error("runUnderHook needs a command");
  if (run.reads) {
    const bad = await mustVerify(run.reads, "the command was not run");
    if (bad !== undefined) return { exitCode: 1, childCode: null, written: false, error: bad, divergence: null };
    const refused = await unseenTools(run.reads, run.strictTools === true);
    if (refused !== undefined)
      return { exitCode: 1, childCode: null, written: false, error: refused, divergence: null };
  }
  const before = run.writes ? stamp(run.writes) : undefined;
  // a recording of several conversations writes the folder of the file's name (docs/conversations.md)
  const runIndex = run.writes && !run.reads ? join(runFolderFor(run.writes), "run.json") : undefined;
  const beforeRun = runIndex ? stamp(runIndex) : undefined;
  // One token per run: a second process of the tree that makes calls is refused, not allowed to clobber.
  const token = runToken();
  const vars = {
    ...run.vars,
    BLACKBOX_RUN: token,
    BLACKBOX_LOCKS: locksDir(),
    ...pinnedConfig(run.vars.BLACKBOX_CONFIG),
  }; // the locks stay found if the command changes TMPDIR
  const claimedPath = (run.writes ?? run.reads)!;
  let code: number;
  let started = true;
  let claimed = false;
  let unfinished: Unfinished | undefined;
  let report: RunReport | undefined;
  try {
    ({ code, started } = await runHooked(run.command, hookedEnv(vars, { placeholderKeys: run.placeholderKeys }), {
      holder: () => runClaim(claimedPath, token).holder,
      stdoutToStderr: run.stdoutToStderr,
    }));
  } finally {
    ({ claimed, unfinished } = endRunClaim(claimedPath, token));
    report = takeReport(token);
  }
  // runHooked printed why; nothing of the run happened, so nothing else is said
  if (!started)
    return { exitCode: code, childCode: code, written: false, error: "the command could not start", divergence: null };
  const failCode = code !== 0 ? code : 1;
  if (run.writes && runIndex && !isRunFolder(run.writes) && stamp(runIndex) !== beforeRun && stamp(runIndex)) {
    // several conversations: the run's folder was written, not the file
    run = { ...run, writes: runFolderFor(run.writes) };
  }
  if (run.writes) {
    const after = isRunFolder(run.writes) ? stamp(join(run.writes, "run.json")) : stamp(run.writes);
    if (after === undefined || (after === before && !isRunFolder(run.writes))) {
      if (report) {
        // A process of the run printed what went wrong (a bad config, a refused fork point or write) above.
        if (before !== undefined)
          process.stderr.write(`blackbox: the cassette already at ${run.writes} was left as it was\n`);
        return reportedResult(report, failCode, code, false);
      }
      const kept = before !== undefined ? ` (the cassette already there was left as it was)` : "";
      const how = code > 128 ? `was killed (exit code ${code}, signal ${code - 128})` : `exited with code ${code}`;
      if (unfinished !== undefined) {
        const what = unfinishedWhy(unfinished, "it could write the cassette", "record again");
        return failed(
          failCode,
          code,
          `no cassette was written to ${run.writes}${kept}: ${code !== 0 ? `the command ${how}; ` : ""}${what}.`,
        );
      }
      if (code !== 0) {
        return failed(
          code,
          code,
          `no cassette was written to ${run.writes}${kept}: the command ${how} before it made a model call, or was killed too hard to write one (SIGKILL). ` +
            "Run it again; a crash, exit or Ctrl-C after the first call still leaves a cassette.",
        );
      }
      return failed(
        1,
        code,
        `no cassette was written to ${run.writes}${kept}: the command made no model call through Blackbox. ` +
          "Check that the agent runs in Node with the provider SDK (api.anthropic.com / api.openai.com, or ANTHROPIC_BASE_URL / OPENAI_BASE_URL), " +
          `that ${OWN_ENV_HINT}, ` +
          "or name its tools in blackbox.config.ts",
      );
    }
    const bad = await mustVerify(run.writes, "the run is not trustworthy");
    if (bad !== undefined) return { exitCode: failCode, childCode: code, written: true, error: bad, divergence: null };
  } else if (run.reads && unfinished !== undefined && !report) {
    return failed(
      failCode,
      code,
      `the replay was not checked: ${unfinishedWhy(unfinished, "its end-of-run check (which shows that it made every recorded call and ended as recorded)", "replay again")}.`,
    );
  } else if (run.reads && !claimed && !report) {
    // No process of the run made a call: a replay of a recording that has calls diverged.
    const diverged = noCallsDivergence((await tracesOf(run.reads))[0]!, "the command");
    if (diverged) return failed(failCode, code, diverged.message, divergenceJson(diverged));
  }
  const written = run.writes !== undefined;
  if (report) return { ...reportedResult(report, failCode, code, written), writtenTo: run.writes };
  if (code !== 0)
    return {
      exitCode: code,
      childCode: code,
      written,
      error: `the command exited with code ${code}`,
      divergence: null,
    };
  if (run.writes || claimed) process.stderr.write(`${await doneLine(run)}\n`);
  return { exitCode: 0, childCode: 0, written, writtenTo: run.writes, error: null, divergence: null };
}

/**
 * The one line a run that went as it should ends with, on stderr (stdout stays the
 * command's): where the cassette is and what it holds, or that the replay made every
 * recorded call as recorded.
 */
async function doneLine(run: HookedRun): Promise<string> {
  const file = (run.writes ?? run.reads)!;
  if (isRunFolder(file)) {
    const { index, traces } = loadRun(file);
    const s = runFolderSummary(index, traces);
    const what = `${conversationsLine(index)}, ${s.modelCalls} model call${s.modelCalls === 1 ? "" : "s"}, ${s.toolCalls} tool call${s.toolCalls === 1 ? "" : "s"}`;
    return run.writes
      ? `blackbox: recorded ${shown(file)}/ (a run of ${what})`
      : `blackbox: replayed ${shown(file)}/ as recorded (a run of ${what})`;
  }
  const trace = await loadTrace(file);
  const held = holds(trace);
  // tools the agent ran outside Blackbox's view: the line says which, and how to capture them
  const u = run.writes ? unrecordedTools(trace) : undefined;
  const unseen = u && u.calls > 0 ? `\nblackbox: warning: ${unrecordedToolsNote(u)}` : "";
  if (run.writes && run.reads)
    return `blackbox: forked ${shown(run.reads)} into ${shown(run.writes)}: ${held}${unseen}`;
  if (run.writes) return `blackbox: recorded ${shown(run.writes)}: ${held}${unseen}`;
  return `blackbox: replayed ${shown(file)} as recorded: ${held}`;
}

/** "3 model calls, 2 tool calls, ended: success", and what was redacted: the run summary --json prints, as a line */
function holds(trace: Trace): string {
  const s = runSummary(trace);
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  const o = s.outcome;
  const ended =
    o.status === "success"
      ? "success"
      : o.status === "error"
        ? `error (${clip(printable(o.error ?? ""), 80)})`
        : "no outcome";
  const redacted = redactedSummary(s.redactions);
  return `${n(s.modelCalls, "model call")}, ${n(s.toolCalls, "tool call")}, ended: ${ended}${redacted ? `, ${redacted}` : ""}`;
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

/** --strict-tools as the hooked processes read it (BLACKBOX_STRICT_TOOLS), else the environment's own. */
export function strictToolsVar(cmd: { opts(): { strictTools?: boolean } }): { BLACKBOX_STRICT_TOOLS?: string } {
  const v = cmd.opts().strictTools ? "1" : process.env.BLACKBOX_STRICT_TOOLS;
  return v === undefined ? {} : { BLACKBOX_STRICT_TOOLS: strictToolsOf({}, { BLACKBOX_STRICT_TOOLS: v }) ? "1" : "0" };
}

/**
 * Before a replayed (or forked) command starts: a recording whose tools ran outside Blackbox's view would run
 * them for real, said once here; with strict tools, refused (the message, printed). A cassette that does not
 * load is left to verify, which runs first.
 */
async function unseenTools(file: string, strict: boolean): Promise<string | undefined> {
  try {
    const traces = await tracesOf(file);
    const run = isRunFolder(file) ? loadRun(file).index : undefined;
    traces.forEach((trace, i) => {
      const name = run ? join(file, run.conversations[i]!.file) : file;
      const note = checkReplayedTools(trace, strict, shown(name));
      if (note) process.stderr.write(`blackbox: warning: ${note}\n`);
    });
    return undefined;
  } catch (err) {
    if (!isBlackboxError(err)) throw err;
    const message = (err as Error).message;
    process.stderr.write(`blackbox: ${message}\n`);
    return message;
  }
}

/** The built-in agent's output on this process's stdout/stderr (under --json, none on stdout). */
export function consoleIo(json = false): BuiltinIo {
  return {
    stdout: json ? () => undefined : (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    color: !json && useColor(),
  };
}
