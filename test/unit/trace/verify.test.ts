import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TraceBuilder } from "../../../src/trace/builder.js";
import type { JsonValue, TraceStepType } from "../../../src/trace/types.js";
import { checkStructure } from "../../../src/trace/structure.js";
import { findSecrets, verifyTrace } from "../../../src/trace/verify.js";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8"));

const ANT_KEY = "sk-ant-api03-" + "a1B2c3D4e5F6g7H8i9J0".repeat(3);
const PROJ_KEY = "sk-proj-" + "Zz09Yy18Xx27".repeat(3);

/** A correctly chained trace around the given steps. */
function traceOf(steps: [TraceStepType, JsonValue][], id = "run") {
  const b = new TraceBuilder({ id, createdAt: 1767225600000 });
  steps.forEach(([type, payload], i) => b.append(type, payload, 1767225600000 + i));
  return b.trace;
}
const input = (extra: Record<string, JsonValue> = {}): JsonValue => ({
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  ...extra,
});
/**
 * verifyTrace without the step-structure problems (test/unit/trace/structure.test.ts covers
 * those): the traces below are built to test the chain, the schema and neutrality, and are
 * not whole runs.
 */
function verifyOutsideStructure(value: unknown) {
  const all = verifyTrace(value);
  const isObj = value !== null && typeof value === "object" && !Array.isArray(value);
  const steps =
    isObj && Array.isArray((value as { steps?: unknown }).steps) ? (value as { steps: unknown[] }).steps : [];
  const structural = new Set(
    isObj
      ? checkStructure(value as Record<string, unknown>, steps).map((p) => `${p.stepIndex} ${p.path} ${p.message}`)
      : [],
  );
  const problems = all.problems.filter((p) => !structural.has(`${p.stepIndex} ${p.path} ${p.message}`));
  return { ok: problems.length === 0, problems };
}
const paths = (value: unknown): string[] => verifyOutsideStructure(value).problems.map((p) => p.path);

