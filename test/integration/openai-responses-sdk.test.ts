/**
 * The Responses API adapter against the real `openai` SDK, both ways, before it is wired
 * into the session:
 * - recording: the SDK talks to the fake provider speaking /v1/responses (JSON and the
 *   API's event sequence, cut in 7-byte pieces); the bytes the SDK got go through the
 *   adapter, the stream assembler and the chain store as a session would put them, and a
 *   chained run, one with item references and a whole-history run give the same
 *   model_inputs and outputs;
 * - replay: the SDK is served the adapter's built bodies and synthesized streams from a
 *   fetch function (`client.responses.create`, `create({ stream: true })`,
 *   `client.responses.stream()`): it parses them (finalResponse(), output_text, function
 *   calls), chains on Blackbox's ids, and sends the recorded model_inputs again.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { isBlackboxError } from "../../src/errors.js";
import { ToolCallIds } from "../../src/providers/shared/ids.js";
import {
  ResponseChains,
  createAssembler,
  openaiResponsesAdapter as r,
  openaiResponsesProvider,
  synthesize,
} from "../../src/providers/openai-responses/index.js";
import { STREAM_CONTENT_TYPE } from "../../src/providers/index.js";
import { checkNeutrality, findProviderId } from "../../src/trace/neutrality.js";
import type { ModelInput, ModelOutput } from "../../src/trace/types.js";
import {
  openaiResponse,
  openaiResponseSSE,
  useFakeProvider,
  type FakeResponseContent,
} from "../helpers/fakeProvider.js";

type Obj = Record<string, unknown>;
type Mode = "create" | "create-stream" | "stream";
const MODES: Mode[] = ["create", "create-stream", "stream"];

const tools = [
  {
    type: "function" as const,
    name: "get_weather",
    description: "The weather in a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    strict: true,
  },
];
const base = { model: "gpt-4.1", instructions: "You are a weather bot.", tools, max_output_tokens: 300 };

/** The agent's tool: Porto is an error the agent sends back as the output. */
const weather = (args: string): string => {
  const { city } = JSON.parse(args) as { city: string };
  return city === "Porto" ? "error: the weather service has no data for Porto" : `sunny in ${city}`;
};

/** One model call through the SDK entry point `mode`: the final Response. */
async function call(client: OpenAI, body: Obj, mode: Mode): Promise<OpenAI.Responses.Response> {
  const params = body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;
  if (mode === "create") return client.responses.create({ ...params, stream: false });
  if (mode === "stream")
    return client.responses.stream(body as Parameters<OpenAI["responses"]["stream"]>[0]).finalResponse();
  const events = await client.responses.create({ ...params, stream: true });
  let final: OpenAI.Responses.Response | undefined;
  let deltas = "";
  for await (const e of events) {
    if (e.type === "response.output_text.delta") deltas += e.delta;
    if (e.type === "response.completed" || e.type === "response.incomplete") final = e.response;
  }
  expect(final, "a final event").toBeDefined();
  const text = final!.output
    .flatMap((i) => (i.type === "message" ? i.content : []))
    .map((p) => (p.type === "output_text" ? p.text : ""));
  expect(deltas).toBe(text.join(""));
  return final!;
}

/**
 * How the agent sends its history: all of it each call; chained on the previous response's
 * id; or, as the Vercel AI SDK's openai(model) does while `store` is on, each earlier
 * message and reasoning item as an item reference and each function call in full.
 */
type Style = "whole history" | "chained" | "item references";
const STYLES: Style[] = ["whole history", "chained", "item references"];

function sentBack(output: OpenAI.Responses.ResponseOutputItem[], style: Style): unknown[] {
  if (style !== "item references") return output;
  return output.map((i) =>
    i.type === "function_call"
      ? { type: "function_call", call_id: i.call_id, name: i.name, arguments: i.arguments }
      : { type: "item_reference", id: "id" in i ? i.id : undefined },
  );
}

