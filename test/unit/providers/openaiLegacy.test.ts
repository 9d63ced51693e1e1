/**
 * OpenAI message names (recorded in the neutral message, compared) and the deprecated
 * functions / function_call (mapped to tools and a tool call, given back as function_call).
 */
import { describe, expect, it } from "vitest";
import { openaiProvider as o } from "../../../src/providers/openai/index.js";
import { compareModelInput } from "../../../src/providers/shared/compare.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";

describe("openai message names", () => {
  const body = (name: string) => ({
    model: "m",
    messages: [
      { role: "user", name: "ana", content: "hi" },
      { role: "assistant", name, content: "hello" },
    ],
  });
  it("records a user's and an assistant's name, and strict replay compares it", () => {
    const a = o.parseRequest(body("model"), new ToolCallIds()).input;
    expect(a.messages).toEqual([
      { role: "user", name: "ana", content: "hi" },
      { role: "assistant", name: "model", content: "hello" },
    ]);
    const b = o.parseRequest(body("critic"), new ToolCallIds()).input;
    expect(compareModelInput(a, b)).toEqual({ path: "messages[1].name", recorded: "model", actual: "critic" });
    expect(compareModelInput(a, o.parseRequest(body("model"), new ToolCallIds()).input)).toBeUndefined();
  });
  it("refuses a name that is not a string", () => {
    expect(() => o.parseRequest({ messages: [{ role: "user", name: 3, content: "x" }] }, new ToolCallIds())).toThrow(
      /messages\[0\]\.name must be a string/,
    );
  });
});

describe("openai deprecated functions", () => {
  const fn = { name: "get_weather", description: "Weather", parameters: { type: "object" } };
  const asTools = {
    model: "m",
    messages: [{ role: "user", content: "Lisbon?" }],
    tools: [{ type: "function", function: fn }],
    tool_choice: { type: "function", function: { name: "get_weather" } },
  };
  const asFunctions = {
    model: "m",
    messages: [{ role: "user", content: "Lisbon?" }],
    functions: [fn],
    function_call: { name: "get_weather" },
  };
  it("functions and function_call are the tools and tool_choice they stand for", () => {
    const f = o.parseRequest(asFunctions, new ToolCallIds());
    expect(f.input).toEqual(o.parseRequest(asTools, new ToolCallIds()).input);
    expect(f.functionCall).toBe(true);
  });
  it("a reply's function_call is a tool call, and the next request's function message answers the same call-N", () => {
    const ids = new ToolCallIds();
    o.parseRequest(asFunctions, ids);
    const reply = {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "m",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            function_call: { name: "get_weather", arguments: '{"city":"Lisbon"}' },
          },
          finish_reason: "function_call",
          logprobs: null,
        },
      ],
    };
    const out = o.parseResponse(reply, ids);
    expect(out).toEqual({
      type: "tool_calls",
      calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
    });
    const next = o.parseRequest(
      {
        ...asFunctions,
        messages: [
          ...asFunctions.messages,
          reply.choices[0]!.message,
          { role: "function", name: "get_weather", content: "sunny" },
        ],
      },
      ids,
    );
    expect(next.input.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [{ type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: "sunny" }],
      },
    ]);
  });
  it("a replayed reply to a functions request is a function_call, streamed or not", () => {
    const ids = new ToolCallIds();
    const req = o.parseRequest(asFunctions, ids);
    const output = {
      type: "tool_calls" as const,
      calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
    };
    const body = o.buildResponse(output, req, ids, 0) as {
      choices: { message: Record<string, unknown>; finish_reason: string }[];
    };
    expect(body.choices[0]!.message.function_call).toEqual({ name: "get_weather", arguments: '{"city":"Lisbon"}' });
    expect(body.choices[0]!.message.tool_calls).toBeUndefined();
    expect(body.choices[0]!.finish_reason).toBe("function_call");
    const sse = o.stream.synthesize(output, req, ids, 0);
    const asm = o.stream.createAssembler(new ToolCallIds());
    asm.push(typeof sse === "string" ? new TextEncoder().encode(sse) : sse);
    expect(asm.finish()).toEqual({ ...output, calls: [{ ...output.calls[0]!, toolCallId: "call-0" }] });
    // a recording of several calls cannot go back as one function_call
    const two = {
      type: "tool_calls" as const,
      calls: [output.calls[0]!, { ...output.calls[0]!, toolCallId: "call-1" }],
    };
    expect(() => o.buildResponse(two, req, ids, 1)).toThrow(
      /holds 2 tool calls, but this request declares the deprecated "functions"/,
    );
  });
});
