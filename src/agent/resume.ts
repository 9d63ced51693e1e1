/**
 * Where the built-in loop stands after a given prefix of a trace: the history a
 * continued run sends (structured MessagePart[]), the turns already taken and the
 * next call-N. Shared by forkRun (continue after a copied prefix) and replayTrace
 * (re-drive a forked child after its prefix).
 */
import { ForkError } from "../errors.js";
import { maxCallIndex, toolCallsOf } from "../trace/payloads.js";
import type { Message, ModelInput, ToolCall, ToolResultPayload, Trace, TraceStep } from "../trace/types.js";
import { roundMessages, type LoopState } from "./loop.js";

/** The first model_input of a trace: the task, tool definitions and request fields of the run. */
export function initialInputOf(trace: Trace): ModelInput {
  const first = trace.steps.find((s) => s.type === "model_input");
  const input = first?.payload as unknown as ModelInput | undefined;
  if (!input || !Array.isArray(input.messages) || !Array.isArray(input.tools)) {
    throw new ForkError(
      `Trace "${trace.id}" has no model_input step with messages and tools, so the built-in agent cannot continue it. ` +
        `Fork a cassette recorded by the built-in demo agent (blackbox demo), or fork a recorded agent with -- <command>.`,
    );
  }
  return input;
}

/**
 * Rebuilds the loop state after `prefix`. The history is the last model_input's
 * messages plus every tool round completed after it; a round whose results are
 * not all in the prefix (the prefix ends inside it) is left out, since a request
 * cannot carry a tool_use without its tool_result.
 */
export function stateFromPrefix(prefix: readonly TraceStep[], initial: ModelInput): LoopState {
  let lastInput = -1;
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]!.type === "model_input") {
      lastInput = i;
      break;
    }
  }
  const from = lastInput >= 0 ? (prefix[lastInput]!.payload as unknown as ModelInput) : initial;
  const { messages, ...base } = structuredClone(from);
  const history: Message[] = [...messages];

  let pending: { calls: ToolCall[]; text: string | undefined; results: Map<string, ToolResultPayload> } | undefined;
  for (const step of prefix.slice(lastInput + 1)) {
    if (step.type === "model_output") {
      const calls = toolCallsOf(step.payload);
      const o = step.payload as { type?: string; text?: string };
      pending =
        calls.length > 0
          ? { calls, text: o.type === "tool_calls" ? o.text : undefined, results: new Map() }
          : undefined;
    } else if (step.type === "tool_result" && pending) {
      const r = step.payload as unknown as ToolResultPayload;
      pending.results.set(r.toolCallId, r);
      if (pending.calls.every((c) => pending!.results.has(c.toolCallId))) {
        const ordered = pending.calls.map((c) => pending!.results.get(c.toolCallId)!);
        history.push(...roundMessages(pending.calls, pending.text, ordered));
        pending = undefined;
      }
    }
  }

  return {
    base,
    messages: history,
    turns: prefix.filter((s) => s.type === "model_output").length,
    nextCallIndex: maxCallIndex(prefix) + 1,
  };
}
