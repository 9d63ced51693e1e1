/**
 * Streams that do not end well, while recording through the real SDKs and bb.fetch:
 * the agent abandons the stream, the provider's stream ends without its final event,
 * or the connection drops mid-stream. A partial reply cannot be replayed, so each is
 * refused: the agent sees the bytes as they came, and finish() throws, naming what
 * happened, and writes no cassette.
 */
import Anthropic from "@anthropic-ai/sdk";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blackbox } from "../../src/blackbox.js";
import { anthropicSSE, openaiSSE, useFakeProvider } from "../helpers/fakeProvider.js";

const fx = useFakeProvider("bb-stream-fail-");

const reply = { text: "A long answer that streams in many small pieces, 日本語 included." };
const params = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
const oaParams = { model: "gpt-4.1", messages: [{ role: "user" as const, content: "hi" }] };

function session(name: string, baseUrl: string, provider: "anthropic" | "openai") {
  const out = join(fx.dir, `${name}.json`);
  const bb = blackbox({ mode: "record", out, providers: { [provider]: [baseUrl] } });
  return { bb, out };
}

describe("an agent that stops reading a stream while recording", () => {
  it("Anthropic: finish() refuses, saying the agent stopped reading, and writes nothing", async () => {
    const { bb, out } = session("abort-anthropic", fx.fake.anthropicUrl, "anthropic");
    const client = new Anthropic({
      apiKey: "sk-ant-test-0000",
      baseURL: fx.fake.anthropicUrl,
      fetch: bb.fetch,
      maxRetries: 0,
    });
    fx.fake.enqueue({ sse: anthropicSSE(reply), chunkSize: 5, delayMs: 2 });
    const seen: string[] = [];
    for await (const ev of await client.messages.create({ ...params, stream: true })) {
      seen.push(ev.type);
      if (ev.type === "content_block_delta") break;
    }
    expect(seen[0]).toBe("message_start");
    await expect(bb.finish()).rejects.toThrow(
      /agent stopped reading a streamed reply before it ended.*Read streams to the end/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("OpenAI: stream.controller.abort() mid-way is refused the same way", async () => {
    const { bb, out } = session("abort-openai", fx.fake.openaiUrl, "openai");
    const client = new OpenAI({ apiKey: "sk-test-0000", baseURL: fx.fake.openaiUrl, fetch: bb.fetch, maxRetries: 0 });
    fx.fake.enqueue({ sse: openaiSSE(reply), chunkSize: 5, delayMs: 2 });
    const stream = await client.chat.completions.create({ ...oaParams, stream: true });
    let chunks = 0;
    for await (const _ of stream) {
      if (++chunks === 2) stream.controller.abort();
    }
    expect(chunks).toBe(2);
    await expect(bb.finish()).rejects.toThrow(/agent stopped reading a streamed reply/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("a provider stream that breaks while recording", () => {
  it("Anthropic: a stream ending before message_stop is refused as broken", async () => {
    const { bb, out } = session("cut-anthropic", fx.fake.anthropicUrl, "anthropic");
    const client = new Anthropic({
      apiKey: "sk-ant-test-0000",
      baseURL: fx.fake.anthropicUrl,
      fetch: bb.fetch,
      maxRetries: 0,
    });
    const events = anthropicSSE(reply);
    fx.fake.enqueue({ sse: events.slice(0, -2), chunkSize: 3, delayMs: 1 }); // no message_delta, no message_stop
    let text = "";
    for await (const ev of await client.messages.create({ ...params, stream: true })) {
      if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
    }
    expect(text).toBe(reply.text); // the agent got every byte the provider sent
    await expect(bb.finish()).rejects.toThrow(/Anthropic stream broke: it ended before message_stop/);
    expect(existsSync(out)).toBe(false);
  });

  it("OpenAI: a stream ending before [DONE] is refused as broken", async () => {
    const { bb, out } = session("cut-openai", fx.fake.openaiUrl, "openai");
    const client = new OpenAI({ apiKey: "sk-test-0000", baseURL: fx.fake.openaiUrl, fetch: bb.fetch, maxRetries: 0 });
    const chunks = openaiSSE(reply);
    fx.fake.enqueue({ sse: chunks.slice(0, 3), chunkSize: 4 }); // role + first content pieces only
    for await (const _ of await client.chat.completions.create({ ...oaParams, stream: true })) {
      // read to the end
    }
    await expect(bb.finish()).rejects.toThrow(/OpenAI stream broke: it ended before a finish_reason/);
    expect(existsSync(out)).toBe(false);
  });

  it("Anthropic: an error event mid-stream reaches the agent and finish() refuses, naming the error", async () => {
    const { bb, out } = session("error-anthropic", fx.fake.anthropicUrl, "anthropic");
    const client = new Anthropic({
      apiKey: "sk-ant-test-0000",
      baseURL: fx.fake.anthropicUrl,
      fetch: bb.fetch,
      maxRetries: 0,
    });
    const events = anthropicSSE(reply).slice(0, 4);
    events.push(
      `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`,
    );
    fx.fake.enqueue({ sse: events, chunkSize: 5, delayMs: 1 });
    const read = async () => {
      for await (const _ of await client.messages.create({ ...params, stream: true })) {
        // the SDK throws on the error event
      }
    };
    await expect(read()).rejects.toThrow(/Overloaded/);
    await expect(bb.finish()).rejects.toThrow(/an error event from the provider \(overloaded_error: Overloaded\)/);
    expect(existsSync(out)).toBe(false);
  });

  describe("the connection drops mid-stream", () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(anthropicSSE(reply).slice(0, 3).join(""));
          setTimeout(() => res.destroy(), 20);
        });
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it("Anthropic: the agent's SDK sees the failure and finish() refuses, naming it", async () => {
      const { bb, out } = session("drop-anthropic", url, "anthropic");
      const client = new Anthropic({ apiKey: "sk-ant-test-0000", baseURL: url, fetch: bb.fetch, maxRetries: 0 });
      const read = async () => {
        for await (const _ of await client.messages.create({ ...params, stream: true })) {
          // read until it fails
        }
      };
      await expect(read()).rejects.toThrow();
      await expect(bb.finish()).rejects.toThrow(
        /provider's stream broke before it ended.*not recorded\. Record the run again/,
      );
      expect(existsSync(out)).toBe(false);
    });
  });
});
