import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import {
  createAssembler,
  openaiResponsesAdapter as r,
  responseToSse,
  responsesStreamAdapter,
  synthesize,
} from "../../../src/providers/openai-responses/index.js";
import { parseSse } from "../../../src/providers/shared/sse.js";
import type { ModelOutput } from "../../../src/trace/types.js";
import { openaiResponse, openaiResponseSSE, type FakeResponseContent } from "../../helpers/fakeProvider.js";
import { MULTIBYTE, chunkings, encode } from "./streamFixtures.js";

type Obj = Record<string, unknown>;

function assemble(chunks: Uint8Array[], ids = new ToolCallIds()): ModelOutput {
  const a = createAssembler(ids);
  for (const c of chunks) a.push(c);
  return a.finish();
}

/** A reply as the API streams it, and the same reply as the API returns it non-streamed. */
function reply(c: FakeResponseContent): { sse: string; body: Obj } {
  const sse = openaiResponseSSE(c).join("");
  const completed = parseSse(sse).at(-1)!;
  return { sse, body: (JSON.parse(completed.data) as Obj).response as Obj };
}

const weather = { name: "get_weather", input: { city: "São Paulo", unit: "°C" } };
const cases: Record<string, { sse: string; body: Obj }> = {
  text: reply({ text: MULTIBYTE }),
  "one function call": reply({ toolCalls: [weather] }),
  "parallel function calls": reply({ toolCalls: [weather, { name: "get_time", input: {} }] }),
  "text beside a call, after reasoning": reply({
    reasoning: "gAAAAB-encrypted",
    text: "Checking…",
    toolCalls: [weather],
  }),
  "length stop": reply({ text: "The answer is long and was cut", incomplete: "max_output_tokens" }),
  refusal: reply({ refusal: "I'm sorry, I can't help with that 🙏" }),
};

describe("Responses stream assembler, from the API's event sequence", () => {
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: every chunking gives the non-streamed output`, () => {
      const expected = r.parseResponse(c.body, new ToolCallIds());
      for (const [how, chunks] of chunkings(c.sse)) expect(assemble(chunks), how).toEqual(expected);
    });
  }

  it("any cut of the byte stream gives the non-streamed output", () => {
    const c = cases["text beside a call, after reasoning"]!;
    const bytes = encode(c.sse);
    const expected = r.parseResponse(c.body, new ToolCallIds());
    fc.assert(
      fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 40 }), (raw) => {
        const cuts = [...new Set(raw)].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let start = 0;
        for (const cut of cuts) {
          chunks.push(bytes.subarray(start, cut));
          start = cut;
        }
        chunks.push(bytes.subarray(start));
        expect(assemble(chunks)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("folds the item events themselves when the final event's output is empty", () => {
    for (const [name, c] of Object.entries(cases)) {
      const emptied = c.sse.replace(
        /("type":"response\.(completed|incomplete)".*"output":)\[.*?\](,"parallel_tool_calls")/,
        "$1[]$3",
      );
      expect(emptied, name).not.toBe(c.sse);
      const a = createAssembler(new ToolCallIds());
      a.push(encode(emptied));
      expect(a.finish(), name).toEqual(r.parseResponse(c.body, new ToolCallIds()));
      expect((a.reply() as Obj).output, name).toEqual(c.body.output);
    }
  });

  it("text and arguments come from the deltas: a stream without the .done events folds the same", () => {
    const c = cases["text beside a call, after reasoning"]!;
    const events = parseSse(c.sse).filter(
      (e) => !/output_text\.done|function_call_arguments\.done|output_item\.done|content_part\.done/.test(e.event!),
    );
    const sse = events
      .map((e) =>
        e.event === "response.completed"
          ? { ...e, data: e.data.replace(/"output":\[.*?\],"parallel/, '"output":[],"parallel') }
          : e,
      )
      .map((e) => `event: ${e.event}\ndata: ${e.data}\n\n`)
      .join("");
    expect(assemble([encode(sse)])).toEqual(r.parseResponse(c.body, new ToolCallIds()));
  });

  it("call-N in order, the length and refusal stops", () => {
    expect(assemble([encode(cases["parallel function calls"]!.sse)])).toEqual({
      type: "tool_calls",
      calls: [
        { toolCallId: "call-0", toolName: "get_weather", toolInput: weather.input },
        { toolCallId: "call-1", toolName: "get_time", toolInput: {} },
      ],
    });
    expect(assemble([encode(cases["length stop"]!.sse)])).toEqual({
      type: "final_answer",
      text: "The answer is long and was cut",
      stop: "length",
    });
    expect(assemble([encode(cases.refusal!.sse)])).toEqual({
      type: "final_answer",
      text: "I'm sorry, I can't help with that 🙏",
      stop: "refusal",
    });
  });

  it("complete() once the final event came; reply() is the folded body", () => {
    const a = createAssembler(new ToolCallIds());
    const sse = cases.text!.sse;
    const cut = sse.lastIndexOf("event: response.completed");
    a.push(encode(sse.slice(0, cut)));
    expect(a.complete()).toBe(false);
    expect(a.failed()).toBe(false);
    a.push(encode(sse.slice(cut)));
    expect(a.complete()).toBe(true);
    expect(a.finish(true)).toEqual({ type: "final_answer", text: MULTIBYTE });
    expect(a.reply()).toEqual(cases.text!.body);
  });

  it("refuses a stream that broke before response.completed, or before it started, saying so", () => {
    const sse = cases["one function call"]!.sse;
    const cut = sse.slice(0, sse.indexOf("event: response.completed"));
    expect(() => assemble([encode(cut)])).toThrow(
      /OpenAI Responses stream broke: it ended before response\.completed.*Retry the call/,
    );
    expect(() => assemble([])).toThrow(/ended before response\.created/);
    // an event not closed by a blank line is dropped, as the SDK drops it
    expect(() => assemble([encode(sse.slice(0, -1))])).toThrow(/ended before response\.completed/);
  });

  it("refuses a stream carrying a provider error, response.failed or data it cannot read, naming it", () => {
    const head = cases.text!.sse.split("\n\n").slice(0, 3).join("\n\n") + "\n\n";
    const cases2: [string, RegExp][] = [
      [
        `event: error\ndata: ${JSON.stringify({ type: "error", sequence_number: 3, code: "server_error", message: "The server had an error", param: null })}\n\n`,
        /an error from the provider \(server_error: The server had an error\)/,
      ],
      [
        `event: response.failed\ndata: ${JSON.stringify({ type: "response.failed", sequence_number: 3, response: { ...openaiResponse({}), status: "failed", error: { code: "rate_limit_exceeded", message: "Slow down" } } })}\n\n`,
        /a failed response \(rate_limit_exceeded: Slow down\)/,
      ],
      ["event: response.output_text.delta\ndata: {not json\n\n", /an event whose data is not JSON/],
      [
        `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", output_index: 4, content_index: 0, delta: "x" })}\n\n`,
        /a response\.output_text\.delta event for output item 4, which was never added/,
      ],
    ];
    for (const [tail, message] of cases2) {
      const a = createAssembler(new ToolCallIds());
      a.push(encode(head + tail));
      expect(a.failed()).toBe(true);
      expect(a.complete()).toBe(false);
      expect(() => a.finish()).toThrow(message);
      expect(() => assemble([encode(head + tail)])).toThrow(/could not be recorded.*record without stream: true/);
    }
  });

  it("refuses at finish what the non-streamed parse refuses (an incomplete reply for another reason)", () => {
    const c = reply({ text: "x", incomplete: "content_filter" });
    const a = createAssembler(new ToolCallIds());
    a.push(encode(c.sse));
    expect(a.complete()).toBe(true);
    expect(() => a.finish()).toThrow(/incomplete \(reason "content_filter"\)/);
  });
});

