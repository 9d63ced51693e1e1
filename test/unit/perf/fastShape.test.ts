import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidTraceShape } from "../../../src/trace/fastShape.js";
import { parseTrace } from "../../../src/trace/parse.js";
import { checkShape } from "../../../src/trace/shape.js";
import { mutate, mutationArb, nodePaths, traceArb } from "../../helpers/traceArb.js";

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const FIXTURES = join(import.meta.dirname, "../../fixtures");

describe("isValidTraceShape (parseTrace's fast path)", () => {
  it("accepts every generated valid trace, as zod does, but one with an own __proto__ key (left to zod on purpose)", () => {
    const hasProtoKey = (v: unknown): boolean =>
      v !== null && typeof v === "object" && (Object.hasOwn(v, "__proto__") || Object.values(v).some(hasProtoKey));
    fc.assert(
      fc.property(traceArb, (trace) => {
        expect(checkShape(trace)).toEqual([]);
        expect(isValidTraceShape(trace)).toBe(!hasProtoKey(trace));
      }),
      { numRuns: 300 },
    );
    // the case that made this test flaky (fast-check's jsonValue makes such keys now and then)
    const withProto = JSON.parse('{"__proto__": false}') as unknown;
    expect(hasProtoKey({ a: [withProto] })).toBe(true);
  });

  it("never accepts what zod rejects: any single mutation at any path", () => {
    let rejected = 0;
    fc.assert(
      fc.property(traceArb, fc.nat(), mutationArb, (generated, pick, m) => {
        const trace = clone(generated); // mutated in place: fast-check reuses values while shrinking
        const paths = nodePaths(trace);
        const value = mutate(trace, paths[pick % paths.length]!, m);
        if (isValidTraceShape(value)) expect(checkShape(value)).toEqual([]);
        else rejected++;
      }),
      { numRuns: 3000 },
    );
    expect(rejected).toBeGreaterThan(500); // the mutations do break traces
  });

  it("mutations inside payloads (where the schema is deepest) never slip through", () => {
    fc.assert(
      fc.property(traceArb, fc.nat(), fc.nat(), mutationArb, (generated, s, pick, m) => {
        const trace = clone(generated);
        const k = s % trace.steps.length;
        const paths = nodePaths(trace.steps[k]!.payload).map((p) => ["steps", k, "payload", ...p]);
        const value = mutate(trace, paths[pick % paths.length]!, m);
        if (isValidTraceShape(value)) expect(checkShape(value)).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees with zod on every golden fixture", () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const value: unknown = JSON.parse(readFileSync(join(FIXTURES, f), "utf8"));
      const zodOk = checkShape(value).length === 0;
      if (isValidTraceShape(value)) expect(zodOk, f).toBe(true);
      if (zodOk && (value as { version?: unknown }).version === 2) expect(isValidTraceShape(value), f).toBe(true);
    }
  });

  it("says not valid for values zod also rejects, so parseTrace still names the problem", () => {
    const bad = JSON.parse(readFileSync(join(FIXTURES, "basic.json"), "utf8"));
    bad.steps[0].payload.messages[0].role = "system";
    expect(isValidTraceShape(bad)).toBe(false);
    expect(() => parseTrace(JSON.stringify(bad), "x.json")).toThrow(
      /steps\[0\]\.payload\.messages\[0\]\.role: expected "user" or "assistant"/,
    );
  });
});
