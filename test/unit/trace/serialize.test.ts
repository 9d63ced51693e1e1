/**
 * A cassette's text (src/store/serialize.ts) is JSON.stringify's value with less whitespace:
 * indented down to a step's payload fields, compact below.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cassetteText } from "../../../src/store/serialize.js";
import { exactlySame } from "../../../src/trace/share.js";

const odd = fc.constantFrom<unknown>(
  undefined,
  () => 1,
  Symbol("s"),
  new Date(0),
  new Number(2),
  new String("x"),
  -0,
  NaN,
);
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "medium" },
    fc.jsonValue({ maxDepth: 2 }),
    odd,
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie("v"), { maxKeys: 4 }),
  ),
})).v;

describe("cassetteText", () => {
  it("parses to exactly what JSON.stringify's text parses to, for any value", () => {
    fc.assert(
      fc.property(value, (v) => {
        const plain = JSON.stringify(v);
        const text = cassetteText(v);
        expect(text.endsWith("\n")).toBe(true);
        expect(exactlySame(JSON.parse(text), JSON.parse(plain ?? "null"))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("indents a step's payload fields and writes each message on a line of its own", () => {
    const trace = {
      version: 2,
      steps: [
        { index: 0, payload: { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [] } },
      ],
    };
    expect(cassetteText(trace)).toBe(
      `{
  "version": 2,
  "steps": [
    {
      "index": 0,
      "payload": {
        "messages": [
          {"role":"user","content":[{"type":"text","text":"hi"}]}
        ],
        "tools": []
      }
    }
  ]
}
`,
    );
  });

  it("refuses what JSON.stringify refuses", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = { a: [cycle] };
    expect(() => cassetteText({ steps: [cycle] })).toThrow(/circular/i);
    expect(() => cassetteText({ steps: [{ n: 1n }] })).toThrow(/BigInt/);
  });
});
