/**
 * A fake provider HTTP server on 127.0.0.1:0 that speaks both wire formats. Tests queue
 * replies with `enqueue`; each request takes the next one (any path), is recorded in
 * `requests`, and an unqueued request gets a 500 that says so (with x-should-retry: false).
 *
 * Anthropic SDK: `baseURL: fake.anthropicUrl` (it appends /v1/messages).
 * OpenAI SDK:    `baseURL: fake.openaiUrl` (…/v1, it appends /chat/completions).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export type FakeReply =
  | { json: object; status?: number; headers?: Record<string, string>; delayMs?: number }
  | { sse: string[]; chunkSize?: number; delayMs?: number; status?: number };

export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (the raw text when it is not JSON; undefined when empty). */
  body: unknown;
}

export interface FakeProvider {
  url: string;
  anthropicUrl: string;
  openaiUrl: string;
  enqueue(...replies: FakeReply[]): void;
  requests: FakeRequest[];
  /** Replies still queued. */
  readonly pending: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startFakeProvider(): Promise<FakeProvider> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text === "" ? undefined : text;
    try {
      if (text !== "") body = JSON.parse(text);
    } catch {
      // keep the raw text
    }
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    requests.push({ method, path, headers: req.headers, body });
    const reply = queue.shift();
    if (!reply) {
      res.writeHead(500, { "content-type": "application/json", "x-should-retry": "false" });
      res.end(JSON.stringify({
        type: "error",
        error: { type: "fake_provider_error", message: `fake provider: no reply queued for ${method} ${path}; call enqueue() before the request` },
      }));
      return;
    }
    if ("json" in reply) {
      if (reply.delayMs) await sleep(reply.delayMs); // a slow reply: the call stays in flight
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.json));
      return;
    }
    res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const bytes = Buffer.from(reply.sse.join(""), "utf8");
    const size = Math.max(1, reply.chunkSize ?? 7);
    for (let i = 0; i < bytes.length; i += size) {
      res.write(bytes.subarray(i, i + size)); // may split a UTF-8 sequence or a JSON value: on purpose
      if (reply.delayMs) await sleep(reply.delayMs);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    anthropicUrl: url,
    openaiUrl: `${url}/v1`,
    enqueue: (...replies) => void queue.push(...replies),
    requests,
    get pending() {
      return queue.length;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

// ---------------------------------------------------------------------------
// Realistic bodies, with provider ids and usage (so tests prove none leaks).

export interface FakeContent {
  text?: string;
  toolCalls?: { name: string; input: unknown }[];
  /** Anthropic stop_reason / OpenAI finish_reason; derived from the content when absent. */
  stop?: string;
  model?: string;
}

let counter = 0;
const rid = (prefix: string) => `${prefix}${(++counter).toString(36).padStart(6, "0")}Xy9Qz`;

export function anthropicMessage(c: FakeContent = {}): Record<string, unknown> {
  const content: unknown[] = [];
  if (c.text !== undefined) content.push({ type: "text", text: c.text });
  for (const t of c.toolCalls ?? []) content.push({ type: "tool_use", id: rid("toolu_01"), name: t.name, input: t.input });
  return {
    id: rid("msg_01"),
    type: "message",
    role: "assistant",
    model: c.model ?? "claude-sonnet-4-5-20250929",
    content,
    stop_reason: c.stop ?? (c.toolCalls?.length ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: { input_tokens: 321, output_tokens: 54, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: "standard" },
  };
}

export function openaiCompletion(c: FakeContent & { refusal?: string } = {}): Record<string, unknown> {
  const calls = (c.toolCalls ?? []).map((t) => ({
    id: rid("call_"), type: "function", function: { name: t.name, arguments: JSON.stringify(t.input) },
  }));
  const message: Record<string, unknown> = { role: "assistant", content: c.refusal ? null : c.text ?? null, refusal: c.refusal ?? null, annotations: [] };
  if (calls.length) message.tool_calls = calls;
  return {
    id: rid("chatcmpl-"),
    object: "chat.completion",
    created: 1_760_000_000,
    model: c.model ?? "gpt-4.1-2025-04-14",
    choices: [{ index: 0, message, logprobs: null, finish_reason: c.stop ?? (calls.length ? "tool_calls" : "stop") }],
    usage: { prompt_tokens: 88, completion_tokens: 17, total_tokens: 105, prompt_tokens_details: { cached_tokens: 0 } },
    service_tier: "default",
    system_fingerprint: "fp_abc123",
  };
}

const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
/** Cut a string in a few pieces (by code point, so each piece is valid UTF-16). */
function pieces(s: string, n = 3): string[] {
  const cps = Array.from(s);
  const size = Math.max(1, Math.ceil(cps.length / n));
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

export function anthropicSSE(c: FakeContent = {}): string[] {
  const m = anthropicMessage(c);
  const out = [ev("message_start", { type: "message_start", message: { ...m, content: [], stop_reason: null, usage: { input_tokens: 321, output_tokens: 1 } } })];
  out.push(ev("ping", { type: "ping" }));
  (m.content as Record<string, unknown>[]).forEach((b, index) => {
    if (b.type === "text") {
      out.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      for (const p of pieces(b.text as string)) out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: p } }));
    } else {
      out.push(ev("content_block_start", { type: "content_block_start", index, content_block: { ...b, input: {} } }));
      for (const p of pieces(JSON.stringify(b.input))) {
        out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
      }
    }
    out.push(ev("content_block_stop", { type: "content_block_stop", index }));
  });
  out.push(ev("message_delta", { type: "message_delta", delta: { stop_reason: m.stop_reason, stop_sequence: null }, usage: { output_tokens: 54 } }));
  out.push(ev("message_stop", { type: "message_stop" }));
  return out;
}

export function openaiSSE(c: FakeContent & { refusal?: string } = {}): string[] {
  const full = openaiCompletion(c);
  const choice = (full.choices as Record<string, unknown>[])[0]!;
  const msg = choice.message as Record<string, unknown>;
  const base = { id: full.id, object: "chat.completion.chunk", created: full.created, model: full.model, system_fingerprint: full.system_fingerprint, service_tier: "default" };
  const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const out = [chunk({ role: "assistant", content: "", refusal: null })];
  if (typeof msg.content === "string") for (const p of pieces(msg.content)) out.push(chunk({ content: p }));
  if (typeof msg.refusal === "string") for (const p of pieces(msg.refusal)) out.push(chunk({ refusal: p }));
  ((msg.tool_calls ?? []) as Record<string, any>[]).forEach((t, index) => {
    out.push(chunk({ tool_calls: [{ index, id: t.id, type: "function", function: { name: t.function.name, arguments: "" } }] }));
    for (const p of pieces(t.function.arguments)) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, choice.finish_reason as string));
  out.push(`data: ${JSON.stringify({ ...base, choices: [], usage: full.usage })}\n\n`);
  out.push("data: [DONE]\n\n");
  return out;
}

/**
 * For a test file: a fake provider and a temp directory, started before its tests and
 * closed (removed) after them. Read `fake` and `dir` inside tests, not at load.
 */
export function useFakeProvider(dirPrefix: string): { readonly fake: FakeProvider; readonly dir: string } {
  const env = {} as { fake: FakeProvider; dir: string };
  beforeAll(async () => {
    env.fake = await startFakeProvider();
    env.dir = mkdtempSync(join(tmpdir(), dirPrefix));
  });
  afterAll(async () => {
    await env.fake?.close();
    if (env.dir) rmSync(env.dir, { recursive: true, force: true });
  });
  return env;
}
