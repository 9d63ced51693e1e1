/**
 * Loading with the recorded history shared (src/trace/share.ts, parseTraceShared and
 * verifyTrace(trace, shared)) checks each repeat of a message once. It must answer exactly
 * what the plain load answers, for any file: the same refusal, the same verify problems
 * (every path of a problem that repeats with the history), the same hashes, the same trace.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalJsonShared, stepHash } from "../../../src/trace/canonical.js";
import { unsafeValueIn } from "../../../src/trace/depth.js";
import { isValidTraceShape } from "../../../src/trace/fastShape.js";
import { parseTrace, parseTraceShared } from "../../../src/trace/parse.js";
import { shareRecordedHistory } from "../../../src/trace/share.js";
import { TraceBuilder } from "../../../src/trace/builder.js";
import type { JsonValue, Trace, TraceStep } from "../../../src/trace/types.js";
import { verifyTrace } from "../../../src/trace/verify.js";
import { mutate, mutationArb, nodePaths } from "../../helpers/traceArb.js";

/** Strings a neutrality scan flags (at one level or both), and plain ones. */
const word = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "toolu_01AbC9xyz",
      "msg_0123456789abcdefXY",
      "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
      "Bearer abcdefghijklmnop1234",
      "OPENAI_API_KEY",
      "call-3",
      "usage",
      "x-api-key",
    ),
  },
);
const data: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    word,
    fc.integer(),
    fc.constantFrom(0, -0, 1.5, true, null),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(word, tie("v"), { maxKeys: 3 }),
  ),
})).v;
const part = fc.oneof(
  fc.record({ type: fc.constant("text"), text: word }),
  fc.record({
    type: fc.constant("tool_use"),
    toolCallId: fc.constantFrom("call-0", "call-1", "toolu_01Xy7"),
    toolName: word,
    toolInput: data,
  }),
  fc.record({
    type: fc.constant("tool_result"),
    toolCallId: fc.constantFrom("call-0", "call-1"),
    toolName: word,
    result: data,
  }),
  fc.record({ type: fc.constant("tool_result"), toolCallId: fc.constant("call-2"), toolName: word, error: word }),
);
const message = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      role: fc.constantFrom("user", "assistant"),
      content: fc.oneof(word, fc.array(part, { maxLength: 3 })),
    }),
  },
  { weight: 1, arbitrary: data }, // not a message at all: the shape check says so, at every repeat
);

/** A tool loop as a cassette holds it: model_input k repeats the first k+1 messages; JSON text. */
const loopText = fc
  .record({
    messages: fc.array(message, { minLength: 2, maxLength: 7 }),
    tools: fc.array(fc.record({ name: word, inputSchema: data }), { maxLength: 2 }),
    model: fc.constantFrom("claude-sonnet-4-6", "gpt-4o"),
  })
  .map(({ messages, tools, model }) => {
    const b = new TraceBuilder({ id: "loop", createdAt: 1767225600000 });
    messages.forEach((_, k) => {
      b.append(
        "model_input",
        { messages: messages.slice(0, k + 1), tools, model, params: { maxTokens: 1024 } } as unknown as JsonValue,
        1000 + k,
      );
      b.append("model_output", { type: "tool_call", toolCallId: `call-${k}`, toolName: "t", toolInput: {} }, 1000 + k);
    });
    b.append("metadata", { event: "run_completed", status: "success", result: "done" }, 2000);
    return JSON.stringify(b.trace, null, 2);
  });

/** Text-level edits JSON.stringify cannot make: a number too large, nesting too deep, broken JSON. */
const textEdit = fc.constantFrom<(t: string) => string>(
  (t) => t,
  (t) => t.replace(/"maxTokens": 1024/, '"maxTokens": 1e400'),
  (t) => t.replace(/"maxTokens": 1024/g, '"maxTokens": 1e400'),
  (t) => t.replace(/"role": "user"/, `"role": ${"[".repeat(300)}${"]".repeat(300)}`),
  (t) => t.replace(/"role": "user"/g, `"role": ${"[".repeat(300)}${"]".repeat(300)}`),
  (t) => t.replace(/"role": "assistant"/, `"role": ${"[".repeat(250)}${"]".repeat(250)}`),
  (t) => t.replace(/"model_output"/, '"model_output",'),
);

