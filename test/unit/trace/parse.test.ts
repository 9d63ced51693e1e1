import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TraceLoadError } from "../../../src/errors.js";
import { lineColumnOf, parseTrace } from "../../../src/trace/parse.js";

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8");

function loadError(text: string, file?: string): TraceLoadError {
  try {
    parseTrace(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(TraceLoadError);
    return error as TraceLoadError;
  }
  throw new Error("expected parseTrace to throw");
}

function mutate(name: string, change: (t: any) => void): string {
  const t = JSON.parse(fixture(name));
  change(t);
  return JSON.stringify(t, null, 2);
}

describe("parseTrace", () => {
  it("reads every golden cassette", () => {
    for (const name of [
      "basic.json",
      "parallel.json",
      "fork-child.json",
      "failed-agent-error.json",
      "failed-process-exit.json",
      "failed-calls-in-flight.json",
      "failed-max-steps.json",
      "failed-unknown-tool.json",
    ]) {
      const t = parseTrace(fixture(name), name);
      expect(t.version).toBe(2);
      expect(t.steps.length).toBeGreaterThan(0);
    }
  });

  it("keeps unknown keys (a hash covers the payload; nothing may be stripped)", () => {
    const t = parseTrace(mutate("basic.json", (x) => (x.steps[0].payload.extra = 1)));
    expect((t.steps[0]!.payload as Record<string, unknown>).extra).toBe(1);
  });

  it("not JSON: says line and column and what to do", () => {
    const e = loadError('{\n  "version": 2,\n  "id": oops\n}', "run.json");
    expect(e.message).toMatch(/^cassette run\.json is not valid JSON \(line 3, column 9: /);
    expect(e.message).toMatch(/re-record the run/);
    expect(e.file).toBe("run.json");
  });

  it("truncated JSON and empty files", () => {
    expect(loadError('{"version": 2, "steps": [').message).toMatch(/^cassette is not valid JSON \(line 1, column 26/);
    expect(loadError("").message).toMatch(/not valid JSON \(it is empty\)/);
  });

  it("v1 cassette by version: re-record the run", () => {
    const e = loadError(fixture("v1.json"), "old.json");
    expect(e.message).toMatch(/^cassette old\.json is a v1 cassette .* Re-record the run/);
    expect(e.jsonPath).toBe("version");
  });

  it("v1 cassette without a version, recognised by the legacy [tool_call: strings", () => {
    const text = JSON.stringify({ id: "x", createdAt: 0, steps: [{ payload: "[tool_call:search] {}" }] });
    expect(loadError(text).message).toMatch(/is a v1 cassette/);
  });

  it("absent and unsupported versions", () => {
    expect(loadError(JSON.stringify({ id: "x", createdAt: 0, steps: [] })).message).toMatch(/has no `version` field/);
    const e = loadError(JSON.stringify({ version: 3, id: "x", createdAt: 0, steps: [] }));
    expect(e.message).toMatch(/unsupported version 3; this Blackbox reads version 2/);
    expect(loadError(JSON.stringify({ version: "2", id: "x", createdAt: 0, steps: [] })).message).toMatch(
      /unsupported version "2"/,
    );
  });

  it("not an object", () => {
    expect(loadError("[1,2]").message).toMatch(/is not a cassette: expected a JSON object/);
    expect(loadError("null").message).toMatch(/is not a cassette/);
  });

  it("schema errors name the JSON path and what was expected", () => {
    const e = loadError(
      mutate("basic.json", (x) => delete x.steps[3].payload.toolCallId),
      "b.json",
    );
    expect(e.message).toContain("steps[3].payload.toolCallId: expected a string, got nothing (the field is missing)");
    expect(e.message).toMatch(/Fix these fields or re-record the run\.$/);
    expect(e.jsonPath).toBe("steps[3].payload.toolCallId");
    expect(e.message).not.toMatch(/invalid_type|"code"/);
  });

  it("schema errors: wrong step type, model output shape, message part, role, stop", () => {
    expect(loadError(mutate("basic.json", (x) => (x.steps[1].type = "thought"))).message).toContain(
      'steps[1].type: expected "model_input" or "model_output" or "tool_call" or "tool_result" or "metadata", got "thought"',
    );
    expect(loadError(mutate("basic.json", (x) => (x.steps[5].payload.type = "answer"))).message).toContain(
      'steps[5].payload.type: expected "tool_call" or "tool_calls" or "final_answer", got "answer"',
    );
    expect(
      loadError(mutate("basic.json", (x) => (x.steps[4].payload.messages[1].content[0].type = "image"))).message,
    ).toContain("steps[4].payload.messages[1].content[0].type: expected");
    expect(loadError(mutate("basic.json", (x) => (x.steps[0].payload.messages[0].role = "system"))).message).toContain(
      'steps[0].payload.messages[0].role: expected "user" or "assistant", got "system"',
    );
    expect(loadError(mutate("basic.json", (x) => (x.steps[0].payload.messages[0].content = 5))).message).toContain(
      "steps[0].payload.messages[0].content: expected a string or an array, got an integer",
    );
    expect(loadError(mutate("parallel.json", (x) => (x.steps[8].payload.stop = "max_tokens"))).message).toContain(
      'steps[8].payload.stop: expected "length" or "refusal", got "max_tokens"',
    );
  });

  it("schema errors: tool results need exactly one of result / error", () => {
    const both = loadError(mutate("basic.json", (x) => (x.steps[3].payload.error = "boom")));
    expect(both.message).toContain("steps[3].payload: expected either `result` or `error`, not both");
    const neither = loadError(mutate("basic.json", (x) => delete x.steps[3].payload.result));
    expect(neither.message).toContain(
      "steps[3].payload: expected a `result` (any JSON value) or an `error` (a string)",
    );
  });

  it("schema errors: terminal payloads by reason, and hash format", () => {
    expect(loadError(mutate("failed-process-exit.json", (x) => (x.steps[2].payload.exitCode = "3"))).message).toContain(
      "steps[2].payload.exitCode: expected a number, got a string",
    );
    expect(
      loadError(mutate("failed-process-exit.json", (x) => (x.steps[2].payload.reason = "oops"))).message,
    ).toContain("steps[2].payload.reason: expected");
    expect(loadError(mutate("basic.json", (x) => (x.steps[2].hash = "abc"))).message).toContain(
      "steps[2].hash: expected a SHA-256 hash: 64 lowercase hex digits",
    );
    expect(loadError(mutate("basic.json", (x) => (x.steps[2].index = -1))).message).toContain(
      "steps[2].index: expected a value >= 0, got -1",
    );
  });

  it("lists at most five problems and points at verify for the rest", () => {
    const e = loadError(mutate("basic.json", (x) => x.steps.forEach((s: any) => (s.timestamp = "now"))));
    expect(e.message).toContain("... and 2 more (run `blackbox verify` to see them all)");
  });

  it("lineColumnOf counts from 1", () => {
    expect(lineColumnOf("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumnOf("abc", 0)).toEqual({ line: 1, column: 1 });
  });
});
