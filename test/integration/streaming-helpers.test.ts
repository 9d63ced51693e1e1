/**
 * Streamed calls as agents use the SDKs' helpers, recorded then replayed in process,
 * through both doors (bb.fetch, and the global dispatcher the register hook installs):
 * what the agent observes in replay must be what it observed live. The fake provider
 * streams in small chunks on 127.0.0.1; a replay sends nothing to it.
 */
import Anthropic from "@anthropic-ai/sdk";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { blackbox, createSession, publicSession } from "../../src/blackbox.js";
import { installDispatcher } from "../../src/interception/dispatcher/door.js";
import { anthropicSSE, openaiSSE, useFakeProvider, type FakeReply } from "../helpers/fakeProvider.js";

const fx = useFakeProvider("bb-stream-helpers-");
let runs = 0;
type Door = "fetch" | "dispatcher";
type Provider = "anthropic" | "openai";

/** One session in `mode` with a client of `provider` on `door`; finish() errors are returned, not thrown. */
async function session<T>(
  mode: "record" | "replay",
  file: string,
  provider: Provider,
  door: Door,
  agent: (client: any, bb: ReturnType<typeof blackbox>) => Promise<T>,
) {
  const providers = { [provider]: [fx.fake.url] };
  const engine = createSession(
    mode === "record" ? { mode, out: file, providers } : { mode, cassette: file, providers },
  );
  const bb = publicSession(engine);
  const undo = door === "dispatcher" ? await installDispatcher(engine) : undefined;
  const fetch = door === "fetch" ? { fetch: bb.fetch } : {};
  const client =
    provider === "anthropic"
      ? new Anthropic({ apiKey: "sk-ant-helpers-0000", baseURL: fx.fake.anthropicUrl, maxRetries: 0, ...fetch })
      : new OpenAI({ apiKey: "sk-helpers-0000", baseURL: fx.fake.openaiUrl, maxRetries: 0, ...fetch });
  try {
    const seen = await agent(client, bb);
    await bb.finish();
    return seen;
  } finally {
    undo?.();
  }
}

/** Record `replies` with `agent`, replay offline with the same agent; both observations, and the cassette. */
async function recordAndReplay<T>(
  provider: Provider,
  door: Door,
  replies: FakeReply[],
  agent: (client: any) => Promise<T>,
) {
  const file = join(fx.dir, `${provider}-${door}-${++runs}.json`);
  fx.fake.enqueue(...replies);
  const live = await session("record", file, provider, door, agent);
  expect(fx.fake.pending).toBe(0);
  const sent = fx.fake.requests.length;
  const replayed = await session("replay", file, provider, door, agent);
  expect(fx.fake.requests.length, "a replay sends nothing upstream").toBe(sent);
  return { live, replayed, cassette: JSON.parse(readFileSync(file, "utf8")) };
}

/** A content block without what differs by design: the provider's id, and the `citations: null` a live text block may carry (a served one has none). */
function comparable(block: object): object {
  const { id, citations, ...rest } = block as Record<string, unknown>;
  return { ...rest, ...(id === undefined ? {} : { id: "<id>" }), ...(citations == null ? {} : { citations }) };
}

const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const params: Anthropic.MessageCreateParamsNonStreaming = {
  model: "claude-sonnet-4-5",
  max_tokens: 40,
  messages: [{ role: "user", content: "Weather in Lisbon?" }],
};

