import { describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/loop.js";
import { ScriptedModelClient } from "../../../src/agent/modelClient.js";
import { DEMO_TASK, runDemoAgent } from "../../../src/agent/demo.js";
import { verifyTrace } from "../../../src/trace/verify.js";
import type { ModelInput, ToolDefinition } from "../../../src/trace/types.js";

const clock = (start = 1_000) => {
  let t = start;
  return () => t++;
};
const defs: ToolDefinition[] = [{ name: "add", inputSchema: { type: "object" } }];
const add = (input: unknown) => {
  const { a, b } = input as { a: number; b: number };
  return a + b;
};

describe("built-in agent loop", () => {
  it("records the demo run: model turns, tool rounds with shared call ids, success last", async () => {
    const trace = await runDemoAgent({ traceId: "demo", now: clock() });
    expect(trace.steps.map((s) => s.type)).toEqual([
      "model_input",
      "model_output",
      "tool_call",
      "tool_result",
      "model_input",
      "model_output",
      "tool_call",
      "tool_result",
      "model_input",
      "model_output",
      "metadata",
    ]);
    expect(verifyTrace(trace)).toEqual({ ok: true, problems: [] });
    const first = trace.steps[0]!.payload as unknown as ModelInput;
    expect(first.messages).toEqual([{ role: "user", content: DEMO_TASK }]);
    expect(trace.steps[1]!.payload).toEqual({
      type: "tool_call",
      toolCallId: "call-0",
      toolName: "get_weather",
      toolInput: { city: "Lisbon" },
    });
    expect(trace.steps[2]!.payload).toEqual({
      toolCallId: "call-0",
      toolName: "get_weather",
      toolInput: { city: "Lisbon" },
    });
    expect(trace.steps[3]!.payload).toEqual({
      toolCallId: "call-0",
      toolName: "get_weather",
      result: { city: "Lisbon", forecast: "sunny", tempC: 24 },
    });
    const second = trace.steps[4]!.payload as unknown as ModelInput;
    expect(second.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [{ type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolCallId: "call-0",
            toolName: "get_weather",
            result: { city: "Lisbon", forecast: "sunny", tempC: 24 },
          },
        ],
      },
    ]);
    expect((trace.steps[5]!.payload as { toolCallId: string }).toolCallId).toBe("call-1");
    const end = trace.steps[10]!.payload as { event: string; status: string; result: string };
    expect(end).toMatchObject({ event: "run_completed", status: "success" });
    expect(end.result).toContain("stay outdoors");
    expect(trace.steps.map((s) => s.timestamp)).toEqual([
      1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011,
    ]);
  });

  it("records a tool that throws as the error variant, and the model sees the error", async () => {
    const trace = await runAgent({
      traceId: "t",
      task: "boom",
      toolDefinitions: defs,
      tools: {
        add: () => {
          throw new Error("disk on fire");
        },
      },
      client: new ScriptedModelClient([
        { type: "tool_call", toolCallId: "", toolName: "add", toolInput: { a: 1, b: 2 } },
        { type: "final_answer", text: "gave up" },
      ]),
      now: clock(),
    });
    expect(trace.steps[3]!.payload).toEqual({ toolCallId: "call-0", toolName: "add", error: "disk on fire" });
    const next = trace.steps[4]!.payload as unknown as ModelInput;
    expect(next.messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", toolCallId: "call-0", toolName: "add", error: "disk on fire" }],
    });
  });

  it("ends with max_steps_exceeded after maxSteps model turns", async () => {
    const call = { type: "tool_call" as const, toolCallId: "", toolName: "add", toolInput: { a: 1, b: 1 } };
    const trace = await runAgent({
      traceId: "t",
      task: "loop",
      toolDefinitions: defs,
      tools: { add },
      client: new ScriptedModelClient([call, call, call]),
      now: clock(),
      maxSteps: 2,
    });
    expect(trace.steps.filter((s) => s.type === "model_output")).toHaveLength(2);
    expect(trace.steps.at(-1)!.payload).toEqual({
      event: "run_failed",
      status: "error",
      reason: "max_steps_exceeded",
      maxSteps: 2,
    });
  });

  it("ends with unknown_tool when the model asks for a tool it was not given, without running anything", async () => {
    const trace = await runAgent({
      traceId: "t",
      task: "x",
      toolDefinitions: defs,
      tools: { add },
      client: new ScriptedModelClient([{ type: "tool_call", toolCallId: "", toolName: "rm_rf", toolInput: {} }]),
      now: clock(),
    });
    expect(trace.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
    expect(trace.steps[2]!.payload).toEqual({
      event: "run_failed",
      status: "error",
      reason: "unknown_tool",
      toolName: "rm_rf",
    });
  });

  it("hands out call ids from a seeded counter, whatever id the model sent", async () => {
    const trace = await runAgent({
      traceId: "t",
      task: "x",
      toolDefinitions: defs,
      tools: { add },
      firstCallIndex: 7,
      client: new ScriptedModelClient([
        { type: "tool_call", toolCallId: "toolu_abc", toolName: "add", toolInput: { a: 1, b: 2 } },
        { type: "final_answer", text: "3" },
      ]),
      now: clock(),
    });
    expect(trace.steps[1]!.payload).toMatchObject({ toolCallId: "call-7" });
    expect(trace.steps[3]!.payload).toEqual({ toolCallId: "call-7", toolName: "add", result: 3 });
  });

  it("records a parallel turn as tool_calls, then one assistant turn and one user turn in call order", async () => {
    const trace = await runAgent({
      traceId: "t",
      task: "x",
      toolDefinitions: defs,
      tools: { add },
      now: clock(),
      client: new ScriptedModelClient([
        {
          type: "tool_calls",
          text: "two sums",
          calls: [
            { toolCallId: "", toolName: "add", toolInput: { a: 1, b: 2 } },
            { toolCallId: "", toolName: "add", toolInput: { a: 3, b: 4 } },
          ],
        },
        { type: "final_answer", text: "3 and 7" },
      ]),
    });
    expect(trace.steps.map((s) => s.type).slice(1, 7)).toEqual([
      "model_output",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "model_input",
    ]);
    const input = trace.steps[6]!.payload as unknown as ModelInput;
    expect(input.messages[1]!.content).toEqual([
      { type: "text", text: "two sums" },
      { type: "tool_use", toolCallId: "call-0", toolName: "add", toolInput: { a: 1, b: 2 } },
      { type: "tool_use", toolCallId: "call-1", toolName: "add", toolInput: { a: 3, b: 4 } },
    ]);
    expect(input.messages[2]!.content).toEqual([
      { type: "tool_result", toolCallId: "call-0", toolName: "add", result: 3 },
      { type: "tool_result", toolCallId: "call-1", toolName: "add", result: 7 },
    ]);
  });

  it("refuses a scripted model that runs out of answers, saying how to fix the script", async () => {
    await expect(
      runAgent({
        traceId: "t",
        task: "x",
        toolDefinitions: defs,
        tools: { add },
        now: clock(),
        client: new ScriptedModelClient([
          { type: "tool_call", toolCallId: "", toolName: "add", toolInput: { a: 1, b: 1 } },
        ]),
      }),
    ).rejects.toThrow(/no answer for turn 2: its script holds 1 output\(s\)\. Add more outputs/);
  });
});