const outputs: Record<string, ModelOutput> = {
  text: { type: "final_answer", text: MULTIBYTE },
  empty: { type: "final_answer", text: "" },
  "tool calls with text": {
    type: "tool_calls",
    text: "Checking both.",
    calls: [
      { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
      { toolCallId: "call-1", toolName: "get_weather", toolInput: "not json" },
    ],
  },
  "single call (built-in loop shape)": { type: "tool_call", toolCallId: "call-0", toolName: "f", toolInput: {} },
  "length stop": { type: "final_answer", text: "cut", stop: "length" },
  "calls cut by length": {
    type: "tool_calls",
    calls: [{ toolCallId: "call-0", toolName: "f", toolInput: {} }],
    stop: "length",
  },
  refusal: { type: "final_answer", text: "No 🙏", stop: "refusal" },
};

describe("Responses synthesize", () => {
  const request = r.parseRequest({ model: "gpt-4.1", input: "hi", stream: true }, new ToolCallIds());
  for (const [name, output] of Object.entries(outputs)) {
    it(`${name}: the assembler reads the synthesized stream back to the same output and body`, () => {
      const ids = new ToolCallIds();
      const sse = synthesize(output, request, ids, 2);
      const expected =
        output.type === "tool_call"
          ? r.parseResponse(r.buildResponse(output, request, new ToolCallIds(), 2), new ToolCallIds())
          : output;
      for (const [how, chunks] of chunkings(sse)) {
        const a = responsesStreamAdapter.createAssembler(ids);
        for (const c of chunks) a.push(c);
        expect(a.finish(), how).toEqual(expected);
        expect(a.reply(), how).toEqual(r.buildResponse(output, request, new ToolCallIds(), 2));
      }
    });
  }

  it("is the API's event sequence: named events, sequence_number from 0, every part opened and closed", () => {
    const sse = synthesize(outputs["tool calls with text"]!, request, new ToolCallIds(), 0);
    const events = parseSse(sse);
    const data = events.map((e) => JSON.parse(e.data) as Obj);
    expect(events.map((e) => e.event)).toEqual(data.map((d) => d.type));
    expect(data.map((d) => d.sequence_number)).toEqual(data.map((_, i) => i));
    expect(data.map((d) => d.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect((data[0]!.response as Obj).status).toBe("in_progress");
    expect((data[0]!.response as Obj).output).toEqual([]);
    const cut = parseSse(synthesize(outputs["length stop"]!, request, new ToolCallIds(), 0));
    expect(cut.at(-1)!.event).toBe("response.incomplete");
    const refusal = parseSse(synthesize(outputs.refusal!, request, new ToolCallIds(), 0)).map((e) => e.event);
    expect(refusal).toContain("response.refusal.delta");
    expect(refusal).toContain("response.refusal.done");
  });

  it("responseToSse unfolds any Response body the assembler folds back", () => {
    const body = cases["text beside a call, after reasoning"]!.body;
    const a = createAssembler(new ToolCallIds());
    a.push(encode(responseToSse(body)));
    expect(a.finish()).toEqual(r.parseResponse(body, new ToolCallIds()));
    expect(a.reply()).toEqual(body);
  });
});
