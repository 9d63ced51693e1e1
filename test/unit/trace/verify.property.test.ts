import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stepHash } from "../../../src/trace/canonical.js";
import { parseTrace } from "../../../src/trace/parse.js";
import type { JsonValue, TraceStepType } from "../../../src/trace/types.js";
import { traceArb } from "../../helpers/traceArb.js";
import { checkStructure } from "../../../src/trace/structure.js";
import { verifyTrace } from "../../../src/trace/verify.js";

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

  it("changing any single hashed value of any step fails verify at exactly that step (the step structure may break elsewhere too)", () => {
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
        else
          s.prevHash =
            s.prevHash === null ? "0".repeat(64) : s.prevHash.replace(/^./, (c: string) => (c === "0" ? "1" : "0"));
        const r = verifyTrace(trace);
        expect(r.ok).toBe(false);
        expect(r.problems.some((p) => p.stepIndex === k)).toBe(true);
        // an id or a type changed at k can leave another step without its partner: only those are elsewhere
        const structural = new Set(
          checkStructure(trace as any, trace.steps).map((p) => `${p.stepIndex} ${p.path} ${p.message}`),
        );
        expect(
          r.problems.filter((p) => p.stepIndex !== k && !structural.has(`${p.stepIndex} ${p.path} ${p.message}`)),
        ).toEqual([]);
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