describe("verifyTrace", () => {
  it("accepts every golden cassette (user data like {usage: 42} and params.logprobs included)", () => {
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
      expect(verifyTrace(fixture(name)), name).toEqual({ ok: true, problems: [] });
    }
  });

  it("tampered cassette: fails at the edited step with its path", () => {
    const r = verifyTrace(fixture("tampered.json"));
    expect(r.ok).toBe(false);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ stepIndex: 3, path: "steps[3].hash" });
    expect(r.problems[0]!.message).toMatch(
      /^hash does not match the step's content .* restore it from version control or re-record the run\.$/,
    );
  });

  it("chain links: prevHash, first prevHash null, index, id", () => {
    const t = traceOf([
      ["model_input", input()],
      ["model_output", { type: "final_answer", text: "x" }],
    ]) as any;
    t.steps[1].prevHash = "f".repeat(64);
    expect(paths(t)).toEqual(["steps[1].prevHash", "steps[1].hash"]);
    const u = traceOf([["model_input", input()]]) as any;
    u.steps[0].prevHash = "a".repeat(64);
    expect(verifyOutsideStructure(u).problems[0]!.message).toMatch(/^the first step's prevHash must be null/);
    const v = traceOf([["model_input", input()]]) as any;
    v.steps[0].id = "other:0";
    expect(verifyOutsideStructure(v).problems).toEqual([
      { stepIndex: 0, path: "steps[0].id", message: expect.stringMatching(/^id is "other:0", expected "run:0"\./) },
    ]);
  });

  it("returns every problem with its step, not just the first", () => {
    const t = traceOf([
      ["model_input", input()],
      ["model_output", { type: "final_answer", text: "x", usage: { input_tokens: 3 } }],
      ["tool_call", { toolCallId: "toolu_01A09q90qw90lq917835lq9", toolName: "t", toolInput: { key: ANT_KEY } }],
    ]) as any;
    t.version = 3;
    t.steps[0].index = 7;
    const r = verifyOutsideStructure(t);
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => [p.stepIndex, p.path])).toEqual([
      [null, "version"],
      [0, "steps[0].index"],
      [0, "steps[0].hash"],
      [1, "steps[1].payload.usage"],
      [1, "steps[1].payload.usage.input_tokens"],
      [2, "steps[2].payload.toolCallId"],
      [2, "steps[2].payload.toolInput.key"],
    ]);
    // a newer version is not broken: verify says what `show` and `diff` say (another release reads it)
    expect(r.problems[0]!.message).toBe(
      "version is 3; this Blackbox reads only version 2. Use the Blackbox release that wrote it, or re-record the run.",
    );
  });

  it("schema problems come with paths", () => {
    const t = traceOf([["tool_result", { toolCallId: "call-0", toolName: "t" }]]);
    expect(verifyOutsideStructure(t).problems).toEqual([
      {
        stepIndex: 0,
        path: "steps[0].payload",
        message: "expected a `result` (any JSON value) or an `error` (a string)",
      },
    ]);
    expect(verifyOutsideStructure("nope").problems[0]!.message).toMatch(/^a cassette must be a JSON object/);
    expect(paths({ id: "x", createdAt: 0, steps: [] })).toEqual(["version"]);
  });

  describe("provider neutrality: structure", () => {
    it("flags provider ids in ids, types and metadata", () => {
      const t = traceOf(
        [
          [
            "model_output",
            { type: "tool_calls", calls: [{ toolCallId: "call_a8B3kd02Lm3", toolName: "t", toolInput: {} }] },
          ],
          ["metadata", { event: "marker", requestId: "msg_01XFDUDYJgAACzvnptvVoYEL" }],
          ["metadata", { event: "marker", completion: "chatcmpl-9ab3kd02" }],
          ["metadata", { event: "marker", response: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b" }],
        ],
        "run",
      );
      const r = verifyOutsideStructure(t);
      expect(r.problems.map((p) => p.path)).toEqual([
        "steps[0].payload.calls[0].toolCallId",
        "steps[1].payload.requestId",
        "steps[2].payload.completion",
        "steps[3].payload.response",
      ]);
      expect(r.problems[0]!.message).toBe(
        'value contains a provider-native id ("call_a8B3kd02Lm3"); cassettes hold only Blackbox\'s call-N ids. Re-record the run with this Blackbox (it stores only neutral fields).',
      );
    });

    it("flags provider response keys anywhere in the structure", () => {
      const t = traceOf([
        ["model_output", { type: "final_answer", text: "x", stop_reason: "end_turn" }],
        ["model_output", { type: "final_answer", text: "x", finish_reason: "stop", system_fingerprint: "fp_1" }],
        ["metadata", { event: "marker", detail: { stop_sequence: null, logprobs: null } }],
      ]);
      expect(paths(t)).toEqual([
        "steps[0].payload.stop_reason",
        "steps[1].payload.finish_reason",
        "steps[1].payload.system_fingerprint",
        "steps[2].payload.detail.stop_sequence",
        "steps[2].payload.detail.logprobs",
      ]);
      expect(verifyOutsideStructure(t).problems[0]!.message).toMatch(
        /^provider response key "stop_reason" is not part of the cassette format\./,
      );
    });

    it("flags API keys and key variable names in the structure", () => {
      const t = traceOf([
        ["metadata", { event: "marker", headers: { "x-api-key": "k", authorization: "a" } }],
        ["metadata", { event: "marker", env: "OPENAI_API_KEY" }],
        ["metadata", { event: "marker", ANTHROPIC_API_KEY: "x" }],
        ["metadata", { event: "marker", note: ANT_KEY }],
      ]);
      const r = verifyOutsideStructure(t);
      expect(r.problems.map((p) => p.path)).toEqual([
        'steps[0].payload.headers["x-api-key"]',
        "steps[0].payload.headers.authorization",
        "steps[1].payload.env",
        "steps[2].payload.ANTHROPIC_API_KEY",
        "steps[3].payload.note",
      ]);
      expect(r.problems[3]!.message).toMatch(
        /^key "ANTHROPIC_API_KEY" is an API key name or auth header; .* rotate the key\.$/,
      );
      expect(r.problems[4]!.message).toMatch(
        /^value contains what looks like an API key or bearer token \(sk-ant-api\.\.\.\)\./,
      );
      expect(r.problems[4]!.message).not.toContain(ANT_KEY);
    });

    it("does not flag Blackbox's own ids or ordinary tool names", () => {
      const t = traceOf([
        ["model_output", { type: "tool_call", toolCallId: "call-0", toolName: "call_weather", toolInput: {} }],
        ["tool_call", { toolCallId: "call-0", toolName: "msg_send", toolInput: {} }],
        ["metadata", { event: "replayed", wireId: "bbx_call-0" }],
      ]);
      expect(verifyOutsideStructure(t)).toEqual({ ok: true, problems: [] });
    });
  });

  describe("provider neutrality: user data", () => {
    it("allows provider-looking ids and keys inside tool inputs, results, errors, schemas and text", () => {
      const t = traceOf([
        [
          "model_input",
          input({
            systemPrompt: "ids look like toolu_01A09q90qw90lq917835lq9; read OPENAI_API_KEY from env",
            tools: [
              {
                name: "read",
                description: "usage: read <file>",
                inputSchema: { properties: { usage: { type: "number" } } },
              },
            ],
            params: { logprobs: true, topLogprobs: 2, stopSequences: ["x"], top_logprobs: 2 },
            messages: [{ role: "user", content: [{ type: "text", text: "msg_01XFDUDYJgAACzvnptvVoYEL" }] }],
          }),
        ],
        ["tool_call", { toolCallId: "call-0", toolName: "read", toolInput: { id: "chatcmpl-9ab3kd02", usage: 1 } }],
        [
          "tool_result",
          {
            toolCallId: "call-0",
            toolName: "read",
            result: { usage: 42, finish_reason: "stop", code: "const id = 'call_abc123';" },
          },
        ],
        [
          "tool_result",
          { toolCallId: "call-1", toolName: "read", error: "resp_67ccd2bed1ec8190b14f964abc0542 not found" },
        ],
        ["model_output", { type: "final_answer", text: "use the x-api-key header" }],
        [
          "metadata",
          { event: "run_failed", status: "error", reason: "agent_error", message: "stop_reason was max_tokens" },
        ],
      ]);
      expect(verifyOutsideStructure(t)).toEqual({ ok: true, problems: [] });
    });

    it("flags realistic credentials in user data", () => {
      const t = traceOf([
        ["model_input", input({ systemPrompt: `key ${PROJ_KEY}` })],
        [
          "tool_call",
          {
            toolCallId: "call-0",
            toolName: "http",
            toolInput: { headers: { auth: "Bearer eyJhbGciOiJIUzI1NiJ9.abcdef" } },
          },
        ],
        ["tool_result", { toolCallId: "call-0", toolName: "http", result: ["ok", ANT_KEY] }],
        ["model_input", { messages: [{ role: "user", content: `here: sk-${"A1b2C3d4".repeat(6)}` }], tools: [] }],
        ["model_output", { type: "final_answer", text: `done ${ANT_KEY}` }],
      ]);
      expect(paths(t)).toEqual([
        "steps[0].payload.systemPrompt",
        "steps[1].payload.toolInput.headers.auth",
        "steps[2].payload.result[1]",
        "steps[3].payload.messages[0].content",
        "steps[4].payload.text",
      ]);
    });
  });
});

describe("findSecrets", () => {
  it("returns the JSON path of every string or key containing a literal secret", () => {
    const value = { steps: [{ payload: { a: "x-secret-123-y", b: ["no", "secret-123"] } }], "secret-123": 1 };
    expect(findSecrets(value, ["secret-123"])).toEqual([
      "steps[0].payload.a",
      "steps[0].payload.b[1]",
      '["secret-123"]',
    ]);
    expect(findSecrets(value, [""])).toEqual([]);
    expect(findSecrets(value, ["absent"])).toEqual([]);
  });
});
