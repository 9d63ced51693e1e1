/**
 * replayTrace: re-drive the built-in agent loop from a cassette alone. The model
 * answers with the recorded model outputs, each tool with its recorded result,
 * the clock with the recorded timestamps; nothing is called. The run must
 * reproduce every recorded step (type and payload) and the outcome.
 */
import { TraceBuilder } from "../trace/builder.js";
import { firstDifference } from "../trace/jsonDiff.js";
import { forkIndexOf } from "../trace/payloads.js";
import { quoted } from "../trace/printable.js";
import type { JsonValue, ModelOutput, ToolResultPayload, Trace, TraceStep } from "../trace/types.js";
import { continueLoop, type ToolMap } from "./loop.js";
import type { ModelClient } from "./modelClient.js";
import { initialInputOf, stateFromPrefix } from "./resume.js";

export interface ReplayDivergence {
  /** Step index where the replayed run first differs from the cassette. */
  index: number;
  /** JSON path of the first difference inside that step ("" when the whole step differs). */
  path: string;
  recorded: unknown;
  actual: unknown;
  message: string;
}

export interface ReplayResult {
  ok: boolean;
  /** Steps the replay produced (prefix of a forked child included). */
  steps: number;
  divergence?: ReplayDivergence;
}

/** Thrown inside the replay when the loop asks for more than the cassette holds. */
class Exhausted extends Error {}

export async function replayTrace(trace: Trace): Promise<ReplayResult> {
  if (!trace.steps.some((s) => s.type === "model_input")) {
    const message =
      `trace "${trace.id}" has no model_input step, so there is no run of the built-in agent to replay. ` +
      `Replay a recorded agent by running it: blackbox replay <cassette> -- <command>`;
    return {
      ok: false,
      steps: 0,
      divergence: { index: 0, path: "", recorded: trace.steps[0]?.type, actual: undefined, message },
    };
  }
  const start = resumeIndex(trace);
  const prefix = trace.steps.slice(0, start);
  const rest = trace.steps.slice(start);
  const outputs = rest.filter((s) => s.type === "model_output");
  const results = rest.filter((s) => s.type === "tool_result");
  const terminal = rest.at(-1)?.payload as { reason?: string; maxSteps?: number } | undefined;

  const builder = new TraceBuilder({ id: trace.id, createdAt: trace.createdAt, steps: prefix });
  const client: ModelClient = {
    async generate(): Promise<ModelOutput> {
      const next = outputs.shift();
      if (!next) throw new Exhausted("the replayed run asked the model for one more turn than the cassette recorded");
      return structuredClone(next.payload) as unknown as ModelOutput;
    },
  };
  const tools = recordedTools(rest, results);
  const now = (): number =>
    trace.steps[builder.steps.length]?.timestamp ?? trace.steps.at(-1)?.timestamp ?? trace.createdAt;
  const maxSteps =
    terminal?.reason === "max_steps_exceeded" && typeof terminal.maxSteps === "number"
      ? terminal.maxSteps
      : Number.MAX_SAFE_INTEGER;

  let stopped: string | undefined;
  try {
    const state = stateFromPrefix(prefix, initialInputOf(trace));
    await continueLoop(builder, state, { client, tools, now, maxSteps });
  } catch (error) {
    stopped = error instanceof Error ? error.message : String(error);
  }
  const divergence = compare(trace.steps, builder.steps, start, stopped);
  return { ok: divergence === undefined, steps: builder.steps.length, ...(divergence ? { divergence } : {}) };
}

/**
 * Where the loop takes over. A fresh run: 0. A forked child (forkedFromStepId
 * `<parent>:<N>`): N, or N + 1 when step N is the replaced tool_result of a --set fork.
 */
function resumeIndex(trace: Trace): number {
  const at = forkIndexOf(trace);
  if (at === undefined) return 0;
  const n = Math.min(at, trace.steps.length);
  return trace.steps[n]?.type === "tool_result" ? n + 1 : n;
}

/** Each tool the cassette ran answers with the next recorded result; errors are thrown again. */
function recordedTools(rest: TraceStep[], results: TraceStep[]): ToolMap {
  const tools: ToolMap = {};
  for (const s of rest) {
    if (s.type !== "tool_call") continue;
    const name = (s.payload as { toolName: string }).toolName;
    tools[name] = (): JsonValue => {
      const next = results.shift();
      if (!next) throw new Exhausted(`the replayed run called tool "${name}" once more than the cassette recorded`);
      const r = next.payload as unknown as ToolResultPayload;
      if ("error" in r) throw new Error(r.error);
      return structuredClone(r.result);
    };
  }
  return tools;
}

function compare(
  recorded: TraceStep[],
  actual: TraceStep[],
  start: number,
  stopped: string | undefined,
): ReplayDivergence | undefined {
  const n = Math.min(recorded.length, actual.length);
  for (let i = start; i < n; i++) {
    const r = recorded[i]!;
    const a = actual[i]!;
    if (r.type !== a.type) {
      return {
        index: i,
        path: "type",
        recorded: r.type,
        actual: a.type,
        message: `step ${i}: the cassette has a ${r.type} step, the replayed run wrote a ${a.type} step`,
      };
    }
    const d = firstDifference(r.payload, a.payload, "payload");
    if (d) {
      return {
        index: i,
        path: d.path,
        recorded: d.a,
        actual: d.b,
        message: `step ${i} (${r.type}) differs at ${d.path}: recorded ${quoted(d.a, 100)}, replayed ${quoted(d.b, 100)}`,
      };
    }
  }
  if (stopped !== undefined || recorded.length !== actual.length) {
    const index = n;
    const why =
      stopped ??
      (actual.length < recorded.length
        ? "the replayed run ended early"
        : "the replayed run went on after the recorded end");
    return {
      index,
      path: "",
      recorded: recorded[index]?.type,
      actual: actual[index]?.type,
      message: `step ${index}: ${why} (cassette: ${recorded.length} steps, replay: ${actual.length})`,
    };
  }
  return undefined;
}
