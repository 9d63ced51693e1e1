/**
 * shareRecordedHistory (src/trace/share.ts) may only swap a recorded message for one
 * nothing can tell apart: the loaded trace serializes the same (key order and -0 too)
 * before and after, whatever was edited where; and repeats do become the same objects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exactlySame, extendsShared, shareRecordedHistory } from "../../../src/trace/share.js";
import type { TraceStep } from "../../../src/trace/types.js";

/** JSON text that also tells -0 from 0: what "cannot be told apart" means here. */
const exact = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (Object.is(x, -0) ? "(-0)" : x));

/** model_input steps as a cassette holds them: each parsed from its own text, each repeating the history. */
function loaded(messages: string[], editAt?: (inputs: { messages: unknown[] }[]) => void): TraceStep[] {
  const inputs = messages.map(
    (_, k) =>
      JSON.parse(`{"messages":[${messages.slice(0, k + 1).join(",")}],"tools":[],"model":"m"}`) as {
        messages: unknown[];
      },
  );
  editAt?.(inputs);
  return inputs.map((payload, index) => ({ index, type: "model_input", payload }) as unknown as TraceStep);
}
const msgs = (steps: TraceStep[], k: number) => (steps[k]!.payload as unknown as { messages: unknown[] }).messages;

type Edit = { kind: "set"; text: string } | { kind: "reverseKeys" } | { kind: "negZero" };
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => ({ kind: "set" as const, text: JSON.stringify(v) })),
  fc.constant({ kind: "reverseKeys" as const }),
  fc.constant({ kind: "negZero" as const }),
  fc
    .constantFrom('{"__proto__":{"role":"user"}}', '{"__proto__":1}', "-0", "0", "[]", "{}")
    .map((text) => ({ kind: "set" as const, text })),
);

function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (v !== null && typeof v === "object")
    for (const k of Object.keys(v))
      out.push(...paths((v as Record<string, unknown>)[k], [...at, Array.isArray(v) ? Number(k) : k]));
  return out;
}

function apply(root: unknown[], path: (string | number)[], e: Edit): void {
  if (path.length === 0) return;
  let parent: any = root;
  for (const k of path.slice(0, -1)) parent = parent[k];
  const last = path[path.length - 1]!;
  const cur = parent[last];
  if (e.kind === "set") parent[last] = JSON.parse(e.text);
  else if (e.kind === "negZero")
    parent[last] = typeof cur === "number" && cur === 0 ? (Object.is(cur, -0) ? 0 : -0) : -0;
  else if (cur !== null && typeof cur === "object" && !Array.isArray(cur)) {
    parent[last] = JSON.parse(
      `{${Object.keys(cur)
        .reverse()
        .map((k) => `${JSON.stringify(k)}:${JSON.stringify(cur[k])}`)
        .join(",")}}`,
    );
  }
}

const message = fc
  .oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({
      role: fc.constantFrom("user", "assistant"),
      content: fc.oneof(
        fc.string(),
        fc.array(fc.record({ type: fc.constant("text"), text: fc.string(), n: fc.constantFrom(0, 1, -1) })),
      ),
    }),
  )
  .map((v) => JSON.stringify(v).replace(/(?<=[:,[])0(?=[,\]}])/, "-0")); // some -0 as the file may hold