/** A tool loop, its history sent in `style`. Returns the final text and the response ids. */
async function agent(client: OpenAI, mode: Mode, style: Style): Promise<{ text: string; ids: string[] }> {
  let history: unknown[] = [{ role: "user", content: "Weather in Lisbon, Porto and Faro?" }];
  let pending = history;
  let previous: OpenAI.Responses.Response | undefined;
  const ids: string[] = [];
  for (let turn = 0; turn < 6; turn++) {
    const body =
      style === "chained" && previous
        ? { ...base, previous_response_id: previous.id, input: pending }
        : { ...base, input: history };
    const res = await call(client, body, mode);
    ids.push(res.id);
    const calls = res.output.filter((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === "function_call");
    if (calls.length === 0) {
      const text = res.output.flatMap((i) => (i.type === "message" ? i.content : []));
      return { text: text.map((p) => (p.type === "output_text" ? p.text : "")).join(""), ids };
    }
    const outputs = calls.map((c) => ({
      type: "function_call_output",
      call_id: c.call_id,
      output: weather(c.arguments),
    }));
    history = [...history, ...sentBack(res.output, style), ...outputs];
    pending = outputs;
    previous = res;
  }
  throw new Error("the agent did not finish");
}

/** The provider's replies to the loop: parallel calls beside text (after reasoning), one more call, the answer. */
const script: FakeResponseContent[] = [
  {
    reasoning: true,
    text: "Checking all three.",
    toolCalls: [
      { name: "get_weather", input: { city: "Lisbon" } },
      { name: "get_weather", input: { city: "Porto" } },
    ],
  },
  { toolCalls: [{ name: "get_weather", input: { city: "Faro" } }] },
  { text: "Sunny in Lisbon and Faro; no data for Porto. 🌍" },
];

/** A fetch that passes through and keeps each reply's bytes, as a recording session sees them. */
function capturing(): { fetch: typeof fetch; replies: string[] } {
  const replies: string[] = [];
  const f = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(url, init);
    const text = await res.text();
    replies.push(text);
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: f as typeof fetch, replies };
}

/** What a recording session makes of the requests the provider got and the replies the SDK read. */
function record(
  requests: unknown[],
  replies: string[],
  streamed: boolean,
): { inputs: ModelInput[]; outputs: ModelOutput[] } {
  const chains = new ResponseChains();
  const ids = new ToolCallIds();
  const inputs: ModelInput[] = [];
  const outputs: ModelOutput[] = [];
  requests.forEach((raw, k) => {
    const body = raw as Obj;
    const x = chains.expand(body);
    expect(x.continuesLocal).toBe(false); // a recording sends what the agent sent
    const parsed = r.parseRequest(x.full, ids);
    expect(parsed.stream).toBe(streamed);
    inputs.push(parsed.input);
    let reply: unknown;
    if (streamed) {
      const a = createAssembler(ids);
      a.push(new TextEncoder().encode(replies[k]));
      expect(a.complete()).toBe(true);
      outputs.push(a.finish());
      reply = a.reply();
    } else {
      reply = JSON.parse(replies[k]!);
      outputs.push(r.parseResponse(reply, ids));
    }
    chains.remember(x, reply, true);
  });
  return { inputs, outputs };
}

