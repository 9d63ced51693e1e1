import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { makeStep, TraceBuilder } from "../../../src/trace/builder.js";
import { keepUnchanged } from "../../../src/trace/rerecord.js";
import { verifyTrace } from "../../../src/trace/verify.js";
import { diffOutcome, diffTraces } from "../../../src/trace/diff.js";
import { firstDifference } from "../../../src/trace/jsonDiff.js";
import { parseTrace } from "../../../src/trace/parse.js";
import type { Trace } from "../../../src/trace/types.js";

const load = (name: string): Trace =>
  parseTrace(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8"), name);

describe("firstDifference", () => {
  it("names the path of the first differing value", () => {
    const a = {
      messages: [
        { role: "user", content: "x" },
        { role: "user", content: [{ type: "text", text: "a" }] },
      ],
    };
    const b = {
      messages: [
        { role: "user", content: "x" },
        { role: "user", content: [{ type: "text", text: "b" }] },
      ],
    };
    expect(firstDifference(a, b)).toEqual({ path: "messages[1].content[0].text", a: "a", b: "b" });
    expect(firstDifference(a, b, "payload")).toEqual({ path: "payload.messages[1].content[0].text", a: "a", b: "b" });
  });

  it("ignores key order, reports missing keys, array lengths and kind changes", () => {
    expect(firstDifference({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBeUndefined();
    expect(firstDifference({ a: 1 }, { a: 1, b: null })).toEqual({ path: "b", a: undefined, b: null });
    expect(firstDifference([1, 2], [1, 2, 3])).toEqual({ path: "[2]", a: undefined, b: 3 });
    expect(firstDifference({ x: [1] }, { x: { 0: 1 } })).toEqual({ path: "x", a: [1], b: { 0: 1 } });
    expect(firstDifference({ "x-y": 1 }, { "x-y": 2 })).toEqual({ path: '["x-y"]', a: 1, b: 2 });
    expect(firstDifference(0, -0)).toBeUndefined();
    expect(firstDifference(null, null)).toBeUndefined();
  });
});

describe("diffTraces", () => {
  it("same cassette: null", () => {
    expect(diffTraces(load("basic.json"), load("basic.json"))).toBeNull();
  });

  it("a fork diverges exactly at its fork point, in the tool result", () => {
    const d = diffTraces(load("basic.json"), load("fork-child.json"));
    expect(d).toEqual({
      index: 3,
      typeA: "tool_result",
      typeB: "tool_result",
      kind: "changed",
      path: "payload.result.sky",
      a: "clear",
      b: "snow",
      reason: 'step 3 (tool_result) differs at payload.result.sky: "clear" vs "snow"',
    });
  });

  it("reports type, timestamp and prevHash differences in that order", () => {
    const base = makeStep("t", undefined, "tool_call", { toolCallId: "call-0", toolName: "x", toolInput: {} }, 10);
    const trace = (s: typeof base): Trace => ({ version: 2, id: "t", createdAt: 0, steps: [s] });
    const withType = { ...base, type: "metadata" as const, hash: "1".repeat(64) };
    expect(diffTraces(trace(base), trace(withType))).toMatchObject({
      path: "type",
      a: "tool_call",
      b: "metadata",
      typeB: "metadata",
    });
    const later = makeStep("t", undefined, "tool_call", base.payload, 11);
    expect(diffTraces(trace(base), trace(later))).toMatchObject({ path: "timestamp", a: 10, b: 11 });
    const relinked = { ...base, prevHash: "0".repeat(64), hash: "2".repeat(64) };
    expect(diffTraces(trace(base), trace(relinked))).toMatchObject({ path: "prevHash", a: null });
    const rehashed = { ...base, hash: "3".repeat(64) };
    expect(diffTraces(trace(base), trace(rehashed))).toMatchObject({
      path: "hash",
      reason: expect.stringMatching(/same content but a different stored hash/),
    });
  });

  it("an edited payload whose stored hash was left alone is a difference, not the same", () => {
    const a = load("basic.json");
    const b = structuredClone(a);
    (b.steps[5]!.payload as { text: string }).text = "Stay home.";
    (b.steps[6]!.payload as { result: string }).result = "Stay home.";
    expect(b.steps.map((s) => s.hash)).toEqual(a.steps.map((s) => s.hash));
    expect(diffTraces(a, b)).toMatchObject({ index: 5, kind: "changed", path: "payload.text", b: "Stay home." });
    expect(diffTraces(b, a)).toMatchObject({ index: 5, path: "payload.text", a: "Stay home." });
    // the tampered fixture: same stored hashes as basic would have, edited result
    expect(diffTraces(load("tampered.json"), b)).not.toBeNull();
    expect(diffTraces(b, structuredClone(b))).toBeNull(); // same content, same (wrong) hashes: verify's to report
  });

  it("the first difference is one of meaning; steps recorded at another time are counted apart", () => {
    const a = load("basic.json");
    // the same run recorded 5 s later, whose model answered otherwise at step 5
    const later = new TraceBuilder({ id: a.id, createdAt: a.createdAt + 5000 });
    for (const s of a.steps) {
      const payload = s.index === 5 ? { ...(s.payload as object), text: "Stay home." } : s.payload;
      later.append(s.type, payload, s.timestamp + 5000);
    }
    expect(diffTraces(a, later.trace)).toMatchObject({
      index: 5,
      path: "payload.text",
      b: "Stay home.",
      retimed: { count: 5, first: 0 },
    });
    // and when only the time differs, the timestamp is the difference, said as such
    const again = new TraceBuilder({ id: a.id, createdAt: a.createdAt });
    for (const s of a.steps) again.append(s.type, s.payload, s.timestamp + 5000);
    const timeOnly = diffTraces(a, again.trace);
    expect(timeOnly?.retimed).toBeUndefined();
    expect(timeOnly).toMatchObject({
      index: 0,
      path: "timestamp",
      reason: expect.stringContaining(`only timestamps differ (${a.steps.length} steps)`),
    });
  });

  it("a re-recording keeps the steps before the change verbatim, and leaves an unchanged run as it was", () => {
    const a = load("basic.json");
    const redo = (change: boolean) => {
      const b = new TraceBuilder({ id: a.id, createdAt: a.createdAt + 5000 });
      for (const s of a.steps)
        b.append(
          s.type,
          change && s.index === 5 ? { ...(s.payload as object), text: "Stay." } : s.payload,
          s.timestamp + 5000,
        );
      return b.trace;
    };
    expect(keepUnchanged(a, redo(false))).toBe(a);
    const kept = keepUnchanged(a, redo(true));
    expect(kept.steps.slice(0, 5)).toEqual(a.steps.slice(0, 5));
    expect(kept.createdAt).toBe(a.createdAt);
    expect(verifyTrace(kept).ok).toBe(true);
    const d = diffTraces(a, kept);
    expect(d).toMatchObject({ index: 5, path: "payload.text" });
    expect(d?.retimed).toBeUndefined();
    // a cassette of another run is not reused
    const other = redo(true);
    other.id = "another";
    expect(keepUnchanged(a, other)).toBe(other);
  });

  it("a step present in only one trace", () => {
    const a = load("basic.json");
    const b = { ...a, steps: a.steps.slice(0, 5) };
    expect(diffTraces(a, b)).toMatchObject({
      index: 5,
      typeA: "model_output",
      typeB: null,
      kind: "only_in_a",
      path: "",
      b: undefined,
    });
    expect(diffTraces(b, a)).toMatchObject({
      index: 5,
      typeA: null,
      kind: "only_in_b",
      reason: "step 5 (model_output) exists only in B; A has 5 steps",
    });
  });
});

describe("diffOutcome", () => {
  it("same outcome for the same run", () => {
    const r = diffOutcome(load("basic.json"), load("basic.json"));
    expect(r).toEqual({
      same: true,
      a: { status: "success", result: "It is 21°C and clear in Paris." },
      b: { status: "success", result: "It is 21°C and clear in Paris." },
    });
  });

  it("different results and failures, each reason described", () => {
    expect(diffOutcome(load("basic.json"), load("fork-child.json")).same).toBe(false);
    const cases: [string, string, string][] = [
      ["failed-agent-error.json", "agent_error", "tool budget exhausted"],
      ["failed-process-exit.json", "process_exit", "the process exited with code 3"],
      [
        "failed-calls-in-flight.json",
        "calls_in_flight",
        "the process exited with code 0 while 2 call(s) were in flight",
      ],
      ["failed-max-steps.json", "max_steps_exceeded", "the agent exceeded maxSteps (10)"],
      ["failed-unknown-tool.json", "unknown_tool", 'the model asked for an unknown tool "launch_rocket"'],
    ];
    for (const [file, reason, error] of cases) {
      const r = diffOutcome(load("basic.json"), load(file));
      expect(r.same).toBe(false);
      expect(r.b).toEqual({ status: "error", reason, error });
    }
  });

  it("a run without a terminal step has outcome none", () => {
    const a = load("basic.json");
    const r = diffOutcome(a, { ...a, steps: a.steps.slice(0, 3) });
    expect(r).toMatchObject({ same: false, b: { status: "none" } });
  });
});
