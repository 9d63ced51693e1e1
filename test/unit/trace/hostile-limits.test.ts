/**
 * The limits a cassette stays within (src/trace/limits.ts): size, steps and nesting depth,
 * each refused with its own message naming the cassette, the limit and what to do, found
 * in the text before JSON.parse (src/trace/prescan.ts) and again in a parsed value; the
 * schema check and verify stop after a bounded number of problems; a wrong type is the
 * schema's problem, never a TypeError from the code that reads payloads.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BlackboxConfigError, CassetteLimitError } from "../../../src/errors.js";
import { loadTrace, loadTraceSync } from "../../../src/store/index.js";
import { stepHash } from "../../../src/trace/canonical.js";
import { checkShape, MAX_SHAPE_PROBLEMS } from "../../../src/trace/shape.js";
import { MAX_LIST_ISSUES } from "../../../src/trace/schema.js";
import { maxSteps } from "../../../src/trace/limits.js";
import { parseTrace, parseTraceJson } from "../../../src/trace/parse.js";
import { prescanJson } from "../../../src/trace/prescan.js";
import type { Trace } from "../../../src/trace/types.js";
import { MAX_VERIFY_PROBLEMS, verifyTrace } from "../../../src/trace/verify.js";

const FIXTURE_TEXT = readFileSync(new URL("../../fixtures/basic.json", import.meta.url), "utf8");

// not under os.tmpdir()/bb-*: the suite's secret scan reads only what recordings wrote
const dir = mkdtempSync(join(tmpdir(), "hostile-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.BLACKBOX_MAX_STEPS;
  delete process.env.BLACKBOX_MAX_CASSETTE_MB;
});

function refusal(f: () => unknown): CassetteLimitError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(CassetteLimitError);
    return error as CassetteLimitError;
  }
  throw new Error("expected a CassetteLimitError");
}

/** A cassette's text whose steps list holds `n` zeros. */
const zeros = (n: number, key = "steps"): string =>
  `{"version":2,"id":"x","createdAt":1,"${key}":[${new Array(n).fill("0").join(",")}]}`;