/** What a load says: the refusal, or the trace (as text) and what verify finds; `shared`: the way replay loads. */
function load(text: string, shared: boolean): unknown {
  let refusal: string | undefined;
  let trace: Trace | undefined;
  try {
    trace = shared ? parseTraceShared(text).trace : parseTrace(text);
  } catch (e) {
    refusal = (e as Error).message;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { refusal };
  }
  const steps = (value as { steps?: unknown }).steps;
  const repeats = shared && Array.isArray(steps) ? shareRecordedHistory(steps) : undefined;
  return { refusal, text: trace && JSON.stringify(trace), verify: verifyTrace(value, repeats) };
}

describe("a load with the history shared answers what the plain load answers", () => {
  it("for tool loops with any one value of any step edited, and text-level edits (refusal, problems and their paths, the trace)", () => {
    let sharedRuns = 0;
    let problemRuns = 0;
    fc.assert(
      fc.property(
        loopText,
        fc.nat(),
        fc.nat(),
        mutationArb,
        fc.boolean(),
        textEdit,
        (text, pickStep, pickPath, m, edit, textual) => {
          let file = text;
          if (edit) {
            const value = JSON.parse(text) as { steps: unknown[] };
            const step = value.steps[pickStep % value.steps.length];
            const paths = nodePaths(step);
            mutate(step, paths[pickPath % paths.length]!, m);
            file = JSON.stringify(value, null, 2) ?? "null";
          }
          file = textual(file);
          const plain = load(file, false);
          expect(load(file, true)).toEqual(plain);
          try {
            const steps = (JSON.parse(file) as { steps?: unknown }).steps;
            if (Array.isArray(steps) && shareRecordedHistory(steps).size > 0) sharedRuns++;
          } catch {
            /* not JSON: compared above all the same */
          }
          if ((plain as { verify?: { ok: boolean } }).verify?.ok === false) problemRuns++;
        },
      ),
      { numRuns: 600 },
    );
    expect(sharedRuns).toBeGreaterThan(300); // it did share (else the comparison proves nothing)
    expect(problemRuns).toBeGreaterThan(100); // and problems were found, inside shared history too
  });

  it("a problem in a repeated message is reported at each step it repeats in", () => {
    const b = new TraceBuilder({ id: "loop", createdAt: 1 });
    const messages = [
      {
        role: "assistant",
        content: [{ type: "tool_use", toolCallId: "toolu_01AbC9xyz", toolName: "t", toolInput: {} }],
      },
      { role: "user", content: "ok" },
      { role: "user", content: "again" },
    ];
    messages.forEach((_, k) => {
      b.append("model_input", { messages: messages.slice(0, k + 1), tools: [] } as unknown as JsonValue, k);
      b.append("model_output", { type: "final_answer", text: "ok" }, k);
    });
    b.append("metadata", { event: "run_completed", status: "success", result: "ok" }, 3);
    const text = JSON.stringify(b.trace);
    const { trace, shared } = parseTraceShared(text);
    expect(shared.size).toBeGreaterThan(0);
    expect((trace.steps[4]!.payload as { messages: unknown[] }).messages[0]).toBe(
      (trace.steps[0]!.payload as { messages: unknown[] }).messages[0],
    );
    const paths = verifyTrace(trace, shared).problems.map((p) => p.path);
    // at each repeat: not a call-N id (structure), and a provider id (neutrality)
    expect(paths).toEqual(
      [0, 2, 4].flatMap((k) => [0, 1].map(() => `steps[${k}].payload.messages[0].content[0].toolCallId`)),
    );
    expect(verifyTrace(JSON.parse(text)).problems.map((p) => p.path)).toEqual(paths);
  });
});

