/**
 * The hostile cassettes the fuzz test found bugs with, pinned one by one with the
 * message each now gets (so a regression names itself).
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { diffTraces, TraceLoadError, verifyTrace, type Trace } from "../../src/index.js";
import { stepHash } from "../../src/trace/canonical.js";
import { parseTrace } from "../../src/trace/parse.js";
import { formatTimeline } from "../../src/trace/timeline.js";

const text = readFileSync("test/fixtures/basic.json", "utf8");
const base = (): Trace => JSON.parse(text) as Trace;
const rehash = (t: Trace): Trace => {
  let prev: string | null = null;
  for (const s of t.steps) {
    s.prevHash = prev;
    s.hash = stepHash(s);
    prev = s.hash;
  }
  return t;
};
const parseError = (src: string): TraceLoadError => {
  try {
    parseTrace(src, "x.json");
  } catch (error) {
    expect(error).toBeInstanceOf(TraceLoadError);
    return error as TraceLoadError;
  }
  throw new Error("parseTrace accepted it");
};

describe("deep nesting", () => {
  const nested = (n: number) => text.replace('"city": "Paris"', `"city": ${"[".repeat(n)}1${"]".repeat(n)}`);
  test("3000 levels: load and verify name the path instead of overflowing the stack", () => {
    const e = parseError(nested(3000));
    expect(e.message).toMatch(
      /^cassette x\.json: the value at steps\[1\]\.payload\.toolInput\.city(\[0\])+\.\.\. is nested more than 256 levels deep; Blackbox cannot check or hash it\. Flatten that data/,
    );
    expect(e.jsonPath).toBe(`steps[1].payload.toolInput.city${"[0]".repeat(251)}`);
    const v = verifyTrace(JSON.parse(nested(3000)));
    expect(v.ok).toBe(false);
    expect(v.problems).toHaveLength(1);
    expect(v.problems[0]!.stepIndex).toBe(1);
  });
  test("200 levels are fine: parse, verify (re-hashed), diff and show work", () => {
    const t = rehash(JSON.parse(nested(200)) as Trace);
    expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
    const parsed = parseTrace(JSON.stringify(t));
    expect(diffTraces(base(), parsed)!.path).toBe("payload.toolInput.city");
    expect(formatTimeline(parsed, { color: false })).toContain("run basic");
  });
});

test("a number JSON reads as Infinity, even under an unknown key, is refused, never skipped by the hash check", () => {
  const src = text.replace('"city": "Paris"', '"city": "Paris", "__proto__": 1e400');
  expect(parseError(src).message).toBe(
    "cassette x.json: the number at steps[1].payload.toolInput.__proto__ is too large for JSON (it reads as Infinity) and cannot be hashed. Write a finite number there or re-record the run.",
  );
  expect(verifyTrace(JSON.parse(src)).ok).toBe(false);
  expect(parseError(text.replace('"timestamp": 1767225600250', '"timestamp": -1e999')).message).toContain(
    "the number at steps[0].timestamp is too large for JSON (it reads as -Infinity)",
  );
});

test("diff of a payload with an own toString key names the key, not a prototype function", () => {
  const b = base();
  (b.steps[1]!.payload as Record<string, unknown>)["toString"] = "hello";
  const d = diffTraces(base(), rehash(b))!;
  expect(d.path).toBe("payload.toString");
  expect(d.a).toBeUndefined();
  expect(d.b).toBe("hello");
  expect(d.reason).toBe('step 1 (model_output) differs at payload.toString: (absent) vs "hello"');
});

test("verify reports a hash that is an object (with a toString field) instead of crashing", () => {
  const t = base() as unknown as { steps: Array<Record<string, unknown>> };
  t.steps[2]!.hash = { toString: "x", valueOf: [] };
  const v = verifyTrace(t);
  expect(v.ok).toBe(false);
  expect(v.problems.some((p) => p.path === "steps[2].hash" && p.message.includes("stored an object"))).toBe(true);
});

test("show prints a createdAt no Date can hold as it is", () => {
  const t = base();
  t.createdAt = 1e29;
  expect(formatTimeline(t, { color: false })).toContain("created at 1e+29 (not a valid time)");
});

test("__proto__ and constructor keys stay plain data and pollute nothing", () => {
  const src = text.replace(
    '"version": 2,',
    '"version": 2, "__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}},',
  );
  const t = parseTrace(src);
  expect(verifyTrace(t).ok).toBe(true); // unknown top-level keys are not hashed
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(t, "__proto__")).toBe(true);
});

test("a re-hashed chain with a forged step id fails verify at that id", () => {
  const t = base();
  t.steps[3]!.id = "other:3";
  const v = verifyTrace(rehash(t));
  expect(v.ok).toBe(false);
  expect(v.problems.map((p) => p.path)).toEqual(["steps[3].id"]);
});

test("duplicate keys: the last one wins, as JSON.parse reads it, and the hash covers that value", () => {
  const src = text.replace('"city": "Paris"', '"city": "Rome", "city": "Paris"');
  expect(verifyTrace(JSON.parse(src)).ok).toBe(true);
  const forged = text.replace('"city": "Paris"', '"city": "Paris", "city": "Rome"');
  expect(verifyTrace(JSON.parse(forged)).problems[0]!.path).toBe("steps[1].hash");
});
