/**
 * `blackbox replay <cassette>` and `blackbox fork <cassette> --at N [--set json]`
 * without a command: they drive the built-in demo agent. Each returns the exit
 * code; output goes through `io` so the caller decides where it lands.
 */
import path from "node:path";
import { DEMO_MODEL, DemoModelClient, demoTools } from "../agent/demo.js";
import { forkRun } from "../agent/forkRun.js";
import { replayTrace } from "../agent/replayTrace.js";
import { CassetteLimitError, ForkError, isBlackboxError } from "../errors.js";
import { loadTrace, saveTrace } from "../store/index.js";
import { loadVerifiedTraceSync } from "../store/loadVerified.js";
import { printable, printableLines, quoted } from "../trace/printable.js";
import { formatTimeline } from "../trace/timeline.js";
import type { JsonValue, Trace } from "../trace/types.js";
import { verifyTrace } from "../trace/verify.js";
import type { DivergenceJson } from "./schemas.js";
import { divergenceJson } from "./summary.js";

export interface BuiltinIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  color: boolean;
}

/** What a built-in replay or fork found, for --json: filled in as it goes. */
export interface BuiltinFindings {
  /** The first line of what went wrong. */
  error?: string;
  divergence?: DivergenceJson;
  /** The fork written. */
  child?: Trace;
}

const short = (v: unknown): string => (v === undefined ? "(nothing)" : quoted(v, 100));

/** Prints a Blackbox error as one line and maps it to an exit code (2: a bad --at/--set, a cassette past a limit). */
function fail(io: BuiltinIo, error: unknown, found: BuiltinFindings): number {
  if (!isBlackboxError(error)) throw error;
  io.stderr(`blackbox: ${printableLines((error as Error).message)}\n`);
  found.error = (error as Error).message;
  return error instanceof ForkError || error instanceof CassetteLimitError ? 2 : 1;
}

/** Verifies and replays a built-in agent cassette offline; 0 when it reproduces, 1 otherwise. */
export async function replayBuiltin(cassettePath: string, io: BuiltinIo, found: BuiltinFindings = {}): Promise<number> {
  let trace: Trace;
  try {
    trace = await loadTrace(cassettePath);
  } catch (error) {
    return fail(io, error, found);
  }
  const verified = verifyTrace(trace);
  if (!verified.ok) {
    found.error = `${cassettePath} failed verify, so it cannot be replayed`;
    io.stderr(`blackbox: ${printable(found.error)}:\n`);
    for (const p of verified.problems) io.stderr(`  - ${printable(p.path)}: ${printable(p.message)}\n`);
    return 1;
  }
  // A recorded agent's model outputs are `tool_calls` (the built-in loop writes single
  // `tool_call` outputs); its cassette is replayed by running the agent itself.
  if (trace.steps.some((s) => s.type === "model_output" && (s.payload as { type?: unknown }).type === "tool_calls")) {
    found.error =
      `${cassettePath} was recorded from your own agent (through an SDK), not by the built-in demo agent, so blackbox cannot replay it on its own. ` +
      `Replay it by running the agent: blackbox replay ${cassettePath} -- <command>`;
    io.stderr(`blackbox: ${found.error}\n`);
    return 2;
  }
  const result = await replayTrace(trace);
  if (!result.ok) {
    const d = result.divergence!;
    found.error = `replay of ${cassettePath} diverged at step ${d.index}: ${d.message}`;
    found.divergence = divergenceJson({ ...d, stepIndex: d.index });
    io.stderr(
      `blackbox: replay of ${cassettePath} diverged at step ${d.index}: ${printableLines(d.message)}\n` +
        `  at ${printable(d.path) || "(the step itself)"}\n  recorded: ${short(d.recorded)}\n  replayed: ${short(d.actual)}\n` +
        `The cassette's steps do not follow from its own model outputs and tool results. ` +
        `If it was recorded from your own agent, replay it with: blackbox replay ${cassettePath} -- <command>\n`,
    );
    return 1;
  }
  io.stdout(
    `replayed ${cassettePath} offline: ${result.steps} steps reproduced from the cassette alone ` +
      `(no model, no tools), same outcome.\n`,
  );
  return 0;
}

/** Where a fork is written when no --out is given: beside the parent, `<name>.fork-<N>.json`. */
export function defaultForkPath(cassettePath: string, at: number): string {
  const dir = path.dirname(cassettePath);
  const base = path.basename(cassettePath).replace(/\.json$/i, "");
  return path.join(dir, `${base}.fork-${at}.json`);
}

/** Forks a demo agent cassette and writes the child; 0 on success. */
export async function forkBuiltin(
  cassettePath: string,
  options: { at: number; set?: JsonValue; out?: string },
  io: BuiltinIo,
  found: BuiltinFindings = {},
): Promise<number> {
  const out = options.out ?? defaultForkPath(cassettePath, options.at);
  let child: Trace;
  try {
    // an edited parent must not drive the agent (as with a recorded agent's fork): its
    // copied prefix would carry the broken hashes into a child that fails verify too
    const parent = loadVerifiedTraceSync(cassettePath);
    const model = (parent.steps.find((s) => s.type === "model_input")?.payload as { model?: unknown } | undefined)
      ?.model;
    if (model !== DEMO_MODEL) {
      throw new ForkError(
        `${cassettePath} was not recorded by the built-in demo agent, so blackbox cannot continue it on its own. ` +
          `Fork your own agent by running it: blackbox fork ${cassettePath} --at ${options.at} --set <json> -- <command>`,
      );
    }
    child = await forkRun(parent, {
      forkIndex: options.at,
      ...(options.set !== undefined ? { replacement: options.set } : {}),
      client: new DemoModelClient(),
      tools: demoTools,
      traceId: path.basename(out).replace(/\.json$/i, ""),
    });
    await saveTrace(out, child);
  } catch (error) {
    return fail(io, error, found);
  }
  found.child = child;
  const how = options.set !== undefined ? `with the result ${short(options.set)}` : "and let the demo agent go on";
  io.stdout(`forked ${cassettePath} at step ${options.at} ${how}\nwrote ${out}\n\n`);
  io.stdout(formatTimeline(child, { color: io.color }));
  const end = child.steps.at(-1)?.payload as { event?: string; result?: unknown } | undefined;
  if (end?.event === "run_completed" && typeof end.result === "string")
    io.stdout(`\nthe child's answer: ${end.result}\n`);
  io.stdout(`\ncompare with the parent: blackbox diff ${cassettePath} ${out}\n`);
  return 0;
}
