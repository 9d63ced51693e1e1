import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { anthropicProvider } from "../../../src/providers/anthropic/index.js";
import { createAssembler, synthesize } from "../../../src/providers/anthropic/stream.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { providers } from "../../../src/providers/index.js";
import type { ModelOutput } from "../../../src/trace/types.js";
import { MULTIBYTE, anthropicReply, anthropicSse, chunkings, encode } from "./streamFixtures.js";

function assemble(chunks: Uint8Array[]): ModelOutput {
  const a = createAssembler(new ToolCallIds());
  for (const c of chunks) a.push(c);
  return a.finish();
}

const cases = {
  text: anthropicReply([{ type: "text", text: MULTIBYTE }], "end_turn"),
  "one tool call": anthropicReply(
    [
      { type: "text", text: "Let me check the weather." },
      {
        type: "tool_use",
        id: "toolu_01A09q90qw90lq917835lq9",
        name: "get_weather",
        input: { city: "São Paulo", unit: "°C" },
      },
    ],
    "tool_use",
  ),
  "parallel tool calls": anthropicReply(
    [
      { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Lisbon" } },
      { type: "tool_use", id: "toolu_02", name: "get_time", input: {} },
    ],
    "tool_use",
  ),
  "length stop": anthropicReply([{ type: "text", text: "The answer is long and was cut" }], "max_tokens"),
  "thinking deltas": anthropicReply(
    [
      {
        type: "thinking",
        thinking: "The user wants 日本 weather; I should call the tool.",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h",
      },
      { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "東京" } },
    ],
    "tool_use",
  ),
};

describe("Anthropic stream assembler", () => {
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: every chunking gives the non-streamed output`, () => {
      const expected = anthropicProvider.parseResponse(c.body, new ToolCallIds());
      for (const [how, chunks] of chunkings(c.sse)) {
        expect(assemble(chunks), how).toEqual(expected);
      }
    });
  }

  it("assigns call-N in order and drops thinking", () => {
    expect(assemble([encode(cases["parallel tool calls"].sse)])).toEqual({
      type: "tool_calls",
      calls: [
        { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
        { toolCallId: "call-1", toolName: "get_time", toolInput: {} },
      ],
    });
    expect(assemble([encode(cases["thinking deltas"].sse)])).toEqual({
      type: "tool_calls",
      calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "東京" } }],
    });
    expect(assemble([encode(cases["length stop"].sse)])).toEqual({
      type: "final_answer",
      text: "The answer is long and was cut",
      stop: "length",
    });
  });

  it("accepts CRLF line ends", () => {
    const sse = cases.text.sse.replace(/\n/g, "\r\n");
    expect(assemble([encode(sse)])).toEqual({ type: "final_answer", text: MULTIBYTE });
  });

  it("refuses a stream that ended before message_stop, saying it broke", () => {
    const sse = cases["one tool call"].sse;
    const cut = sse.slice(0, sse.indexOf("event: message_delta"));
    expect(() => assemble([encode(cut)])).toThrow(/stream broke: it ended before message_stop.*Retry the call/);
    expect(() => assemble([])).toThrow(/stream broke: it ended before message_start/);
  });

  it("refuses a stream with a provider error event, naming the error", () => {
    const head = cases.text.sse.slice(0, cases.text.sse.indexOf("event: content_block_stop"));
    const err = anthropicSse([{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]);
    expect(() => assemble([encode(head + err)])).toThrow(
      /could not be recorded: it contained an error event from the provider \(overloaded_error: Overloaded\).*retry the call/,
    );
  });

  it("refuses tool input whose JSON deltas do not form JSON", () => {
    const bad = anthropicSse([
      {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "m",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_1", name: "f", input: {} },
      },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a": ' } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ]);
    expect(() => assemble([encode(bad)])).toThrow(/tool input of content block 0 that is not valid JSON/);
  });

  it("push never throws, even on garbage; finish reports it", () => {
    const a = createAssembler(new ToolCallIds());
    expect(() => a.push(encode("event: message_start\ndata: {not json\n\n"))).not.toThrow();
    expect(() => a.finish()).toThrow(/"message_start" whose data is not JSON/);
  });

  it("is reachable through its provider definition", () => {
    const a = providers.anthropic.stream.createAssembler(new ToolCallIds());
    a.push(encode(cases.text.sse));
    expect(a.finish()).toEqual({ type: "final_answer", text: MULTIBYTE });
  });
});

// ---------------------------------------------------------------------------
// Synthesized streams through the real SDK

const request = anthropicProvider.parseRequest(
  {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    stream: true,
    messages: [{ role: "user", content: "Weather in Lisbon?" }],
  },
  new ToolCallIds(),
);

function clientServing(text: string): Anthropic {
  return new Anthropic({
    apiKey: "sk-ant-test-unused",
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
  "empty text": { type: "final_answer", text: "" },
};

describe("Anthropic synthesized stream, parsed by the real SDK", () => {
  for (const [name, output] of Object.entries(outputs)) {
    it(`${name}: messages.create({stream:true}) and messages.stream() rebuild the reply`, async () => {
      const ids = new ToolCallIds();
      const sse = synthesize(output, request, ids, 4);
      const plain = anthropicProvider.buildResponse(output, request, new ToolCallIds(), 4) as Record<string, unknown>;

      const events: string[] = [];
      const stream = await clientServing(sse).messages.create({
        model: "m",
        max_tokens: 10,
        messages: [{ role: "user", content: "x" }],
        stream: true,
      });
      for await (const ev of stream) events.push(ev.type);
      expect(events[0]).toBe("message_start");
      expect(events.at(-1)).toBe("message_stop");

      const final = await clientServing(sse)
        .messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
        .finalMessage();
      expect(final.content).toEqual(plain.content);
      expect(final.stop_reason).toBe(plain.stop_reason);
      expect(final.id).toBe("bbx_msg-4");
      // The wire ids map back to the same call-N when the agent sends them back.
      for (const b of final.content)
        if (b.type === "tool_use") expect(ids.callIdFor(b.id)).toBe(b.id.replace(/^bbx_/, ""));
      // And the synthesized stream assembles back to the output it came from.
      expect(assemble([encode(sse)])).toEqual(anthropicProvider.parseResponse(plain, new ToolCallIds()));
    });
  }

  it("messages.stream() text events deliver the text in order", async () => {
    const sse = synthesize(outputs.text!, request, new ToolCallIds(), 0);
    let got = "";
    await clientServing(sse)
      .messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
      .on("text", (t) => (got += t))
      .done();
    expect(got).toBe(MULTIBYTE);
  });
});
