/**
 * The real SDKs parse every response the providers build, and a Blackbox error body
 * becomes the SDK's BadRequestError that isBlackboxError() recognises, never retried.
 * The session must send errorBody() with status 400 and header `x-should-retry: false`.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { anthropicProvider, openaiProvider } from "../../src/providers/index.js";
import { ToolCallIds } from "../../src/providers/shared/ids.js";
import type { ProviderAdapter, ParsedModelRequest } from "../../src/providers/types.js";
import type { JsonValue, ModelOutput } from "../../src/trace/types.js";
import { isBlackboxError } from "../../src/errors.js";

/** A fetch that parses the SDK's request with the adapter and answers with the built response. */
function answering(adapter: ProviderAdapter, ids: ToolCallIds, outputs: ModelOutput[]) {
  const seen: ParsedModelRequest[] = [];
  let seq = 0;
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = adapter.parseRequest(JSON.parse(String(init?.body)), ids);
    seen.push(req);
    const body = adapter.buildResponse(outputs[seq]!, req, ids, seq++);
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  };
  return { fetch, seen };
}

function failing(body: JsonValue) {
  let calls = 0;
  const fetch = async (): Promise<Response> => {
    calls++;
    return new Response(JSON.stringify(body), {
      status: 400,
      headers: { "content-type": "application/json", "x-should-retry": "false" },
    });
  };
  return { fetch, calls: () => calls };
}

const weatherTool = {
  name: "get_weather",
  description: "Weather",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
};

describe("Anthropic SDK parses built responses", () => {
  it("text, tool calls (parallel), length and refusal, and bbx ids map back to the same call-N", async () => {
    const ids = new ToolCallIds();
    const { fetch, seen } = answering(anthropicProvider, ids, [
      {
        type: "tool_calls",
        text: "Checking both.",
        calls: [
          { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
          { toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Porto" } },
        ],
      },
      { type: "final_answer", text: "Sunny in both." },
      { type: "final_answer", text: "Sunny in b", stop: "length" },
      { type: "final_answer", text: "", stop: "refusal" },
      { type: "tool_call", toolCallId: "call-2", toolName: "get_weather", toolInput: { city: "Faro" } },
    ]);
    const client = new Anthropic({ apiKey: "sk-ant-placeholder", fetch, maxRetries: 0 });
    const base = { model: "claude-x", max_tokens: 100, tools: [weatherTool] };
    const first = await client.messages.create({ ...base, messages: [{ role: "user", content: "Weather?" }] });
    expect(first.stop_reason).toBe("tool_use");
    expect(first.id).toBe("bbx_msg-0");
    expect(first.usage.input_tokens).toBe(0);
    expect(first.content).toMatchObject([
      { type: "text", text: "Checking both." },
      { type: "tool_use", id: "bbx_call-0", name: "get_weather", input: { city: "Lisbon" } },
      { type: "tool_use", id: "bbx_call-1", name: "get_weather", input: { city: "Porto" } },
    ]);
    const uses = first.content.filter((b) => b.type === "tool_use");
    const second = await client.messages.create({
      ...base,
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: uses.map((u) => ({ type: "tool_result" as const, tool_use_id: u.id, content: "sunny" })),
        },
      ],
    });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content).toMatchObject([{ type: "text", text: "Sunny in both." }]);
    expect(seen[1]!.input.messages[1]!.content).toMatchObject([
      { type: "text" },
      { toolCallId: "call-0" },
      { toolCallId: "call-1" },
    ]);
    expect(seen[1]!.input.messages[2]!.content).toMatchObject([{ toolCallId: "call-0" }, { toolCallId: "call-1" }]);
    const third = await client.messages.create({ ...base, messages: [{ role: "user", content: "x" }] });
    expect(third.stop_reason).toBe("max_tokens");
    const fourth = await client.messages.create({ ...base, messages: [{ role: "user", content: "x" }] });
    expect(fourth.stop_reason).toBe("refusal");
    const fifth = await client.messages.create({ ...base, messages: [{ role: "user", content: "x" }] });
    expect(fifth.content).toMatchObject([{ type: "tool_use", id: "bbx_call-2", input: { city: "Faro" } }]);
  });

  it("an errorBody 400 becomes a BadRequestError that isBlackboxError recognises, sent once", async () => {
    const f = failing(anthropicProvider.errorBody("[blackbox] replay diverged at messages[0].content; re-record"));
    const client = new Anthropic({ apiKey: "k", fetch: f.fetch });
    const err = await client.messages
      .create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((err as Error).message)).toContain("[blackbox] replay diverged");
    expect(isBlackboxError(err)).toBe(true);
    expect(f.calls()).toBe(1);
  });

  it("an ordinary provider 400 is not a Blackbox error", async () => {
    const f = failing({ type: "error", error: { type: "invalid_request_error", message: "bad" } });
    const client = new Anthropic({ apiKey: "k", fetch: f.fetch });
    const err = await client.messages
      .create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(isBlackboxError(err)).toBe(false);
  });
});

