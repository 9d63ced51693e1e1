import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiSSE,
  startFakeProvider,
  type FakeProvider,
} from "../helpers/fakeProvider.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());

const anthropic = () => new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.anthropicUrl, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: "sk-test", baseURL: fake.openaiUrl, maxRetries: 0 });

describe("fake provider", () => {
  it("answers the Anthropic SDK with a queued JSON reply and records the request", async () => {
    fake.enqueue({
      json: anthropicMessage({ text: "Hello", toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    });
    const before = fake.requests.length;
    const msg = await anthropic().messages.create({
      model: "claude-x",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(msg.id).toMatch(/^msg_/);
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content[1]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Lisbon" } });
    expect((msg.content[1] as { id: string }).id).toMatch(/^toolu_/);
    const req = fake.requests[before]!;
    expect(req).toMatchObject({ method: "POST", path: "/v1/messages", body: { model: "claude-x" } });
    expect(req.headers.authorization ?? req.headers["x-api-key"]).toMatch(/sk-ant-test/);
  });

  it("answers the OpenAI SDK with a queued JSON reply", async () => {
    fake.enqueue({
      json: openaiCompletion({
        toolCalls: [
          { name: "a", input: { q: 1 } },
          { name: "b", input: {} },
        ],
      }),
    });
    const r = await openai().chat.completions.create({ model: "gpt-x", messages: [{ role: "user", content: "hi" }] });
    expect(r.id).toMatch(/^chatcmpl-/);
    expect(r.choices[0]!.finish_reason).toBe("tool_calls");
    expect(r.choices[0]!.message.tool_calls?.map((t) => (t.type === "function" ? t.function.arguments : ""))).toEqual([
      '{"q":1}',
      "{}",
    ]);
    expect(fake.requests.at(-1)!.path).toBe("/v1/chat/completions");
  });

  it("streams an Anthropic reply in small chunks (split inside UTF-8 and JSON) that the SDK reassembles", async () => {
    fake.enqueue({
      sse: anthropicSSE({
        text: "Olá — ☀️ sunny",
        toolCalls: [{ name: "get_weather", input: { city: "Lisboa ção" } }],
      }),
      chunkSize: 3,
      delayMs: 0,
    });
    const stream = await anthropic().messages.create({
      model: "claude-x",
      max_tokens: 10,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    let json = "";
    let stop: string | null = null;
    for await (const e of stream) {
      if (e.type === "content_block_delta" && e.delta.type === "text_delta") text += e.delta.text;
      if (e.type === "content_block_delta" && e.delta.type === "input_json_delta") json += e.delta.partial_json;
      if (e.type === "message_delta") stop = e.delta.stop_reason;
    }
    expect(text).toBe("Olá — ☀️ sunny");
    expect(JSON.parse(json)).toEqual({ city: "Lisboa ção" });
    expect(stop).toBe("tool_use");
  });

  it("streams an Anthropic reply that messages.stream() turns into the final message", async () => {
    fake.enqueue({ sse: anthropicSSE({ text: "Hi there" }), chunkSize: 5 });
    const final = await anthropic()
      .messages.stream({ model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    expect(final.content).toMatchObject([{ type: "text", text: "Hi there" }]);
    expect(final.stop_reason).toBe("end_turn");
  });

  it("streams an OpenAI reply with tool calls and a final usage chunk", async () => {
    fake.enqueue({
      sse: openaiSSE({ text: "Über ✓", toolCalls: [{ name: "get_weather", input: { city: "Zürich" } }] }),
      chunkSize: 4,
      delayMs: 1,
    });
    const stream = await openai().chat.completions.create({
      model: "gpt-x",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    let args = "";
    let finish: string | null = null;
    for await (const c of stream) {
      const ch = c.choices[0];
      if (!ch) continue;
      text += ch.delta.content ?? "";
      args += ch.delta.tool_calls?.[0]?.function?.arguments ?? "";
      finish = ch.finish_reason ?? finish;
    }
    expect(text).toBe("Über ✓");
    expect(JSON.parse(args)).toEqual({ city: "Zürich" });
    expect(finish).toBe("tool_calls");
  });

  it("an OpenAI streamed refusal reaches the SDK's stream helper", async () => {
    fake.enqueue({ sse: openaiSSE({ refusal: "I can't help with that." }) });
    const done = await openai()
      .chat.completions.stream({ model: "gpt-x", messages: [{ role: "user", content: "hi" }] })
      .finalChatCompletion();
    expect(done.choices[0]!.message.refusal).toBe("I can't help with that.");
  });

  it("answers an unqueued request with a 500 that says to enqueue a reply", async () => {
    expect(fake.pending).toBe(0);
    await expect(
      anthropic().messages.create({ model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toThrow(/no reply queued for POST \/v1\/messages; call enqueue\(\) before the request/);
  });
});
