/**
 * A scripted sweep child runs no tool. The engine answers the fork point and the calls
 * before it from the parent; the other calls of the fork's round (those after the fork
 * point, identical to the parent's) are answered here from the parent's recording, and any
 * other call is refused: with a script, nothing the agent does may reach the world.
 */
import { ForkError } from "../errors.js";
import { canonicalJson } from "../trace/canonical.js";
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

/** Answers a scripted child's tool calls from `pending`; records what it answered and what it refused. */
export class RecordedAnswers {
  readonly answered: Array<{ name: string; input: JsonValue }> = [];
  refused: string | undefined;

  constructor(
    private readonly pending: RecordedCall[],
    private readonly cassette: string,
  ) {}

  answer(name: string, input: JsonValue): unknown {
    const key = canonicalJson(input);
    const i = this.pending.findIndex((c) => c.name === name && canonicalJson(c.input) === key);
    if (i < 0) {
      const text = JSON.stringify(input);
      this.refused ??=
        `a scripted sweep child runs no tool, and the agent called ${name}(${text.length > 80 ? `${text.slice(0, 77)}...` : text}), ` +
        `which ${this.cassette} does not record in the fork's round: continue the sweep live, or end the script before the agent needs a tool`;
      throw new ForkError(this.refused);
    }
    const [call] = this.pending.splice(i, 1);
    this.answered.push({ name, input });
    if (call!.error !== undefined) throw new Error(call!.error);
    return structuredClone(call!.result);
  }
}