describe("an object shared at two depths is checked at the deeper one too", () => {
  const nested = (levels: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < levels; i++) v = [v];
    return v;
  };
  const wrap = (v: unknown, levels: number): unknown => {
    for (let i = 0; i < levels; i++) v = { a: v };
    return v;
  };

  it("the depth check", () => {
    const x = nested(3);
    const root = { near: x, far: wrap(x, 4) }; // x ends at depth 4 near, 8 far
    expect(unsafeValueIn(root, 6)).toBeDefined();
    expect(unsafeValueIn(root, 6, new Set([x as object]))).toEqual(unsafeValueIn(root, 6));
    const farFirst = { far: wrap(x, 4), near: x }; // the walk meets it deep first, then shallow
    expect(unsafeValueIn(farFirst, 20, new Set([x as object]))).toBeUndefined();
    expect(unsafeValueIn(farFirst, 6, new Set([x as object]))).toEqual(unsafeValueIn(farFirst, 6));
  });

  it("the shape check", () => {
    const x = nested(290);
    const b = new TraceBuilder({ id: "t", createdAt: 1 });
    b.append("tool_call", { toolCallId: "call-0", toolName: "t", toolInput: x as JsonValue }, 1);
    b.append("tool_call", { toolCallId: "call-1", toolName: "t", toolInput: wrap(x, 20) as JsonValue }, 2);
    const trace = b.trace; // x itself at both places, 20 levels deeper in the second
    expect(isValidTraceShape(trace)).toBe(false);
    expect(isValidTraceShape(trace, new Set([x as object]))).toBe(false);
  });
});

describe("canonicalJsonShared gives canonicalize's text", () => {
  const odd = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom<unknown>(
      -0,
      NaN,
      Infinity,
      [undefined],
      { a: undefined, b: 1 },
      [1, , 3],
      { s: Symbol("x") },
      [Symbol("y")],
      new Date(0),
      { toJSON: () => ({ z: 1 }) },
      "\u2028\ud800",
      { "\u00e9": 1, e: 2, E: 3, "10": 4, "9": 5 },
    ),
  );
  it("for any value, with its objects shared or not, and every throw the same", () => {
    fc.assert(
      fc.property(fc.array(odd, { maxLength: 4 }), fc.boolean(), (values, twice) => {
        const one = { a: values, b: twice ? values : [...values] }; // the same objects at two places
        const shared = new Set<object>(values.filter((v): v is object => v !== null && typeof v === "object"));
        shared.add(values);
        const texts = new Map<object, string>();
        let expected: string | Error;
        try {
          expected = canonicalJson(one);
        } catch (e) {
          expected = e as Error;
        }
        if (expected instanceof Error) {
          expect(() => canonicalJsonShared(one, shared, texts)).toThrow(expected.message);
        } else {
          expect(canonicalJsonShared(one, shared, texts)).toBe(expected);
          expect(canonicalJsonShared(one, shared, texts)).toBe(expected); // again, from what it remembered
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("step hashes are the same with the memo as without, on a shared 30-turn loop", () => {
    const b = new TraceBuilder({ id: "loop", createdAt: 1 });
    const messages: unknown[] = [];
    for (let k = 0; k < 30; k++) {
      messages.push({ role: k % 2 ? "assistant" : "user", content: [{ type: "text", text: `turn ${k}`, n: -0 }] });
      b.append(
        "model_input",
        { messages: [...messages], tools: [{ name: "t", inputSchema: { type: "object" } }] } as unknown as JsonValue,
        k,
      );
    }
    const { trace, shared } = parseTraceShared(JSON.stringify(b.trace));
    expect(shared.size).toBeGreaterThan(29);
    const memo = { shared, texts: new Map<object, string>() };
    const steps: TraceStep[] = trace.steps;
    expect(steps.map((s) => stepHash(s, memo))).toEqual(steps.map((s) => s.hash));
    expect(memo.texts.size).toBeGreaterThan(0);
  });
});
