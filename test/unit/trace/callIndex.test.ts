/**
 * callIndex (src/trace/payloads.ts) reads N of a run-local `call-N` id without a regex;
 * it must say exactly what /^call-(\d+)$/ says, or tool-call numbering would drift.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callIndex } from "../../../src/trace/payloads.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";

const byRegex = (id: string): number => {
  const m = /^call-(\d+)$/.exec(id);
  return m ? Number(m[1]) : -1;
};

describe("callIndex", () => {
  it("gives what /^call-(\\d+)$/ gives, for any string", () => {
    const id = fc.oneof(
      fc.string(),
      fc.nat().map((n) => `call-${n}`),
      fc
        .tuple(fc.constantFrom("call-", "call", "Call-", "xcall-", "call--"), fc.string({ maxLength: 4 }), fc.nat())
        .map(([a, b, n]) => `${a}${b}${n}`),
      fc.constantFrom(
        "call-",
        "call-0",
        "call-007",
        "call-1a",
        "call-1\n",
        "call-１",
        "call- 1",
        "call-1e3",
        "call-0x1",
        "call-9007199254740993",
        `call-${"9".repeat(400)}`,
      ),
    );
    fc.assert(
      fc.property(id, (s) => {
        expect(callIndex(s)).toBe(byRegex(s));
      }),
      { numRuns: 3000 },
    );
  });

  it("is -1 for what is not a string (a payload handed in memory may hold anything; the regex would have read its String())", () => {
    for (const v of [undefined, null, 7, ["call-1"], { toString: () => "call-1" }])
      expect(callIndex(v as unknown as string)).toBe(-1);
  });

  it("keeps the run's numbering past a registered call-N (and leaves it for other ids)", () => {
    const ids = new ToolCallIds();
    ids.register("bbx_call-7", "call-7");
    expect(ids.fresh()).toBe("call-8");
    ids.register("toolu_x", "call-x");
    expect(ids.fresh()).toBe("call-9");
  });
});