describe("shareRecordedHistory", () => {
  it("never changes what the trace serializes to, whatever one input's history was edited (key order, -0, __proto__, values)", () => {
    let sharedSeen = 0;
    let extendedSeen = 0;
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 2, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        editArb,
        (messages, pickInput, pickPath, edit) => {
          const steps = loaded(messages, (inputs) => {
            const target = inputs[pickInput % inputs.length]!.messages;
            const ps = paths(target);
            apply(target, ps[pickPath % ps.length]!, edit);
          });
          const before = exact(steps);
          shareRecordedHistory(steps);
          expect(exact(steps)).toBe(before);
          for (let k = 1; k < steps.length; k++) {
            if (msgs(steps, k)[0] === msgs(steps, k - 1)[0] && typeof msgs(steps, k)[0] === "object") sharedSeen++;
            // extendsShared says yes only where every earlier message, the tools and params are the same objects
            const prev = steps[k - 1]!.payload as unknown as Record<string, unknown>;
            const next = steps[k]!.payload as unknown as Record<string, unknown>;
            const really =
              Array.isArray(prev.messages) &&
              Array.isArray(next.messages) &&
              prev.messages.length <= next.messages.length &&
              prev.messages.every((m, i) => m === (next.messages as unknown[])[i]) &&
              prev.tools === next.tools &&
              prev.params === next.params;
            expect(extendsShared(prev, next)).toBe(really);
            if (really) extendedSeen++;
          }
        },
      ),
      { numRuns: 1500 },
    );
    expect(sharedSeen).toBeGreaterThan(500); // it did share (else the test proves nothing)
    expect(extendedSeen).toBeGreaterThan(500);
  });

  it("extendsShared: true for each input that repeats the previous one's history, false from where a history parts, and after a later share that no longer finds it", () => {
    const m = [
      '{"role":"user","content":"a"}',
      '{"role":"assistant","content":[{"type":"text","text":"b"}]}',
      '{"role":"user","content":"c"}',
    ];
    const steps = loaded(m, (inputs) => ((inputs[2]!.messages[1] as Record<string, unknown>).content = "edited"));
    const p = steps.map((s) => s.payload as unknown as object);
    shareRecordedHistory(steps);
    expect(extendsShared(p[0]!, p[1]!)).toBe(true);
    expect(extendsShared(p[1]!, p[2]!)).toBe(false); // input 2 edited message 1
    expect(extendsShared(p[0]!, p[2]!)).toBe(false); // not its previous input
    // the same history without the edit: shared; then input 1 changes and the trace is shared again
    const clean = loaded(m);
    const q = clean.map((s) => s.payload as unknown as { messages: unknown[] });
    shareRecordedHistory(clean);
    expect(extendsShared(q[1]!, q[2]!)).toBe(true);
    q[2]!.messages[0] = JSON.parse('{"role":"user","content":"other"}');
    shareRecordedHistory(clean);
    expect(extendsShared(q[1]!, q[2]!)).toBe(false);
    // and where the messages are no list at all by the second share
    shareRecordedHistory(clean);
    q[2]!.messages[0] = q[1]!.messages[0];
    shareRecordedHistory(clean);
    expect(extendsShared(q[1]!, q[2]!)).toBe(true);
    (q[2] as { messages: unknown }).messages = "oops";
    shareRecordedHistory(clean);
    expect(extendsShared(q[1]!, q[2]!)).toBe(false);
  });

  it("makes a repeated history the same objects, and stops sharing where an input's history parts", () => {
    const m = [
      '{"role":"user","content":"a"}',
      '{"role":"assistant","content":[{"type":"text","text":"b"}]}',
      '{"role":"user","content":"c"}',
    ];
    const steps = loaded(m, (inputs) => ((inputs[2]!.messages[0] as Record<string, unknown>).content = "edited"));
    shareRecordedHistory(steps);
    expect(msgs(steps, 1)[0]).toBe(msgs(steps, 0)[0]);
    expect(msgs(steps, 2)[0]).not.toBe(msgs(steps, 1)[0]); // edited: kept
    expect(msgs(steps, 2)[1]).not.toBe(msgs(steps, 1)[1]); // after the edit: not compared, kept
    expect((steps[2]!.payload as { tools: unknown }).tools).toBe((steps[0]!.payload as { tools: unknown }).tools);
  });
});

describe("exactlySame: equal to the key order", () => {
  const cases: [string, string, string, boolean][] = [
    ["the same text", '{"a":1,"b":[1,{"c":null}]}', '{"a":1,"b":[1,{"c":null}]}', true],
    ["another key order (JSON.stringify would differ)", '{"a":1,"b":2}', '{"b":2,"a":1}', false],
    ["0 and -0 (JSON equal, but not the same number)", '{"n":0}', '{"n":-0}', false],
    ["an own __proto__ key against none", '{"__proto__":{"x":1}}', "{}", false],
    ["an own __proto__ key on both", '{"__proto__":{"x":1}}', '{"__proto__":{"x":1}}', true],
    ["an extra key", '{"a":1}', '{"a":1,"b":2}', false],
    ["an array and an object with index keys", '["x"]', '{"0":"x"}', false],
    ["arrays of other lengths", "[1,2]", "[1,2,3]", false],
  ];
  for (const [name, a, b, same] of cases) {
    it(`${name}: ${same}`, () => {
      expect(exactlySame(JSON.parse(a), JSON.parse(b))).toBe(same);
      expect(exactlySame(JSON.parse(b), JSON.parse(a))).toBe(same);
    });
  }

  it("an enumerable key a polluted Object.prototype adds is not taken for an own key", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      expect(exactlySame({ a: 1 }, { a: 1, polluted: 1 })).toBe(false);
    } finally {
      delete proto.polluted;
    }
  });
});
