import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { openaiProvider } from "../../../src/providers/openai/index.js";
import { createAssembler, synthesize } from "../../../src/providers/openai/stream.js";
import { providers } from "../../../src/providers/index.js";
import type { ModelOutput } from "../../../src/trace/types.js";
import { MULTIBYTE, chunkings, encode, openaiReply, openaiSse } from "./streamFixtures.js";

function assemble(chunks: Uint8Array[]): ModelOutput {
  const a = createAssembler(new ToolCallIds());
  for (const c of chunks) a.push(c);
  return a.finish();
}

const weather = {
  id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
  name: "get_weather",
  arguments: '{"city":"São Paulo","unit":"°C"}',
};
const cases = {
  text: openaiReply({ content: MULTIBYTE }, "stop"),
  "one tool call": openaiReply({ calls: [weather] }, "tool_calls"),
  "parallel tool calls": openaiReply(
    { calls: [weather, { id: "call_2", name: "get_time", arguments: "{}" }] },
    "tool_calls",
  ),
  "text beside a tool call": openaiReply({ content: "Checking…", calls: [weather] }, "tool_calls"),
  "length stop": openaiReply({ content: "The answer is long and was cut" }, "length"),
  refusal: openaiReply({ refusal: "I'm sorry, I can't help with that 🙏" }, "stop"),
  "usage chunk (stream_options.include_usage)": openaiReply({ content: "hi" }, "stop", { usageChunk: true }),
};

