/**
 * forkRun: branch a built-in agent run at a step and let the loop go on from there
 * (trace-format.md, "Built-in demo fork", "Fork-Point Semantics by Step Type",
 * "Tool-result mutation constraint").
 */
import { ForkError } from "../errors.js";
import { TraceBuilder } from "../trace/builder.js";
import { plainJsonProblem } from "../trace/plainJson.js";
import type { JsonValue, ToolResultPayload, Trace, TraceStep } from "../trace/types.js";
import { continueLoop, type ToolMap } from "./loop.js";
import type { ModelClient } from "./modelClient.js";
import { initialInputOf, stateFromPrefix } from "./resume.js";

export interface ForkRunOptions {
  /** Parent step to branch at: any step but a metadata step. */
  forkIndex: number;
  /** New results for tool_result steps before forkIndex (step index -> result). */
  toolResultMutations?: Record<number, JsonValue>;
  /** The CLI --set form: forkIndex must be a tool_result; the child carries this result there. */
  replacement?: JsonValue;
  client: ModelClient;
  tools: ToolMap;
  /** Child trace id (default `${parent.id}-fork-${forkIndex}`). */
  traceId?: string;
  now?: () => number;
  maxSteps?: number;
}

export async function forkRun(parent: Trace, options: ForkRunOptions): Promise<Trace> {
  const { forkIndex } = options;
  const hasReplacement = options.replacement !== undefined;
  const at = forkPointOf(parent, forkIndex);
  if (hasReplacement && at.type !== "tool_result") {
    throw new ForkError(
      `Cannot set a result at step ${forkIndex}: it is a ${at.type} step, and --set replaces a tool result. ` +
        `Pick the index of a tool_result step (blackbox show lists them), or fork with --at alone.`,
    );
  }
  if (hasReplacement && Object.keys(options.toolResultMutations ?? {}).length > 0) {
    throw new ForkError(
      `A fork takes either a replacement result at the fork point or toolResultMutations, not both. ` +
        `Put the new value for step ${forkIndex} in one of them.`,
    );
  }
  const bad = hasReplacement ? plainJsonProblem("the replacement result", options.replacement) : undefined;
  if (bad) throw new ForkError(bad);
  const mutations = checkMutations(parent, forkIndex, options.toolResultMutations ?? {});
  const initial = initialInputOf(parent);

  const clock = options.now ?? Date.now;
  const builder = new TraceBuilder({
    id: options.traceId ?? `${parent.id}-fork-${forkIndex}`,
    createdAt: clock(),
    parentId: parent.id,
    forkedFromStepId: at.id,
  });
  const earliest = mutations.size > 0 ? Math.min(...mutations.keys()) : forkIndex;
  for (const step of parent.steps.slice(0, earliest)) builder.copy(step);
  for (const step of parent.steps.slice(earliest, forkIndex)) {
    const payload = mutations.has(step.index) ? withResult(step, mutations.get(step.index)!) : step.payload;
    builder.append(step.type, payload, step.timestamp);
  }
  if (hasReplacement) builder.append("tool_result", withResult(at, options.replacement!), at.timestamp);

  // The first new step always lies after the step it replaces, so its hash differs
  // from the parent's even when its payload is the same.
  let first = true;
  const now = (): number => {
    const t = clock();
    if (!first) return t;
    first = false;
    return hasReplacement ? t : Math.max(t, at.timestamp + 1);
  };
  const state = stateFromPrefix(builder.steps, initial);
  return continueLoop(builder, state, {
    client: options.client,
    tools: options.tools,
    now,
    maxSteps: options.maxSteps,
  });
}

function forkPointOf(parent: Trace, forkIndex: number): TraceStep {
  const last = parent.steps.length - 1;
  if (!Number.isInteger(forkIndex) || forkIndex < 0 || forkIndex > last) {
    throw new ForkError(
      `Fork index ${forkIndex} is out of range: trace "${parent.id}" has ${parent.steps.length} steps (0..${last}). ` +
        `Pick a step index from blackbox show.`,
    );
  }
  const at = parent.steps[forkIndex]!;
  if (at.type === "metadata") {
    throw new ForkError(
      `Cannot fork at step ${forkIndex}: it is a metadata step (a terminal run marker), so there is nothing to continue. ` +
        `Fork at an earlier model_input, model_output, tool_call or tool_result step.`,
    );
  }
  return at;
}

function checkMutations(parent: Trace, forkIndex: number, raw: Record<number, JsonValue>): Map<number, JsonValue> {
  const mutations = new Map<number, JsonValue>();
  for (const [key, value] of Object.entries(raw)) {
    const index = Number(key);
    const step = Number.isInteger(index) ? parent.steps[index] : undefined;
    if (!step || index >= forkIndex) {
      throw new ForkError(
        `Cannot mutate step ${key}: mutations apply to tool_result steps before the fork point (${forkIndex}). ` +
          `Fork at a later step, or mutate an earlier tool_result.`,
      );
    }
    if (step.type !== "tool_result") {
      throw new ForkError(
        `Cannot mutate step ${index}: it is a ${step.type} step, and toolResultMutations only replace tool_result steps. ` +
          `Use the index of a tool_result step.`,
      );
    }
    const bad = plainJsonProblem(`toolResultMutations[${index}]`, value);
    if (bad) throw new ForkError(bad);
    mutations.set(index, value);
  }
  if (mutations.size === 0) return mutations;
  const earliest = Math.min(...mutations.keys());
  const stale = parent.steps.slice(earliest, forkIndex).find((s) => s.type === "model_input");
  if (stale) {
    throw new ForkError(
      `Cannot fork at step ${forkIndex} with a mutation at step ${earliest}: model_input step ${stale.index} lies between them ` +
        `and records the history before the mutation, so the prefix would contradict itself. ` +
        `Fork at step ${stale.index} or earlier so the mutated result reaches the next model call.`,
    );
  }
  return mutations;
}

/** The tool_result payload of `step` with a new result; toolCallId and toolName are kept. */
function withResult(step: TraceStep, result: JsonValue): JsonValue {
  const p = step.payload as unknown as ToolResultPayload;
  return { toolCallId: p.toolCallId, toolName: p.toolName, result };
}
