/**
 * A served reply (replay, fork --script) carries Blackbox's request id under the one header
 * its provider answers with and its SDK reads: Anthropic `request-id`, OpenAI
 * `x-request-id` (`_request_id` on the SDK's result), plain and streamed alike.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { join } from "node:path";
import { expect, test } from "vitest";
import { blackbox } from "../../src/index.js";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiSSE,
  useFakeProvider,
} from "../helpers/fakeProvider.js";

const fx = useFakeProvider("bbx-reqid-");

/** Two calls, the first plain, the second streamed: what the agent saw of each reply's headers. */
type Calls = (fetch: typeof globalThis.fetch) => Promise<{ sdkIds: unknown[]; headers: Headers[] }>;

const anthropicCalls: Calls = async (fetch) => {
  const client = new Anthropic({
    apiKey: "sk-ant-test-0000000000",
    baseURL: fx.fake.anthropicUrl,
    fetch,
    maxRetries: 0,
  });
  const ask = { model: "claude-sonnet-4-6", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };
  const plain = await client.messages.create(ask).withResponse();
  const streamed = await client.messages.create({ ...ask, stream: true }).withResponse();
  for await (const _ of streamed.data) void _;
  return {
    sdkIds: [(plain.data as { _request_id?: unknown })._request_id, plain.request_id, streamed.request_id],
    headers: [plain.response.headers, streamed.response.headers],
  };
};

const openaiCalls: Calls = async (fetch) => {
  const client = new OpenAI({ apiKey: "sk-test-0000000000", baseURL: fx.fake.openaiUrl, fetch, maxRetries: 0 });
  const ask = { model: "gpt-4o", messages: [{ role: "user" as const, content: "hi" }] };
  const plain = await client.chat.completions.create(ask).withResponse();
  const streamed = await client.chat.completions.create({ ...ask, stream: true }).withResponse();
  for await (const _ of streamed.data) void _;
  return {
    sdkIds: [(plain.data as { _request_id?: unknown })._request_id, plain.request_id, streamed.request_id],
    headers: [plain.response.headers, streamed.response.headers],
  };
};

const cases = [
  {
    name: "anthropic",
    calls: anthropicCalls,
    header: "request-id",
    other: "x-request-id",
    replies: () => [{ json: anthropicMessage({ text: "hello" }) }, { sse: anthropicSSE({ text: "hello" }) }],
  },
  {
    name: "openai",
    calls: openaiCalls,
    header: "x-request-id",
    other: "request-id",
    replies: () => [{ json: openaiCompletion({ text: "hello" }) }, { sse: openaiSSE({ text: "hello" }) }],
  },
] as const;

test.each(cases)(
  "$name: replayed replies carry bbx_req-N under $header only, and the SDK reads it",
  async ({ name, calls, header, other, replies }) => {
    const file = join(fx.dir, `${name}.json`);
    fx.fake.enqueue(...replies());
    const rec = blackbox({ mode: "record", out: file });
    await calls(rec.fetch);
    await rec.finish({ result: "hello" });

    const bb = blackbox({ mode: "replay", cassette: file });
    const seen = await calls(bb.fetch);
    await bb.finish({ result: "hello" });
    expect(seen.sdkIds).toEqual(["bbx_req-0", "bbx_req-0", "bbx_req-1"]);
    expect(seen.headers.map((h) => h.get(header))).toEqual(["bbx_req-0", "bbx_req-1"]);
    expect(seen.headers.map((h) => h.get(other))).toEqual([null, null]);
  },
);
