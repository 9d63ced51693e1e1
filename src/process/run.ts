/**
 * A run's end, checked by its root: `blackbox record|replay|fork` (cli/hookedRun.ts),
 * or under the bare hook the first hooked process of a tree, one started without
 * BLACKBOX_RUN (startRootRun). The root makes the run token its descendants inherit,
 * and at its end asks whether any process of the run claimed the cassette: a replay
 * that nobody made a call of is a divergence, a record that nobody made one of wrote
 * nothing (claim.ts has the lock and the marks).
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ReplayDivergenceError } from "../errors.js";
import { divergence } from "../session/source.js";
import type { SessionOptions } from "../session/types.js";
import { callCounts } from "../trace/payloads.js";
import type { Trace } from "../trace/types.js";
import { endRunClaim, locksDir, runClaim, runToken, unfinishedWhy } from "./claim.js";
import { takeReported } from "./reported.js";
import { onProcessExit } from "./exit.js";

/** The usual cause, behind a launcher, of a run whose processes made no call: a child that loads no hook. */
export const OWN_ENV_HINT =
  "a process started with an environment of its own (spawn or fork with `env`) keeps NODE_OPTIONS and the BLACKBOX_* variables";

/** The divergence of a replay whose process(es) made no call, or undefined when the recording has none either. */
export function noCallsDivergence(trace: Trace, who: string): ReplayDivergenceError | undefined {
  const { models, tools } = callCounts(trace.steps);
  if (models + tools === 0) return undefined;
  const first = trace.steps.find((s) => s.type === "model_input" || s.type === "tool_call");
  return divergence(
    first,
    `${who} made no model or tool call through Blackbox, but the recording has ${models} model call(s) and ${tools} tool call(s). ` +
      "Check that it runs the recorded agent, in Node, with the provider SDK and the tools the config names, " +
      `and that ${OWN_ENV_HINT}`,
  );
}

/**
 * `node --import .../register.mjs agent.js`: the hook named on this process's own command
 * line (not inherited through NODE_OPTIONS, where every process of a shell script or an
 * npm script would load it and look like a root: a `tsc && vitest` step that makes no
 * call must not fail the run).
 */
export function hookOnCommandLine(execArgv: readonly string[] = process.execArgv): boolean {
  // dist/process or dist/register-bundle
  const ours = realOrSame(fileURLToPath(new URL("../../register.mjs", import.meta.url)));
  const named = (spec: string): boolean => {
    if (spec === "@ardaulas/blackbox/register") return true;
    if (!/register\.mjs$/.test(spec)) return false; // an app's own loader of another name: not ours
    const path = spec.startsWith("file:") ? fileURLToPath(spec) : resolve(spec);
    return realOrSame(path) === ours;
  };
  return execArgv.some(
    (a, i) => (a === "--import" && named(execArgv[i + 1] ?? "")) || (a.startsWith("--import=") && named(a.slice(9))),
  );
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Under the bare hook, named on the command line (hookOnCommandLine) with no run set: this
 * process is the root of a run. Its descendants inherit the token and the locks folder
 * (process.env); at this process's end the run is checked.
 */
export function startRootRun(env: NodeJS.ProcessEnv, options: SessionOptions, load: (file: string) => Trace): void {
  if (env.BLACKBOX_RUN || !hookOnCommandLine()) return;
  const run = runToken();
  env.BLACKBOX_RUN = run;
  env.BLACKBOX_LOCKS ??= locksDir();
  onProcessExit(() => endRootRun(run, options, load));
}

function endRootRun(run: string, options: SessionOptions, load: (file: string) => Trace): void {
  const path = options.out ?? options.cassette!;
  // A descendant still holds the claim: it writes (or checks) and releases at its own end.
  if (runClaim(path, run).holder !== undefined) return;
  const { claimed, unfinished } = endRunClaim(path, run);
  const reported = takeReported(run);
  // A process or thread of the run printed a `blackbox:` error its exit code may not carry here (a worker
  // thread's never does).
  if (reported && !process.exitCode) process.exitCode = 1;
  if (reported) return;
  if (unfinished !== undefined) {
    const why = unfinishedWhy(
      unfinished,
      options.mode === "replay" ? "its end-of-run check" : "it could write the cassette",
      "run it again",
    );
    process.stderr.write(
      `blackbox: ${options.mode === "replay" ? "the replay was not checked" : `no cassette was written to ${path}`}: ${why}.\n`,
    );
    if (!process.exitCode) process.exitCode = 1;
    return;
  }
  if (claimed) return;
  if (options.mode === "replay") {
    const diverged = noCallsDivergence(load(options.cassette!), "the process (and any process it started)");
    if (!diverged) return;
    process.stderr.write(`blackbox: ${diverged.message}\n`);
    if (!process.exitCode) process.exitCode = 1;
    return;
  }
  process.stderr.write(
    `blackbox: no cassette was written to ${path}: no process made a model or tool call through Blackbox\n`,
  );
}