describe.each(["fetch", "dispatcher"] as const)("through the %s door", (door) => {
  it("Anthropic: a reply cut by max_tokens inside a tool_use block is recorded and replayed as the SDK gave it", async () => {
    const truncated = '{"city": "Lisbon", "days": [1, 2';
    const sse = [
      ev("message_start", {
        message: {
          id: "msg_01Trunc",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      }),
      ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Checking." } }),
      ev("content_block_stop", { index: 0 }),
      ev("content_block_start", {
        index: 1,
        content_block: { type: "tool_use", id: "toolu_01Trunc", name: "get_weather", input: {} },
      }),
      ev("content_block_delta", {
        index: 1,
        delta: { type: "input_json_delta", partial_json: truncated.slice(0, 12) },
      }),
      ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: truncated.slice(12) } }),
      ev("content_block_stop", { index: 1 }),
      ev("message_delta", { delta: { stop_reason: "max_tokens", stop_sequence: null }, usage: { output_tokens: 40 } }),
      ev("message_stop", {}),
    ];
    // The helper (finalMessage: the SDK partial-parses the input) and the raw events (the partial_json text).
    const agent = async (client: Anthropic) => {
      const message = await client.messages.stream(params).finalMessage();
      const events = await client.messages.create({ ...params, stream: true });
      let json = "";
      for await (const e of events)
        if (e.type === "content_block_delta" && e.delta.type === "input_json_delta") json += e.delta.partial_json;
      return { content: message.content.map(comparable), stop: message.stop_reason, json };
    };
    const reply = { sse, chunkSize: 6 };
    const { live, replayed, cassette } = await recordAndReplay("anthropic", door, [reply, reply], agent);
    expect(live.stop).toBe("max_tokens");
    expect(live.json).toBe(truncated);
    expect(replayed).toEqual(live);
    const outputs = cassette.steps.filter((s: any) => s.type === "model_output").map((s: any) => s.payload);
    expect(outputs[0]).toEqual({
      type: "tool_calls",
      text: "Checking.",
      stop: "length",
      calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: truncated }],
    });
    // A non-streamed replay of it gets the raw text as the tool_use input (README, Streaming).
    const file = join(fx.dir, `${door}-plain-of-cut.json`);
    fx.fake.enqueue(reply);
    await session("record", file, "anthropic", door, (client: Anthropic) =>
      client.messages.stream(params).finalMessage(),
    );
    const plain = await session("replay", file, "anthropic", door, (client: Anthropic) =>
      client.messages.create(params),
    );
    expect(plain.stop_reason).toBe("max_tokens");
    expect(plain.content.map(comparable)).toEqual([
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "<id>", name: "get_weather", input: truncated },
    ]);
  });

  // The end of the body comes a while after the final event, as when the provider is slow
  // to close: the agent has its whole reply and stops there, then makes its next call.
  it("Anthropic: an agent that stops reading at message_stop has read the whole reply: recorded", async () => {
    const slowEnd = (text: string): FakeReply => ({
      sse: [anthropicSSE({ text }).join(""), ": closing\n\n"],
      chunkSize: 1 << 20,
      delayMs: 150,
    });
    const agent = async (client: Anthropic) => {
      const texts: string[] = [];
      for (const _ of [1, 2]) {
        let text = "";
        for await (const e of await client.messages.create({ ...params, stream: true })) {
          if (e.type === "content_block_delta" && e.delta.type === "text_delta") text += e.delta.text;
          if (e.type === "message_stop") break;
        }
        texts.push(text);
      }
      return texts;
    };
    const { live, replayed } = await recordAndReplay(
      "anthropic",
      door,
      [slowEnd("Sunny."), slowEnd("Still sunny.")],
      agent,
    );
    expect(live).toEqual(["Sunny.", "Still sunny."]);
    expect(replayed).toEqual(live);
  });

  it("OpenAI: an agent that stops reading at finish_reason has read the whole reply: recorded", async () => {
    const slowRest = (text: string): FakeReply => {
      const chunks = openaiSSE({ text }); // ..., finish_reason, usage, [DONE]
      return { sse: [chunks.slice(0, -2).join(""), chunks.slice(-2).join("")], chunkSize: 1 << 20, delayMs: 150 };
    };
    const agent = async (client: OpenAI) => {
      const texts: string[] = [];
      for (const _ of [1, 2]) {
        let text = "";
        const stream = await client.chat.completions.create({
          model: "gpt-4.1",
          messages: [{ role: "user", content: "Weather?" }],
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? "";
          if (chunk.choices[0]?.finish_reason) break;
        }
        texts.push(text);
      }
      return texts;
    };
    const { live, replayed } = await recordAndReplay(
      "openai",
      door,
      [slowRest("Sunny."), slowRest("Still sunny.")],
      agent,
    );
    expect(live).toEqual(["Sunny.", "Still sunny."]);
    expect(replayed).toEqual(live);
  });

  it("an agent that breaks out of a stream gets control back at once, while the provider is still silent", async () => {
    // The first events come at once, the rest after a long pause (a model thinking).
    const events = anthropicSSE({ text: "A long answer that the agent does not wait for." });
    const head = events.slice(0, 4).join(""); // message_start, ping, content_block_start, the first delta
    const file = join(fx.dir, `break-${door}.json`);
    fx.fake.enqueue({ sse: [head, events.slice(4).join("")], chunkSize: Buffer.byteLength(head), delayMs: 2000 });
    let breakAt = 0;
    let breakTook = -1;
    const refusal = await session("record", file, "anthropic", door, async (client: Anthropic) => {
      for await (const e of await client.messages.create({ ...params, stream: true })) {
        if (e.type === "content_block_delta") {
          breakAt = Date.now();
          break; // the SDK cancels the body and aborts the request
        }
      }
      breakTook = Date.now() - breakAt;
    }).then(
      () => "no refusal",
      (e: Error) => e.message,
    );
    expect(breakTook, "ms the break took").toBeLessThan(500);
    expect(refusal).toMatch(/agent stopped reading a streamed reply before it ended/);
  });

  it("an error event mid-stream: the SDK throws it and lets go of the body, and finish() names the provider's error", async () => {
    const events = anthropicSSE({ text: "An answer the provider does not finish." }).slice(0, 5);
    events.push(
      `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`,
    );
    // the provider keeps the connection open a while after the error
    fx.fake.enqueue({ sse: [events.join(""), ": bye\n\n"], chunkSize: 1 << 20, delayMs: 1500 });
    const refusal = await session(
      "record",
      join(fx.dir, `error-${door}.json`),
      "anthropic",
      door,
      async (client: Anthropic) => {
        const read = async () => {
          for await (const _ of await client.messages.create({ ...params, stream: true })) {
            // the SDK throws on the error event
          }
        };
        await expect(read()).rejects.toThrow(/Overloaded/);
      },
    ).then(
      () => "no refusal",
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(/an error event from the provider \(overloaded_error: Overloaded\)/);
  });

  it("replay: an agent that aborts a replayed stream gets what it gets live, and the replay goes on", async () => {
    const file = join(fx.dir, `abort-replay-${door}.json`);
    fx.fake.enqueue(
      { sse: anthropicSSE({ text: "One sentence. Another sentence." }), chunkSize: 5 },
      { sse: anthropicSSE({ text: "Done." }), chunkSize: 5 },
    );
    const agent = (abort: boolean) => async (client: Anthropic) => {
      const stream = client.messages.stream(params);
      const texts: string[] = [];
      stream.on("text", (t) => {
        texts.push(t);
        if (abort) stream.abort();
      });
      const first = await stream.finalMessage().then(
        () => "finished",
        (e: Error) => e.constructor.name,
      );
      const next = await client.messages
        .stream({
          ...params,
          messages: [
            ...params.messages,
            { role: "assistant", content: "One sentence. Another sentence." },
            { role: "user", content: "And?" },
          ],
        })
        .finalText();
      return { first, texts: texts.length, next };
    };
    expect(await session("record", file, "anthropic", door, agent(false))).toEqual({
      first: "finished",
      texts: 3,
      next: "Done.",
    });
    const sent = fx.fake.requests.length;
    expect(await session("replay", file, "anthropic", door, agent(true))).toEqual({
      first: "APIUserAbortError",
      texts: 1,
      next: "Done.",
    });
    expect(fx.fake.requests.length).toBe(sent);
  });

  it("finish() while a stream was never read says so, and what to do", async () => {
    // still streaming when finish() comes (a reply whose final event has come is recorded, read or not)
    fx.fake.enqueue({ sse: anthropicSSE({ text: "Nobody reads this." }), chunkSize: 200, delayMs: 300 });
    const refusal = await session(
      "record",
      join(fx.dir, `unread-${door}.json`),
      "anthropic",
      door,
      async (client: Anthropic) => {
        await client.messages.create({ ...params, stream: true }); // the events are never read
      },
    ).then(
      () => "no refusal",
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(
      /streamed model reply .*not read to its end.*nothing was written.*for await.*finalMessage\(\)/,
    );
  });

  it("a stream read with plain fetch and a timeout signal that fires is the agent stopping, not the provider breaking", async () => {
    fx.fake.enqueue({
      sse: anthropicSSE({ text: "A slow answer, one piece at a time." }),
      chunkSize: 40,
      delayMs: 100,
    });
    const refusal = await session(
      "record",
      join(fx.dir, `timeout-${door}.json`),
      "anthropic",
      door,
      async (client: Anthropic) => {
        // the agent's own fetch: the SDK's fetch option, or the global fetch the hook's door serves
        const fetchFn: typeof fetch = door === "fetch" ? (client as unknown as { fetch: typeof fetch }).fetch : fetch;
        const res = await fetchFn(`${fx.fake.anthropicUrl}/v1/messages`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "anthropic-version": "2023-06-01",
            "x-api-key": "sk-ant-helpers-0000",
          },
          body: JSON.stringify({ ...params, stream: true }),
          signal: AbortSignal.timeout(250),
        });
        await expect(res.text()).rejects.toThrow(/timeout|aborted/i);
      },
    ).then(
      () => "no refusal",
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(/agent stopped reading a streamed reply before it ended/);
  });

  it("a model call made while an earlier stream is not read to its end says which, and what to do", async () => {
    // still streaming at the next call; the second call is refused before it goes out
    fx.fake.enqueue({ sse: anthropicSSE({ text: "Nobody reads this." }), chunkSize: 200, delayMs: 300 });
    const sent = fx.fake.requests.length;
    let second = "";
    const refusal = await session(
      "record",
      join(fx.dir, `unread-next-${door}.json`),
      "anthropic",
      door,
      async (client: Anthropic) => {
        await client.messages.create({ ...params, stream: true }); // never read
        second = await client.messages.create(params).then(
          () => "answered",
          (e: Error) => e.message,
        );
      },
    ).then(
      () => "no refusal",
      (e: Error) => e.message,
    );
    expect(second).toMatch(
      /a model call was made while a streamed model reply was not read to its end.*Read each stream to its end.*for await.*finalMessage\(\)/,
    );
    expect(refusal).toMatch(/not read to its end/);
    expect(fx.fake.requests.length).toBe(sent + 1);
  });

  it("Anthropic helpers: text events, finalText(), the events' order and finalMessage() tool calls are the same in replay", async () => {
    const tools = [
      { name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } },
    ];
    const agent = async (client: Anthropic) => {
      const turns = [];
      const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Lisbon?" }];
      for (let i = 0; i < 2; i++) {
        const stream = client.messages.stream({ ...params, max_tokens: 200, tools, messages });
        let text = "";
        const order: string[] = [];
        stream.on("text", (t) => (text += t));
        for await (const e of stream) if (order.at(-1) !== e.type) order.push(e.type);
        const m = await stream.finalMessage();
        const uses = m.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
        turns.push({
          text,
          finalText: uses.length ? null : await stream.finalText(),
          order,
          stop: m.stop_reason,
          calls: uses.map((u) => [u.name, u.input]),
        });
        if (!uses.length) break;
        messages.push(
          { role: "assistant", content: m.content },
          {
            role: "user",
            content: uses.map((u) => ({ type: "tool_result" as const, tool_use_id: u.id, content: "sunny" })),
          },
        );
      }
      return turns;
    };
    const replies = [
      {
        sse: anthropicSSE({
          text: "Let me look.",
          toolCalls: [{ name: "get_weather", input: { city: "Lisbon", days: [1, 2] } }],
        }),
        chunkSize: 7,
      },
      { sse: anthropicSSE({ text: "Sunny in Lisbon ☀." }), chunkSize: 7 },
    ];
    const { live, replayed } = await recordAndReplay("anthropic", door, replies, agent);
    expect(live).toHaveLength(2);
    expect(live[1]!.finalText).toBe("Sunny in Lisbon ☀.");
    expect(live[0]!.order).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(replayed).toEqual(live);
  });

  it("OpenAI helpers: runTools({ stream: true }) and include_usage chunks are the same in replay", async () => {
    const agent = async (client: OpenAI) => {
      // the streaming runner's events (chunks, tool call arguments) are typed on its class, not on this overload
      const runner: any = client.chat.completions.runTools({
        model: "gpt-4.1",
        messages: [{ role: "user", content: "Weather in Lisbon and Tokyo?" }],
        stream: true,
        stream_options: { include_usage: true },
        tools: [
          {
            type: "function",
            function: {
              name: "get_weather",
              parameters: { type: "object", properties: { city: { type: "string" } } },
              function: (a: { city: string }) => `sunny in ${a.city}`,
              parse: JSON.parse,
            },
          },
        ],
      } as never);
      const args: string[] = [];
      let usageChunks = 0;
      runner.on("tool_calls.function.arguments.done", (e: { arguments: string }) => args.push(e.arguments));
      runner.on("chunk", (c: OpenAI.ChatCompletionChunk) => (usageChunks += c.usage ? 1 : 0));
      return { final: await runner.finalContent(), args, usageChunks };
    };
    const replies = [
      {
        sse: openaiSSE({
          toolCalls: [
            { name: "get_weather", input: { city: "Lisbon" } },
            { name: "get_weather", input: { city: "Tokyo" } },
          ],
        }),
        chunkSize: 7,
      },
      { sse: openaiSSE({ text: "Sunny in both." }), chunkSize: 7 },
    ];
    const { live, replayed } = await recordAndReplay("openai", door, replies, agent);
    expect(live).toEqual({ final: "Sunny in both.", args: ['{"city":"Lisbon"}', '{"city":"Tokyo"}'], usageChunks: 2 });
    expect(replayed).toEqual(live);
  });

  it("finish() after the reply's final event, the body not yet closed nor let go of, records the reply", async () => {
    fx.fake.enqueue({
      sse: [anthropicSSE({ text: "Sunny." }).join(""), ": closing\n\n"],
      chunkSize: 1 << 20,
      delayMs: 1000,
    });
    const file = join(fx.dir, `finish-open-${door}.json`);
    const seen = await session("record", file, "anthropic", door, async (client: Anthropic) => {
      // read event by event up to message_stop, never ending the iteration (no break, no return())
      const events = (await client.messages.create({ ...params, stream: true }))[Symbol.asyncIterator]();
      let text = "";
      for (let e = await events.next(); !e.done; e = await events.next()) {
        if (e.value.type === "content_block_delta" && e.value.delta.type === "text_delta") text += e.value.delta.text;
        if (e.value.type === "message_stop") break;
      }
      return text;
    });
    expect(seen).toBe("Sunny.");
    const outputs = JSON.parse(readFileSync(file, "utf8"))
      .steps.filter((s: any) => s.type === "model_output")
      .map((s: any) => s.payload);
    expect(outputs).toEqual([{ type: "final_answer", text: "Sunny." }]);
  });

  it("a wrapped tool run from the stream's message event (at message_stop) is recorded after the reply, and replays", async () => {
    const file = join(fx.dir, `tool-on-message-${door}.json`);
    const tools = { toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] };
    const agent = (mode: "record" | "replay") =>
      session(mode, file, "anthropic", door, async (client: Anthropic, bb: ReturnType<typeof blackbox>) => {
        const weather = bb.tool("get_weather", async (a: { city: string }) => `sunny in ${a.city}`);
        const stream = client.messages.stream(params);
        let result: Promise<string> | undefined;
        stream.on("message", (m) => {
          const use = m.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
          result = weather(use.input as { city: string });
        });
        await stream.done();
        return await result!;
      });
    fx.fake.enqueue({ sse: [anthropicSSE(tools).join(""), ": closing\n\n"], chunkSize: 1 << 20, delayMs: 300 });
    expect(await agent("record")).toBe("sunny in Lisbon");
    expect(JSON.parse(readFileSync(file, "utf8")).steps.map((s: any) => s.type)).toEqual([
      "model_input",
      "model_output",
      "tool_call",
      "tool_result",
      "metadata",
    ]);
    expect(await agent("replay")).toBe("sunny in Lisbon");
  });
});

describe("bb.fetch with the caller's own signal", () => {
  it("leaves no listener on a signal the caller uses for every call (15 calls printed MaxListenersExceededWarning)", async () => {
    const { EventEmitter } = await import("node:events");
    const { anthropicMessage } = await import("../helpers/fakeProvider.js");
    const bb = blackbox({
      mode: "record",
      out: join(fx.dir, "one-signal.json"),
      providers: { anthropic: [fx.fake.url] },
    });
    const run = new AbortController(); // one signal for the whole run, as an agent with a Ctrl-C handler keeps
    for (let i = 0; i < 3; i++) {
      fx.fake.enqueue({ json: anthropicMessage({ text: `Answer ${i}.` }) });
      const r = await bb.fetch(`${fx.fake.anthropicUrl}/v1/messages`, {
        method: "POST",
        signal: run.signal,
        headers: {
          "content-type": "application/json",
          "anthropic-version": "2023-06-01",
          "x-api-key": "sk-ant-helpers-0000",
        },
        body: JSON.stringify({ ...params, messages: [{ role: "user", content: `Question ${i}?` }] }),
      });
      await r.text();
    }
    expect(EventEmitter.getEventListeners(run.signal, "abort")).toHaveLength(0);
    await bb.finish();
  });
});