describe("the step limit", () => {
  it("more than 100000 steps are refused in the text, before JSON.parse, with the limit and what to do", () => {
    expect(maxSteps()).toBe(100_000);
    const e = refusal(() => parseTrace(zeros(100_001), "big.json"));
    expect(e.limit).toBe("steps");
    expect(e.jsonPath).toBe("steps");
    expect(e.message).toBe(
      "cassette big.json has more than 100000 steps, the most a cassette may hold, so it is not checked or loaded. A recorded run stays far below that: check where the file came from, or, for a real run this long, raise the limit with BLACKBOX_MAX_STEPS.",
    );
    expect(prescanJson(zeros(100_001), 256, 100_000)).toEqual({ kind: "steps" });
    expect(prescanJson(zeros(100_000), 256, 100_000)).toBeUndefined();
  });

  it("exactly the limit is not refused by it (the zeros are then schema problems)", () => {
    expect(() => parseTrace(zeros(100_000), "x.json")).toThrow(/does not match the cassette format/);
  });

  it("a steps key spelt with an escape is counted after JSON.parse", () => {
    const text = zeros(100_001, "st\\u0065ps");
    expect(prescanJson(text, 256, 100_000)).toBeUndefined();
    expect(refusal(() => parseTraceJson(text, "x.json")).limit).toBe("steps");
  });

  it("commas and brackets inside strings are not steps or nesting", () => {
    const text = `{"version":2,"steps":[${JSON.stringify(`${",".repeat(50)}[[[[\\"]]`)}, "a\\\\"]}`;
    expect(prescanJson(text, 3, 2)).toBeUndefined();
    expect(prescanJson(text, 3, 1)).toEqual({ kind: "steps" });
  });

  it("verifyTrace refuses a parsed value over the limit with one problem, without checking each step", () => {
    const v = verifyTrace(JSON.parse(zeros(100_001)));
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual([
      { stepIndex: null, path: "steps", message: expect.stringMatching(/^the cassette has more than 100000 steps/) },
    ]);
  });

  it("BLACKBOX_MAX_STEPS changes it; a value that is not a whole number is refused by name", () => {
    process.env.BLACKBOX_MAX_STEPS = "3";
    expect(refusal(() => parseTrace(FIXTURE_TEXT, "basic.json")).message).toMatch(
      /^cassette basic\.json has more than 3 steps/,
    );
    process.env.BLACKBOX_MAX_STEPS = "lots\u202e";
    expect(() => parseTrace(FIXTURE_TEXT)).toThrow(BlackboxConfigError);
    expect(() => parseTrace(FIXTURE_TEXT)).toThrow(
      "BLACKBOX_MAX_STEPS=lots\\u202e is not a limit Blackbox can use: set it to a whole number from 1 to 9007199254740991 (default 100000), or unset it.",
    );
  });
});

describe("the depth limit", () => {
  const deep = (n: number): string =>
    FIXTURE_TEXT.replace('"city": "Paris"', `"city": ${"[".repeat(n)}1${"]".repeat(n)}`);

  it("nesting past 256 levels is refused in the text with its path, whatever follows it", () => {
    const text = `${deep(300)}${"[".repeat(1_000_000)}`; // not even valid JSON after it
    const e = refusal(() => parseTrace(text, "x.json"));
    expect(e.limit).toBe("depth");
    expect(e.jsonPath).toBe(`steps[1].payload.toolInput.city${"[0]".repeat(251)}`);
    expect(e.message).toMatch(
      /^cassette x\.json: the value at steps\[1\]\.payload\.toolInput\.city(\[0\])+\.\.\. is nested more than 256 levels deep; Blackbox cannot check or hash it\. Flatten that data \(e\.g\. store it as a JSON string\) or re-record the run\.$/,
    );
  });

  it("a file of [ is refused at once: the scan stops at the limit", () => {
    const text = "[".repeat(20_000_000);
    const started = Date.now();
    const e = refusal(() => parseTraceJson(text, "brackets.json"));
    expect(Date.now() - started).toBeLessThan(500);
    expect(e.jsonPath).toBe("[0]".repeat(256));
  });

  it("object keys and array indexes make the path (keys as JSON, escaped)", () => {
    const text = `{"a":[1,{"b\\u202ec":[[[`;
    expect(prescanJson(text, 4, 10)).toEqual({ kind: "depth", path: 'a[1]["b\\u202ec"][0]' });
  });

  it("256 levels are fine", () => {
    expect(prescanJson(deep(250), 256, 100_000)).toBeUndefined();
  });
});

describe("the size limit", () => {
  it("a file over BLACKBOX_MAX_CASSETTE_MB is refused before it is read, naming the limit and the variable", async () => {
    const file = join(dir, "two-mb.json");
    writeFileSync(file, Buffer.alloc(2 * 1024 * 1024 + 1, 0x20));
    process.env.BLACKBOX_MAX_CASSETTE_MB = "2";
    const e = refusal(() => loadTraceSync(file));
    expect(e.limit).toBe("size");
    expect(e.message).toBe(
      `cassette ${file} is too large to load (2.0 MiB; the limit is 2 MiB). Split the run into shorter runs or record less tool output. (A real run this large can raise the limit with BLACKBOX_MAX_CASSETTE_MB, up to 512.)`,
    );
    await expect(loadTrace(file)).rejects.toBeInstanceOf(CassetteLimitError);
    process.env.BLACKBOX_MAX_CASSETTE_MB = "513";
    expect(() => loadTraceSync(file)).toThrow(/set it to a whole number from 1 to 512 \(default 256\)/);
  });
});

describe("problems are bounded", () => {
  const base = (): Trace => JSON.parse(FIXTURE_TEXT) as Trace;

  it("a list of 50000 wrong values gives at most MAX_LIST_ISSUES problems and one saying so", () => {
    const t = base();
    (t.steps[0]!.payload as { messages: unknown[] }).messages = new Array(50_000).fill(0);
    const problems = checkShape(t);
    expect(problems).toHaveLength(MAX_LIST_ISSUES + 1);
    expect(problems.at(-1)).toEqual({
      stepIndex: 0,
      path: "steps[0].payload.messages",
      message: `more problems from item ${MAX_LIST_ISSUES} on (of 50000) are not listed: the first ${MAX_LIST_ISSUES} are`,
    });
  });

  it("the schema check stops after MAX_SHAPE_PROBLEMS; verify after MAX_VERIFY_PROBLEMS", () => {
    const t = base();
    const step = t.steps[2]!;
    t.steps = Array.from({ length: 5000 }, () => ({
      ...step,
      payload: { ...(step.payload as object), toolName: 1 },
    })) as never;
    const shape = checkShape(t);
    expect(shape.length).toBe(MAX_SHAPE_PROBLEMS + 1);
    expect(shape.at(-1)!.message).toMatch(/^\d+ more step\(s\) not checked: the first 1000 problems are listed/);
    const v = verifyTrace(t);
    expect(v.problems.length).toBe(MAX_VERIFY_PROBLEMS + 1);
    expect(v.problems.at(-1)!.message).toMatch(/^more problems are not listed: verify stops at 1000\./);
  });
});

describe("schema first: a wrong type is a problem, never a TypeError", () => {
  const withCalls = (calls: unknown[]): Trace => {
    const t = JSON.parse(FIXTURE_TEXT) as Trace;
    const s = t.steps[1]!;
    s.payload = { type: "tool_calls", calls } as never;
    s.hash = stepHash(s);
    return t;
  };

  it.each([[[null]], [[{ toolCallId: "call-0", toolName: "get_weather", toolInput: {} }, null]], [[0, "x", []]]])(
    "calls: %j",
    (calls) => {
      const t = withCalls(calls);
      const v = verifyTrace(t);
      expect(v.ok).toBe(false);
      expect(v.problems[0]).toMatchObject({ stepIndex: 1, message: expect.stringMatching(/^expected an object, got/) });
      expect(() => parseTrace(JSON.stringify(t), "x.json")).toThrow(/does not match the cassette format/);
    },
  );
});
