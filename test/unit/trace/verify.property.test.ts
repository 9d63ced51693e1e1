import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TraceBuilder } from "../../../src/trace/builder.js";
import { stepHash } from "../../../src/trace/canonical.js";
import { parseTrace } from "../../../src/trace/parse.js";
import type { JsonValue, Trace, TraceStepType } from "../../../src/trace/types.js";
import { verifyTrace } from "../../../src/trace/verify.js";

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
  fc.record({ event: fc.constant("run_failed"), status: fc.constant("error"), reason: fc.constant("max_steps_exceeded"), maxSteps: fc.nat() }),
  fc.record({ event: fc.constant("session_started"), mode: fc.constantFrom("record", "replay") }),
);
const step = fc.oneof(
  modelInput.map((p) => ["model_input", p] as const),
  modelOutput.map((p) => ["model_output", p] as const),
  toolCall.map((p) => ["tool_call", p] as const),
  toolResult.map((p) => ["tool_result", p] as const),
  metadata.map((p) => ["metadata", p] as const),
);

const traceArb: fc.Arbitrary<Trace> = fc
  .record({
    id: fc.constantFrom("run", "demo-1", "a b"),
    steps: fc.array(fc.tuple(step, fc.integer({ min: 0, max: 4_000_000_000_000 })), { minLength: 1, maxLength: 8 }),
  })
  .map(({ id, steps }) => {
    const b = new TraceBuilder({ id, createdAt: 1767225600000 });
    for (const [[type, payload], ts] of steps) b.append(type as TraceStepType, withoutUndefined(payload) as JsonValue, ts);
    // what a file holds: JSON text parsed back
    return JSON.parse(JSON.stringify(b.trace)) as Trace;
  });

/** Paths to every leaf (primitive, empty array, empty object) of a JSON value. */
function leaves(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.length === 0 ? [path] : v.flatMap((x, i) => leaves(x, [...path, i]));
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v);
    return keys.length === 0 ? [path] : keys.flatMap((k) => leaves((v as Record<string, unknown>)[k], [...path, k]));
  }
  return [path];
}

/** A different JSON value of the same leaf. */
function changed(v: unknown): JsonValue {
  if (typeof v === "string") return `${v}x`;
  if (typeof v === "number") return v !== 0 ? -v : 1;
  if (typeof v === "boolean") return !v;
  if (v === null) return 0;
  if (Array.isArray(v)) return [0];
  return { changed: 0 };
}

function setAt(root: any, path: (string | number)[], value: JsonValue): any {
  if (path.length === 0) return value;
  let cur = root;
  for (const k of path.slice(0, -1)) cur = cur[k];
  cur[path[path.length - 1]!] = value;
  return root;
}

const TYPES: TraceStepType[] = ["model_input", "model_output", "tool_call", "tool_result", "metadata"];

describe("verify properties", () => {
  it("any valid generated trace verifies", () => {
    fc.assert(
      fc.property(traceArb, (trace) => {
        expect(verifyTrace(trace)).toEqual({ ok: true, problems: [] });
      }),
      { numRuns: 200 },
    );
  });

  it("changing any single hashed value of any step fails verify at exactly that step", () => {
    const mutation = fc.constantFrom("payload", "timestamp", "type", "index", "prevHash");
    fc.assert(
      fc.property(traceArb, fc.nat(), fc.nat(), mutation, (trace, stepPick, leafPick, field) => {
        const k = stepPick % trace.steps.length;
        const s = trace.steps[k] as any;
        if (field === "payload") {
          const all = leaves(s.payload);
          const path = all[leafPick % all.length]!;
          const before = path.reduce((o: any, key) => o[key], s.payload);
          s.payload = setAt(s.payload, path, changed(before));
        } else if (field === "timestamp") s.timestamp += 1;
        else if (field === "type") s.type = TYPES[(TYPES.indexOf(s.type) + 1 + (leafPick % 4)) % 5];
        else if (field === "index") s.index += 1;
        else s.prevHash = s.prevHash === null ? "0".repeat(64) : s.prevHash.replace(/^./, (c: string) => (c === "0" ? "1" : "0"));
        const r = verifyTrace(trace);
        expect(r.ok).toBe(false);
        expect(r.problems.some((p) => p.stepIndex === k)).toBe(true);
        expect(r.problems.filter((p) => p.stepIndex !== k)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("key order in the file never changes a hash", () => {
    const shuffle = (v: unknown, rand: () => number): unknown => {
      if (Array.isArray(v)) return v.map((x) => shuffle(x, rand));
      if (v === null || typeof v !== "object") return v;
      const entries = Object.entries(v).map(([k, x]) => [k, shuffle(x, rand)] as const);
      for (let i = entries.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [entries[i], entries[j]] = [entries[j]!, entries[i]!];
      }
      return Object.fromEntries(entries);
    };
    fc.assert(
      fc.property(traceArb, fc.integer(), (trace, seed) => {
        let state = seed >>> 0 || 1;
        const rand = (): number => {
          state ^= state << 13;
          state ^= state >>> 17;
          state ^= state << 5;
          return (state >>> 0) / 2 ** 32;
        };
        const reparsed = parseTrace(JSON.stringify(shuffle(trace, rand), null, 1));
        expect(reparsed.steps.map((s) => stepHash(s))).toEqual(trace.steps.map((s) => s.hash));
        expect(verifyTrace(reparsed).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
