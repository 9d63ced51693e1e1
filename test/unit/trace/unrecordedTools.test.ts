import { expect, test } from "vitest";
import { TraceBuilder } from "../../../src/trace/builder.js";
import type { JsonValue } from "../../../src/trace/types.js";
import { unrecordedTools, unrecordedToolsNote } from "../../../src/trace/unrecordedTools.js";

const user = { role: "user", content: "go" };
const asked = (...calls: [string, string][]) => ({
  type: "tool_calls",
  calls: calls.map(([id, name]) => ({ toolCallId: id, toolName: name, toolInput: {} })),
});
const answered = (...ids: string[]) => ({
  role: "user",
  content: ids.map((id) => ({ type: "tool_result", toolCallId: id, toolName: "x", result: "ok" })),
});
const turn = (...ids: string[]) => ({
  role: "assistant",
  content: ids.map((id) => ({ type: "tool_use", toolCallId: id, toolName: "x", toolInput: {} })),
});

function trace(steps: [string, unknown][]) {
  const b = new TraceBuilder({ id: "t", createdAt: 0 });
  for (const [type, payload] of steps) b.append(type as never, payload as JsonValue, 0);
  return b.trace;
}

test("a call the model asked for, answered in the next request with no tool step, counts; a recorded one does not", () => {
  const t = trace([
    ["model_input", { messages: [user], tools: [] }],
    ["model_output", asked(["call-0", "get_weather"], ["call-1", "book"], ["call-2", "get_weather"])],
    ["tool_call", { toolCallId: "call-1", toolName: "book", toolInput: {} }],
    ["tool_result", { toolCallId: "call-1", toolName: "book", result: "ok" }],
    [
      "model_input",
      { messages: [user, turn("call-0", "call-1", "call-2"), answered("call-0", "call-1", "call-2")], tools: [] },
    ],
    ["model_output", asked(["call-3", "get_weather"])],
    [
      "model_input",
      {
        messages: [
          user,
          turn("call-0", "call-1", "call-2"),
          answered("call-0", "call-1", "call-2"),
          turn("call-3"),
          answered("call-3"),
        ],
        tools: [],
      },
    ],
    // asked for at the end and never answered: the agent may have stopped, nothing shows it ran
    ["model_output", asked(["call-4", "cleanup"])],
    ["metadata", { event: "run_completed", status: "success", result: null }],
  ]);
  const u = unrecordedTools(t);
  expect(u).toEqual({ calls: 3, tools: [{ name: "get_weather", count: 3 }] });
  expect(unrecordedToolsNote(u)).toContain('"get_weather" (3 calls)');
  expect(unrecordedTools(t.steps)).toEqual(u);
});

test("a run whose tools are all recorded, or that asked for none, has none unrecorded", () => {
  const t = trace([
    ["model_input", { messages: [user], tools: [] }],
    ["model_output", asked(["call-0", "lookup"])],
    ["tool_call", { toolCallId: "call-0", toolName: "lookup", toolInput: {} }],
    ["tool_result", { toolCallId: "call-0", toolName: "lookup", result: "ok" }],
    ["model_input", { messages: [user, turn("call-0"), answered("call-0")], tools: [] }],
    ["model_output", { type: "final_answer", text: "done" }],
  ]);
  expect(unrecordedTools(t)).toEqual({ calls: 0, tools: [] });
});

test("the OpenAI Agents SDK's handoffs (transfer_to_<agent>, declared as a handoff) are the SDK's own, not unseen tools", () => {
  const tools = [
    {
      name: "transfer_to_Forecaster",
      description: "Handoff to the Forecaster agent to handle the request. ",
      inputSchema: {},
    },
    { name: "transfer_to_bank", description: "Moves money to the bank", inputSchema: {} },
  ];
  const t = trace([
    ["model_input", { messages: [user], tools }],
    ["model_output", asked(["call-0", "transfer_to_Forecaster"], ["call-1", "transfer_to_bank"])],
    ["model_input", { messages: [user, turn("call-0", "call-1"), answered("call-0", "call-1")], tools }],
    ["model_output", { type: "final_answer", text: "done" }],
    ["metadata", { event: "run_completed", status: "success", result: null }],
  ]);
  // a tool of the agent's that only looks like a handoff by name still counts
  expect(unrecordedTools(t)).toEqual({ calls: 1, tools: [{ name: "transfer_to_bank", count: 1 }] });
});
