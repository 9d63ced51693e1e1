import { describe, expect, it } from "vitest";
import { divergenceJson, runSummary } from "../../../src/cli/summary.js";
import type { Trace, TraceStep } from "../../../src/trace/types.js";

const step = (index: number, type: TraceStep["type"], payload: unknown): TraceStep =>
  ({ index, type, timestamp: index, payload, prevHash: "", hash: "" }) as unknown as TraceStep;

const calls = (...c: Array<[string, string]>) => ({
  type: "tool_calls",
  calls: c.map(([toolCallId, toolName]) => ({ toolCallId, toolName, toolInput: {} })),
});

const results = (...ids: string[]) => ({
  role: "user",
  content: ids.map((toolCallId) => ({ type: "tool_result", toolCallId, toolName: "x", result: "ok" })),
});

describe("runSummary", () => {
  it("counts calls and tools; a tool the model asked for with no tool step, before the next call, is unrecorded", () => {
    const trace = {
      id: "t",
      steps: [
        step(0, "model_input", { messages: [{ role: "user", content: "mail <EMAIL_1> and <EMAIL_2>, <EMAIL_1>" }] }),
        step(1, "model_output", calls(["a", "get_weather"], ["b", "clock"])),
        step(2, "tool_call", { toolCallId: "a", toolName: "get_weather", toolInput: {} }),
        step(3, "tool_result", { toolCallId: "a", toolName: "get_weather", result: 1 }),
        // the agent sent both results back: clock's ran where Blackbox did not see it
        step(4, "model_input", { messages: [{ role: "assistant", content: [] }, results("a", "b")] }),
        step(5, "model_output", calls(["c", "clock"])),
        step(6, "model_input", { messages: [{ role: "assistant", content: [] }, results("c")] }),
        // the run ended here: these calls never ran, recorded or not
        step(7, "model_output", calls(["d", "book"])),
      ],
    } as unknown as Trace;
    expect(runSummary(trace)).toEqual({
      id: "t",
      steps: 8,
      modelCalls: 3,
      toolCalls: 1,
      tools: [{ name: "get_weather", calls: 1 }],
      unrecordedTools: [{ name: "clock", calls: 2 }],
      redactions: { EMAIL: 2 },
      outcome: { status: "none" },
    });
  });

  it("a divergence: absent values are null, an empty path is null", () => {
    expect(divergenceJson({ stepIndex: 2, path: "", recorded: undefined, actual: 3, message: "m" })).toEqual({
      step: 2,
      path: null,
      expected: null,
      actual: 3,
      message: "m",
    });
  });
});