describe("recording: the SDK against the fake provider's /v1/responses", () => {
  const env = useFakeProvider("bbx-responses-");
  const recordings = new Map<string, { inputs: ModelInput[]; outputs: ModelOutput[] }>();

  for (const mode of MODES) {
    for (const style of STYLES) {
      it(`${mode}, ${style}: the loop runs, and records`, async () => {
        const { fake } = env;
        const streamed = mode !== "create";
        fake.enqueue(
          ...script.map((c) => (streamed ? { sse: openaiResponseSSE(c), chunkSize: 7 } : { json: openaiResponse(c) })),
        );
        const from = fake.requests.length;
        const cap = capturing();
        const client = new OpenAI({
          apiKey: "sk-test-placeholder",
          baseURL: fake.openaiUrl,
          maxRetries: 0,
          fetch: cap.fetch,
        });
        const run = await agent(client, mode, style);
        expect(run.text).toBe("Sunny in Lisbon and Faro; no data for Porto. 🌍");
        expect(run.ids.every((id) => id.startsWith("resp_"))).toBe(true);
        const sent = fake.requests.slice(from);
        expect(sent.map((q) => q.path)).toEqual(["/v1/responses", "/v1/responses", "/v1/responses"]);
        if (style === "chained") expect((sent[2]!.body as Obj).previous_response_id).toBe(run.ids[1]);
        if (style === "item references") expect(JSON.stringify(sent[1]!.body)).toContain('"type":"item_reference"');
        const rec = record(
          sent.map((q) => q.body),
          cap.replies,
          streamed,
        );
        expect(rec.outputs[0]).toEqual({
          type: "tool_calls",
          text: "Checking all three.",
          calls: [
            { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
            { toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Porto" } },
          ],
        });
        expect(rec.inputs[2]!.messages.at(-1)).toEqual({
          role: "user",
          content: [{ type: "tool_result", toolCallId: "call-2", toolName: "get_weather", result: "sunny in Faro" }],
        });
        expect(rec.inputs[1]!.messages[2]!.content).toContainEqual({
          type: "tool_result",
          toolCallId: "call-1",
          toolName: "get_weather",
          result: "error: the weather service has no data for Porto",
        });
        expect(checkNeutrality(rec)).toEqual([]);
        expect(JSON.stringify(rec).match(/resp_|msg_|fc_|rs_|call_[A-Za-z0-9]/g)).toBeNull();
        recordings.set(`${mode}/${style}`, rec);
      });
    }
  }

  it("every entry point, chained, with item references or not, records the same cassette, step by step", () => {
    const all = [...recordings.values()];
    expect(all).toHaveLength(9);
    for (const rec of all) expect(rec).toEqual(all[0]);
  });

  it("the fake is the provider: a response id it never issued, or not stored, is its 400; so are Blackbox item ids", async () => {
    const { fake } = env;
    const client = new OpenAI({ apiKey: "sk-test-placeholder", baseURL: fake.openaiUrl, maxRetries: 0 });
    const unknown = await client.responses
      .create({ ...base, previous_response_id: "bbx-resp-0", input: "x" })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((unknown as Error).message)).toContain("Previous response with id 'bbx-resp-0' not found.");
    fake.enqueue({ json: openaiResponse({ text: "not kept", store: false }) });
    const unstored = await client.responses.create({ ...base, input: "x", store: false });
    expect(fake.storedResponses.has(unstored.id)).toBe(false);
    const chainedOnIt = await client.responses
      .create({ ...base, previous_response_id: unstored.id, input: "y" })
      .catch((e: unknown) => e);
    expect(String((chainedOnIt as Error).message)).toContain(`Previous response with id '${unstored.id}' not found.`);
    const items = await client.responses
      .create({
        ...base,
        input: [
          { role: "user", content: "x" },
          {
            id: "bbx-msg-0-0",
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "y", annotations: [] }],
          },
        ],
      })
      .catch((e: unknown) => e);
    expect(String((items as Error).message)).toContain(
      "Invalid 'input[1].id': 'bbx-msg-0-0'. Expected an ID that begins with 'msg'.",
    );
  });

  it("the fake is the provider: an item reference to an item it does not hold is its 400", async () => {
    const { fake } = env;
    const client = new OpenAI({ apiKey: "sk-test-placeholder", baseURL: fake.openaiUrl, maxRetries: 0 });
    const err = await client.responses
      .create({
        ...base,
        input: [
          { role: "user", content: "x" },
          { type: "item_reference", id: "bbx-msg-0-0" },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((err as Error).message)).toContain("Item with id 'bbx-msg-0-0' not found.");
  });

  it("a chain on a response Blackbox served goes upstream as whole history, which the provider takes", async () => {
    const { fake } = env;
    const chains = new ResponseChains();
    const ids = new ToolCallIds();
    const first = { ...base, input: "Weather in Lisbon?" };
    const served = r.buildResponse(
      {
        type: "tool_calls",
        text: "Checking.",
        calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
      },
      r.parseRequest(first, ids),
      ids,
      0,
    ) as Obj;
    chains.remember(chains.expand(first), served, false);
    const next = {
      ...base,
      previous_response_id: served.id,
      input: [{ type: "function_call_output", call_id: "bbx_call-0", output: "sunny" }],
    };
    const x = chains.expand(next);
    expect(x.continuesLocal).toBe(true);
    fake.enqueue({ json: openaiResponse({ text: "Sunny." }) });
    const client = new OpenAI({ apiKey: "sk-test-placeholder", baseURL: fake.openaiUrl, maxRetries: 0 });
    const sent = JSON.parse(chains.asNew(x)) as OpenAI.Responses.ResponseCreateParamsNonStreaming;
    const res = await client.responses.create(sent);
    expect(res.output_text).toBe("Sunny.");
    expect(fake.storedResponses.has(res.id)).toBe(false); // store: false: a later chain on it is whole history too
    expect(r.parseRequest(fake.requests.at(-1)!.body as Obj, new ToolCallIds()).input).toEqual(
      r.parseRequest(x.full, new ToolCallIds()).input,
    );
    chains.remember(x, res, true);
    expect(chains.expand({ ...base, previous_response_id: res.id, input: "And Porto?" }).continuesLocal).toBe(true);
  });

  it("so does a whole-history request holding items Blackbox served (the provider would refuse their ids)", async () => {
    const { fake } = env;
    const chains = openaiResponsesProvider.chains!();
    const ids = new ToolCallIds();
    const first = { ...base, input: "Weather in Lisbon?" };
    const served = r.buildResponse({ type: "final_answer", text: "Sunny." }, r.parseRequest(first, ids), ids, 0) as Obj;
    chains.remember(chains.expand(first)!, served, false);
    const body = {
      ...base,
      input: [
        { role: "user", content: "Weather in Lisbon?" },
        ...(served.output as Obj[]),
        { role: "user", content: "Porto?" },
      ],
    };
    const x = chains.expand(body)!;
    expect(x.continuesLocal).toBe(true);
    expect(x.full).toBe(body);
    const client = new OpenAI({ apiKey: "sk-test-placeholder", baseURL: fake.openaiUrl, maxRetries: 0 });
    const refused = await client.responses
      .create(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(String((refused as Error).message)).toContain("Expected an ID that begins with 'msg'.");
    fake.enqueue({ json: openaiResponse({ text: "Cloudy." }) });
    const res = await client.responses.create(
      JSON.parse(chains.asNew(x)) as OpenAI.Responses.ResponseCreateParamsNonStreaming,
    );
    expect(res.output_text).toBe("Cloudy.");
  });

  describe("replay: the SDK parses the adapter's bodies and streams, served from a fetch function", () => {
    /** A replaying session in a fetch: expand, parse, check against the recording, answer with the recorded output. */
    function replaying(rec: { inputs: ModelInput[]; outputs: ModelOutput[] }) {
      const chains = openaiResponsesProvider.chains!();
      const ids = new ToolCallIds();
      const inputs: ModelInput[] = [];
      let seq = 0;
      const f = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
        const body = JSON.parse(String(init?.body)) as Obj;
        const x = chains.expand(body)!;
        const parsed = r.parseRequest(x.full, ids);
        inputs.push(parsed.input);
        const output = rec.outputs[seq]!;
        const built = r.buildResponse(output, parsed, ids, seq);
        chains.remember(x, built, false);
        const headers = { "x-request-id": `bbx_req-${seq}` };
        const text = parsed.stream ? synthesize(output, parsed, ids, seq) : JSON.stringify(built);
        seq++;
        return new Response(text, {
          headers: { ...headers, "content-type": parsed.stream ? STREAM_CONTENT_TYPE : "application/json" },
        });
      };
      return { fetch: f as typeof fetch, inputs };
    }

    for (const mode of MODES) {
      for (const style of STYLES) {
        it(`${mode}, ${style} on Blackbox's ids: the same requests, the same answer`, async () => {
          const rec = recordings.get("stream/chained")!;
          const replay = replaying(rec);
          const client = new OpenAI({ apiKey: "sk-test-placeholder", maxRetries: 0, fetch: replay.fetch });
          const run = await agent(client, mode, style);
          expect(run.text).toBe("Sunny in Lisbon and Faro; no data for Porto. 🌍");
          expect(run.ids).toEqual(["bbx-resp-0", "bbx-resp-1", "bbx-resp-2"]);
          expect(replay.inputs).toEqual(rec.inputs);
        });
      }
    }

    it("finalResponse(): output_text, function calls with Blackbox's ids, parsed arguments of strict tools", async () => {
      const rec = recordings.get("create/whole history")!;
      const client = new OpenAI({ apiKey: "sk-test-placeholder", maxRetries: 0, fetch: replaying(rec).fetch });
      const stream = client.responses.stream({ ...base, input: "Weather in Lisbon, Porto and Faro?" });
      const deltas: string[] = [];
      stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
      const final = await stream.finalResponse();
      expect(final.output_text).toBe("Checking all three.");
      expect(deltas.join("")).toBe("Checking all three.");
      const calls = final.output.filter((i) => i.type === "function_call");
      expect(calls).toMatchObject([
        {
          call_id: "bbx_call-0",
          name: "get_weather",
          arguments: '{"city":"Lisbon"}',
          parsed_arguments: { city: "Lisbon" },
        },
        {
          call_id: "bbx_call-1",
          name: "get_weather",
          arguments: '{"city":"Porto"}',
          parsed_arguments: { city: "Porto" },
        },
      ]);
      for (const id of [
        final.id,
        ...final.output.map((i) => ("id" in i ? i.id : "")),
        ...calls.map((c) => c.call_id),
      ]) {
        expect(findProviderId(String(id)), String(id)).toBeUndefined();
      }
    });

    it("structured output, a refusal and a length stop, through every entry point", async () => {
      const outputs: ModelOutput[] = [
        { type: "final_answer", text: '{"city":"Lisbon","sky":"clear"}' },
        { type: "final_answer", text: "I can't help with that.", stop: "refusal" },
        { type: "final_answer", text: "Sunny in Lis", stop: "length" },
      ];
      const format = {
        type: "json_schema" as const,
        name: "report",
        strict: true,
        schema: {
          type: "object",
          properties: { city: { type: "string" }, sky: { type: "string" } },
          required: ["city", "sky"],
          additionalProperties: false,
        },
      };
      for (const mode of MODES) {
        const replay = replaying({ inputs: [], outputs });
        const client = new OpenAI({ apiKey: "sk-test-placeholder", maxRetries: 0, fetch: replay.fetch });
        const structured = await call(client, { ...base, input: "Report.", text: { format } }, mode);
        expect(structured.status, mode).toBe("completed");
        const text = structured.output.flatMap((i) => (i.type === "message" ? i.content : []));
        expect(JSON.parse((text[0] as { text: string }).text), mode).toEqual({ city: "Lisbon", sky: "clear" });
        if (mode === "stream")
          expect((structured as unknown as { output_parsed: unknown }).output_parsed).toEqual({
            city: "Lisbon",
            sky: "clear",
          });
        expect(replay.inputs[0]!.params!.responseFormat, mode).toEqual({
          type: "json_schema",
          json_schema: { name: "report", strict: true, schema: format.schema },
        });
        const refused = await call(client, { ...base, input: "Do harm." }, mode);
        expect(refused.output, mode).toMatchObject([
          { type: "message", content: [{ type: "refusal", refusal: "I can't help with that." }] },
        ]);
        const cut = await call(client, { ...base, input: "Long." }, mode);
        expect(cut.status, mode).toBe("incomplete");
        expect(cut.incomplete_details, mode).toEqual({ reason: "max_output_tokens" });
        if (mode === "create") expect(cut.output_text).toBe("Sunny in Lis");
      }
    });

    it("an errorBody 400 becomes a BadRequestError that isBlackboxError recognises, sent once", async () => {
      let calls = 0;
      const f = async (): Promise<Response> => {
        calls++;
        return new Response(JSON.stringify(r.errorBody("[blackbox] replay diverged at messages[0].content")), {
          status: 400,
          headers: { "content-type": "application/json", "x-should-retry": "false" },
        });
      };
      const client = new OpenAI({ apiKey: "sk-test-placeholder", fetch: f as typeof fetch });
      const err = await client.responses.create({ ...base, input: "x" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(isBlackboxError(err)).toBe(true);
      expect(calls).toBe(1);
    });
  });
});
