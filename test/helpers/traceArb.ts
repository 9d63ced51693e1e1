/**
 * Random valid v2 traces (every step type, payload shape and terminal event), and
 * random single mutations at any path of a value. Shared by the property tests.
 */
import fc from "fast-check";
import { TraceBuilder } from "../../src/trace/builder.js";
import type { JsonValue, Trace, TraceStepType } from "../../src/trace/types.js";

const name = fc.constantFrom("search", "read_file", "get_weather", "run");
const callId = fc.nat({ max: 50 }).map((n) => `call-${n}`);
const data = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const text = fc.string({ maxLength: 20 });
const stop = fc.option(fc.constantFrom("length", "refusal"), { nil: undefined });

const part = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({ type: fc.constant("tool_use"), toolCallId: callId, toolName: name, toolInput: data }),
  fc.record({ type: fc.constant("tool_result"), toolCallId: callId, toolName: name, result: data }),
  fc.record({ type: fc.constant("tool_result"), toolCallId: callId, toolName: name, error: text }),
);
const message = fc.record({ role: fc.constantFrom("user", "assistant"), content: fc.oneof(text, fc.array(part, { maxLength: 3 })) });
const modelInput = fc.record(
  {
    messages: fc.array(message, { maxLength: 3 }),
    tools: fc.array(fc.record({ name, description: text, inputSchema: data }, { requiredKeys: ["name", "inputSchema"] }), { maxLength: 2 }),
    systemPrompt: text,
    model: fc.constantFrom("claude-sonnet-4-5", "gpt-4o"),
    params: fc.record({ temperature: fc.double({ min: 0, max: 2, noNaN: true }), maxTokens: fc.nat() }),
  },
  { requiredKeys: ["messages", "tools"] },
);
const toolCall = fc.record({ toolCallId: callId, toolName: name, toolInput: data });
const withoutUndefined = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
const modelOutput = fc.oneof(
  toolCall.map((c) => ({ type: "tool_call", ...c })),
  fc.record({ calls: fc.array(toolCall, { maxLength: 3 }), text, stop }).map((o) => withoutUndefined({ type: "tool_calls", ...o })),
  fc.record({ text, stop }).map((o) => withoutUndefined({ type: "final_answer", ...o })),
);
const toolResult = fc.oneof(
  fc.record({ toolCallId: callId, toolName: name, result: data }),
  fc.record({ toolCallId: callId, toolName: name, error: text }),
);
const metadata = fc.oneof(
  fc.record({ event: fc.constant("run_completed"), status: fc.constant("success"), result: data }),
  fc.record({ event: fc.constant("run_failed"), status: fc.constant("error"), reason: fc.constant("agent_error"), message: text }),
  fc.record({ event: fc.constant("run_failed"), status: fc.constant("error"), reason: fc.constant("process_exit"), exitCode: fc.integer({ min: -1, max: 255 }) }),
  fc.record({ event: fc.constant("run_failed"), status: fc.constant("error"), reason: fc.constant("calls_in_flight"), exitCode: fc.integer({ min: -1, max: 255 }), inFlight: fc.nat({ max: 5 }) }),
  fc.record({ event: fc.constant("run_failed"), status: fc.constant("error"), reason: fc.constant("max_steps_exceeded"), maxSteps: fc.nat() }),
  fc.record({ event: fc.constant("run_failed"), status: fc.constant("error"), reason: fc.constant("unknown_tool"), toolName: name }),
  fc.record({ event: fc.constant("session_started"), mode: fc.constantFrom("record", "replay") }),
);
const step = fc.oneof(
  modelInput.map((p) => ["model_input", p] as const),
  modelOutput.map((p) => ["model_output", p] as const),
  toolCall.map((p) => ["tool_call", p] as const),
  toolResult.map((p) => ["tool_result", p] as const),
  metadata.map((p) => ["metadata", p] as const),
);

export const traceArb: fc.Arbitrary<Trace> = fc
  .record({
    id: fc.constantFrom("run", "demo-1", "a b"),
    steps: fc.array(fc.tuple(step, fc.integer({ min: 0, max: 4_000_000_000_000 })), { minLength: 1, maxLength: 8 }),
  })
  .map(({ id, steps }) => {
    const b = new TraceBuilder({ id, createdAt: 1767225600000 });
    for (const [[type, payload], ts] of steps) b.append(type as TraceStepType, withoutUndefined(payload) as JsonValue, ts);
    return JSON.parse(JSON.stringify(b.trace)) as Trace; // what a file holds: JSON text parsed back
  });

/** Paths to every node (not only leaves) of a JSON value, the root included. */
export function nodePaths(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  const out = [path];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...nodePaths(x, [...path, i])));
  else if (v !== null && typeof v === "object") {
    for (const k of Object.keys(v)) out.push(...nodePaths((v as Record<string, unknown>)[k], [...path, k]));
  }
  return out;
}

/** Replacement values: every JSON kind, edge numbers, and values JSON cannot hold. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<unknown>(
    undefined, null, NaN, Infinity, -Infinity, -0, 1.5, -1, 2 ** 53, "", "x", true, [], {}, [undefined], { a: undefined },
    "text", "tool_use", "tool_result", "user", "assistant", "run_completed", "run_failed", "success", "error",
    "length", "refusal", "model_input", "metadata", "0".repeat(64), "g".repeat(64),
  ),
  fc.constant(null).map(() => Object.create(null) as unknown),
  fc.constant(null).map(() => new Date(0) as unknown),
);

export type Mutation = { kind: "set"; value: unknown } | { kind: "delete" } | { kind: "add"; key: string; value: unknown };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  oddValue.map((value) => ({ kind: "set" as const, value })),
  fc.constant({ kind: "delete" as const }),
  fc.record({ key: fc.constantFrom("result", "error", "extra", "__proto__", "stop", "description", "params", "text"), value: oddValue }).map((m) => ({ kind: "add" as const, ...m })),
);

/** Applies one mutation at `path` (the root is replaced by "set" only). */
export function mutate(root: unknown, path: (string | number)[], m: Mutation): unknown {
  if (path.length === 0) return m.kind === "set" ? m.value : root;
  let parent: any = root;
  for (const k of path.slice(0, -1)) parent = parent[k];
  const last = path[path.length - 1]!;
  if (m.kind === "set") parent[last] = m.value;
  else if (m.kind === "delete") {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else {
    const target = parent[last];
    if (target !== null && typeof target === "object" && !Array.isArray(target)) {
      Object.defineProperty(target, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
    } else parent[last] = m.value;
  }
  return root;
}