describe("OpenAI stream assembler", () => {
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: every chunking gives the non-streamed output`, () => {
      const expected = openaiProvider.parseResponse(c.body, new ToolCallIds());
      for (const [how, chunks] of chunkings(c.sse)) {
        expect(assemble(chunks), how).toEqual(expected);
      }
    });
  }

  it("assembles tool arguments from deltas, call-N in order, refusal and length stops", () => {
    expect(assemble([encode(cases["parallel tool calls"].sse)])).toEqual({
      type: "tool_calls",
      calls: [
        { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "São Paulo", unit: "°C" } },
        { toolCallId: "call-1", toolName: "get_time", toolInput: {} },
      ],
    });
    expect(assemble([encode(cases.refusal.sse)])).toEqual({
      type: "final_answer",
      text: "I'm sorry, I can't help with that 🙏",
      stop: "refusal",
    });
    expect(assemble([encode(cases["length stop"].sse)])).toEqual({
      type: "final_answer",
      text: "The answer is long and was cut",
      stop: "length",
    });
  });

  it("refuses a stream that broke before finish_reason or before [DONE], saying so", () => {
    const sse = cases["one tool call"].sse;
    const beforeFinish = sse.slice(0, sse.indexOf('"finish_reason":"tool_calls"'));
    const cut = beforeFinish.slice(0, beforeFinish.lastIndexOf("data: "));
    expect(() => assemble([encode(cut)])).toThrow(
      /OpenAI stream broke: it ended before a finish_reason.*Retry the call/,
    );
    expect(() => assemble([encode(sse.replace("data: [DONE]\n\n", ""))])).toThrow(/ended before data: \[DONE\]/);
    expect(() => assemble([])).toThrow(/ended before any choice/);
  });

  it("refuses a stream carrying a provider error, naming it", () => {
    const head = cases.text.sse.split("\n\n").slice(0, 2).join("\n\n") + "\n\n";
    const err = openaiSse([
      { error: { message: "The server had an error while processing your request.", type: "server_error" } },
    ]);
    expect(() => assemble([encode(head + err)])).toThrow(
      /could not be recorded: it contained an error from the provider \(server_error: The server had an error/,
    );
  });

  it("refuses what the non-streamed parse refuses (several choices)", () => {
    const both = openaiSse([
      {
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: "m",
        choices: [{ index: 0, delta: { content: "a" }, finish_reason: "stop" }],
      },
      {
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: "m",
        choices: [{ index: 1, delta: { content: "b" }, finish_reason: "stop" }],
      },
      "[DONE]",
    ]);
    expect(() => assemble([encode(both)])).toThrow(/has 2 choices; Blackbox records exactly one choice/);
  });

  it("is reachable through its provider definition", () => {
    const a = providers.openai.stream.createAssembler(new ToolCallIds());
    a.push(encode(cases.text.sse));
    expect(a.finish()).toEqual({ type: "final_answer", text: MULTIBYTE });
  });
});

// ---------------------------------------------------------------------------
// Synthesized streams through the real SDK

const request = openaiProvider.parseRequest(
  { model: "gpt-4o", stream: true, messages: [{ role: "user", content: "Weather in Lisbon?" }] },
  new ToolCallIds(),
);

function clientServing(text: string): OpenAI {
  return new OpenAI({
    apiKey: "sk-test-unused",
    maxRetries: 0,
    fetch: async () => new Response(text, { headers: { "content-type": "text/event-stream" } }),
  });
}

const outputs: Record<string, ModelOutput> = {
  text: { type: "final_answer", text: MULTIBYTE },
  "text and tool calls": {
    type: "tool_calls",
    text: "Checking both.",
    calls: [
      { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon", days: [1, 2] } },
      { toolCallId: "call-1", toolName: "get_time", toolInput: {} },
    ],
  },
  "single tool_call (built-in loop)": {
    type: "tool_call",
    toolCallId: "call-3",
    toolName: "book",
    toolInput: { hotel: "Ritz" },
  },
  length: { type: "final_answer", text: "cut", stop: "length" },
  refusal: { type: "final_answer", text: "I can't help with that.", stop: "refusal" },
  "empty text": { type: "final_answer", text: "" },
};

const params = { model: "gpt-4o", messages: [{ role: "user" as const, content: "x" }] };

describe("OpenAI synthesized stream, parsed by the real SDK", () => {
  for (const [name, output] of Object.entries(outputs)) {
    it(`${name}: chat.completions.create({stream:true}) and .stream() rebuild the reply`, async () => {
      const ids = new ToolCallIds();
      const sse = synthesize(output, request, ids, 2);
      const plain = openaiProvider.buildResponse(output, request, new ToolCallIds(), 2) as any;

      let content = "";
      let finish: string | null = null;
      const stream = await clientServing(sse).chat.completions.create({ ...params, stream: true });
      for await (const chunk of stream) {
        content += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(content).toBe(plain.choices[0].message.content ?? "");
      expect(finish).toBe(plain.choices[0].finish_reason);

      const final = await clientServing(sse).chat.completions.stream(params).finalChatCompletion();
      const msg = final.choices[0]!.message;
      expect(final.id).toBe("bbx-completion-2");
      expect(final.choices[0]!.finish_reason).toBe(plain.choices[0].finish_reason);
      // The SDK's stream helper leaves content null for an empty reply, as with a real provider stream.
      expect(msg.content || null).toEqual(plain.choices[0].message.content || null);
      expect(msg.refusal ?? null).toEqual(plain.choices[0].message.refusal);
      expect(
        (msg.tool_calls ?? []).map((t: any) => ({
          id: t.id,
          type: t.type,
          function: { name: t.function.name, arguments: t.function.arguments },
        })),
      ).toEqual(plain.choices[0].message.tool_calls ?? []);
      for (const t of msg.tool_calls ?? []) expect(ids.callIdFor(t.id)).toBe(t.id.replace(/^bbx_/, ""));
      // The synthesized stream assembles back to the output it came from.
      expect(assemble([encode(sse)])).toEqual(openaiProvider.parseResponse(plain, new ToolCallIds()));
    });
  }
});

describe("OpenAI synthesized stream with stream_options.include_usage", () => {
  const withUsage = openaiProvider.parseRequest(
    {
      model: "gpt-4o",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "Weather in Lisbon?" }],
    },
    new ToolCallIds(),
  );
  const output: ModelOutput = {
    type: "tool_calls",
    text: "Checking.",
    calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
  };
  const usageParams = { ...params, stream_options: { include_usage: true } };

  it("the request keeps include_usage (and only when it is true)", () => {
    expect(withUsage.streamUsage).toBe(true);
    expect(request.streamUsage).toBeUndefined();
    const off = openaiProvider.parseRequest(
      { ...params, stream: true, stream_options: { include_usage: false } },
      new ToolCallIds(),
    );
    expect(off.streamUsage).toBeUndefined();
  });

  it("ends with a usage chunk of no choices, every chunk before it carrying usage: null, as the API streams it", async () => {
    const sse = synthesize(output, withUsage, new ToolCallIds(), 1);
    const chunks: any[] = [];
    for await (const c of await clientServing(sse).chat.completions.create({ ...usageParams, stream: true }))
      chunks.push(c);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(chunks.slice(0, -1).every((c) => c.usage === null && c.choices.length === 1)).toBe(true);
    const final = await clientServing(sse).chat.completions.stream(usageParams).finalChatCompletion();
    expect(final.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    // the usage chunk does not change what the stream assembles to
    expect(assemble([encode(sse)])).toEqual(assemble([encode(synthesize(output, request, new ToolCallIds(), 1))]));
  });

  it("without include_usage no chunk has a usage member (the API sends none)", async () => {
    const chunks: any[] = [];
    for await (const c of await clientServing(
      synthesize(output, request, new ToolCallIds(), 1),
    ).chat.completions.create({ ...params, stream: true }))
      chunks.push(c);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.some((c) => "usage" in c)).toBe(false);
  });
});
