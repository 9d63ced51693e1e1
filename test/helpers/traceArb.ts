/**
 * Random valid v2 traces (every step type, payload shape and terminal event, in the step
 * structure verify checks), and
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
const message = fc.record({
  role: fc.constantFrom("user", "assistant"),
  content: fc.oneof(text, fc.array(part, { maxLength: 3 })),
});
const modelInput = fc.record(
  {
    messages: fc.array(message, { maxLength: 3 }),
    tools: fc.array(
      fc.record({ name, description: text, inputSchema: data }, { requiredKeys: ["name", "inputSchema"] }),
      { maxLength: 2 },
    ),
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
  fc
    .record({ calls: fc.array(toolCall, { maxLength: 3 }), text, stop })
    .map((o) => withoutUndefined({ type: "tool_calls", ...o })),
  fc.record({ text, stop }).map((o) => withoutUndefined({ type: "final_answer", ...o })),
);
const toolResult = fc.oneof(
  fc.record({ toolCallId: callId, toolName: name, result: data }),
  fc.record({ toolCallId: callId, toolName: name, error: text }),
);
const metadata = fc.oneof(
  fc.record({ event: fc.constant("run_completed"), status: fc.constant("success"), result: data }),
  fc.record({
    event: fc.constant("run_failed"),
    status: fc.constant("error"),
    reason: fc.constant("agent_error"),
    message: text,
  }),
  fc.record({
    event: fc.constant("run_failed"),
    status: fc.constant("error"),
    reason: fc.constant("process_exit"),
    exitCode: fc.integer({ min: -1, max: 255 }),
  }),
  fc.record({
    event: fc.constant("run_failed"),
    status: fc.constant("error"),
    reason: fc.constant("calls_in_flight"),
    exitCode: fc.integer({ min: -1, max: 255 }),
    inFlight: fc.nat({ max: 5 }),
  }),
  fc.record({
    event: fc.constant("run_failed"),
    status: fc.constant("error"),
    reason: fc.constant("max_steps_exceeded"),
    maxSteps: fc.nat(),
  }),
  fc.record({
    event: fc.constant("run_failed"),
    status: fc.constant("error"),
    reason: fc.constant("unknown_tool"),
    toolName: name,
  }),
  fc.record({ event: fc.constant("session_started"), mode: fc.constantFrom("record", "replay") }),
);
const terminal = metadata.filter((m) => m.event !== "session_started");
const marker = fc.record({ event: fc.constant("session_started"), mode: fc.constantFrom("record", "replay") });

/** One model turn: its input, its output (ids assigned when the run is built) and which requested calls ran. */
const turn = fc.record({
  input: modelInput,
  output: modelOutput,
  ran: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  results: fc.array(toolResult, { minLength: 3, maxLength: 3 }),
});

/**
 * Random valid runs, in the step structure verify checks (src/trace/structure.ts): an
 * optional marker, model turns each followed by its tool round (a built-in single
 * tool_call always runs; a tool_calls output runs any subset, in call order), one terminal
 * step last; call-N ids fresh in order; timestamps whole and never going back.
 */
export const traceArb: fc.Arbitrary<Trace> = fc
  .record({
    id: fc.constantFrom("run", "demo-1", "a b"),
    marker: fc.option(marker, { nil: undefined }),
    turns: fc.array(turn, { maxLength: 3 }),
    end: terminal,
    start: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    gaps: fc.array(fc.nat({ max: 5_000 }), { minLength: 32, maxLength: 32 }),
  })
  .map(({ id, marker, turns, end, start, gaps }) => {
    const b = new TraceBuilder({ id, createdAt: 1767225600000 });
    let t = start;
    let g = 0;
    const add = (type: TraceStepType, payload: unknown): void => {
      t += gaps[g++ % gaps.length]!;
      b.append(type, withoutUndefined(payload as object) as JsonValue, t);
    };
    let next = 0;
    if (marker) add("metadata", marker);
    for (const { input, output, ran, results } of turns) {
      add("model_input", input);
      const o = structuredClone(output) as Record<string, any>;
      if (o.type === "tool_call") o.toolCallId = `call-${next++}`;
      if (o.type === "tool_calls") for (const c of o.calls) c.toolCallId = `call-${next++}`;
      add("model_output", o);
      const calls: Array<{ toolCallId: string; toolName: string; toolInput: unknown }> =
        o.type === "tool_call" ? [o as any] : o.type === "tool_calls" ? o.calls : [];
      calls.forEach((c, k) => {
        if (o.type === "tool_calls" && !ran[k]) return;
        add("tool_call", { toolCallId: c.toolCallId, toolName: c.toolName, toolInput: c.toolInput });
        add("tool_result", { ...results[k]!, toolCallId: c.toolCallId, toolName: c.toolName });
      });
    }
    add("metadata", end);
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
    undefined,
    null,
    NaN,
    Infinity,
    -Infinity,
    -0,
    1.5,
    -1,
    2 ** 53,
    "",
    "x",
    true,
    [],
    {},
    [undefined],
    { a: undefined },
    "text",
    "tool_use",
    "tool_result",
    "user",
    "assistant",
    "run_completed",
    "run_failed",
    "success",
    "error",
    "length",
    "refusal",
    "model_input",
    "metadata",
    "0".repeat(64),
    "g".repeat(64),
  ),
  fc.constant(null).map(() => Object.create(null) as unknown),
  fc.constant(null).map(() => new Date(0) as unknown),
);

export type Mutation =
  { kind: "set"; value: unknown } | { kind: "delete" } | { kind: "add"; key: string; value: unknown };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  oddValue.map((value) => ({ kind: "set" as const, value })),
  fc.constant({ kind: "delete" as const }),
  fc
    .record({
      key: fc.constantFrom("result", "error", "extra", "__proto__", "stop", "description", "params", "text"),
      value: oddValue,
    })
    .map((m) => ({ kind: "add" as const, ...m })),
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