describe("OpenAI SDK parses built responses", () => {
  it("text, parallel tool calls, length, refusal; bbx ids map back", async () => {
    const ids = new ToolCallIds();
    const { fetch, seen } = answering(openaiProvider, ids, [
      {
        type: "tool_calls",
        calls: [
          { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
          { toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Porto" } },
        ],
      },
      { type: "final_answer", text: "Sunny." },
      { type: "final_answer", text: "Sun", stop: "length" },
      { type: "final_answer", text: "I can't help with that.", stop: "refusal" },
    ]);
    const client = new OpenAI({ apiKey: "sk-placeholder", fetch, maxRetries: 0 });
    const first = await client.chat.completions.create({
      model: "gpt-x",
      messages: [{ role: "user", content: "Weather?" }],
    });
    expect(first.object).toBe("chat.completion");
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const calls = first.choices[0]!.message.tool_calls!;
    expect(calls.map((c) => c.id)).toEqual(["bbx_call-0", "bbx_call-1"]);
    expect(calls.map((c) => (c.type === "function" ? JSON.parse(c.function.arguments) : null))).toEqual([
      { city: "Lisbon" },
      { city: "Porto" },
    ]);
    const second = await client.chat.completions.create({
      model: "gpt-x",
      messages: [
        { role: "user", content: "Weather?" },
        first.choices[0]!.message,
        ...calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: "sunny" })),
      ],
    });
    expect(second.choices[0]!.message.content).toBe("Sunny.");
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(seen[1]!.input.messages[2]!.content).toMatchObject([{ toolCallId: "call-0" }, { toolCallId: "call-1" }]);
    const third = await client.chat.completions.create({ model: "gpt-x", messages: [{ role: "user", content: "x" }] });
    expect(third.choices[0]!.finish_reason).toBe("length");
    expect(third.choices[0]!.message.content).toBe("Sun");
    const fourth = await client.chat.completions.create({ model: "gpt-x", messages: [{ role: "user", content: "x" }] });
    expect(fourth.choices[0]!.message.refusal).toBe("I can't help with that.");
    expect(fourth.choices[0]!.message.content).toBeNull();
  });

  it("an errorBody 400 becomes a BadRequestError that isBlackboxError recognises, sent once", async () => {
    const f = failing(openaiProvider.errorBody("[blackbox] refused: re-record"));
    const client = new OpenAI({ apiKey: "k", fetch: f.fetch });
    const err = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((err as Error).message)).toContain("[blackbox] refused");
    expect(isBlackboxError(err)).toBe(true);
    expect(f.calls()).toBe(1);
  });

  it("an ordinary provider 400 is not a Blackbox error", async () => {
    const f = failing({ error: { type: "invalid_request_error", message: "bad", code: null, param: null } });
    const client = new OpenAI({ apiKey: "k", fetch: f.fetch });
    const err = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(isBlackboxError(err)).toBe(false);
  });
});
