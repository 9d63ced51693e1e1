/**
 * A scripted sweep child runs no tool: fork answers the fork point, the calls before it
 * and the other calls of the fork's round (those after the fork point, made as recorded)
 * from the parent, and refuses any other (`scriptedTools: "refuse"`, src/session/modes/fork.ts).
 * These are the round's calls a child's cell counts as answered, not run.
 */
import type { JsonValue, Trace } from "../trace/types.js";

export interface RecordedCall {
  name: string;
  input: JsonValue;
  result?: JsonValue;
  error?: string;
}

/** The calls of the round holding step `at` whose results come after it, in call order. */
export function roundAfter(parent: Trace, at: number): RecordedCall[] {
  const steps = parent.steps;
  let start = at;
  while (start > 0 && steps[start - 1]!.type !== "model_output") start--;
  let end = at;
  while (end + 1 < steps.length && (steps[end + 1]!.type === "tool_call" || steps[end + 1]!.type === "tool_result"))
    end++;
  const results = new Map<string, { index: number; result?: JsonValue; error?: string }>();
  for (const s of steps.slice(start, end + 1)) {
    if (s.type !== "tool_result") continue;
    const p = s.payload as { toolCallId: string; result?: JsonValue; error?: string };
    results.set(p.toolCallId, { index: s.index, result: p.result, error: p.error });
  }
  const calls: RecordedCall[] = [];
  for (const s of steps.slice(start, end + 1)) {
    if (s.type !== "tool_call") continue;
    const p = s.payload as { toolCallId: string; toolName: string; toolInput: JsonValue };
    const r = results.get(p.toolCallId);
    if (!r || r.index <= at) continue;
    const call: RecordedCall = { name: p.toolName, input: p.toolInput };
    if (r.error !== undefined) call.error = r.error;
    else call.result = r.result ?? null;
    calls.push(call);
  }
  return calls;
}
