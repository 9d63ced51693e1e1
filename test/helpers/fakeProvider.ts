/**
 * A fake provider HTTP server on 127.0.0.1:0 that speaks both wire formats. Tests queue
 * replies with `enqueue`; each request takes the next one (any path), is recorded in
 * `requests`, and an unqueued request gets a 500 that says so (with x-should-retry: false).
 *
 * Anthropic SDK: `baseURL: fake.anthropicUrl` (it appends /v1/messages).
 * OpenAI SDK:    `baseURL: fake.openaiUrl` (…/v1, it appends /chat/completions or /responses).
 * Gemini:        `httpOptions: { baseUrl: fake.geminiUrl }` (@google/genai appends /v1beta/models/...),
 *                `baseURL: fake.geminiUrl + "/v1beta"` (@ai-sdk/google); bodies in geminiWire.ts.
 * Bedrock:       `endpoint: fake.url` (AWS_ENDPOINT_URL_BEDROCK_RUNTIME; it appends /model/{id}/converse and
 *                /converse-stream, answered with `bedrockConverse` and `bedrockConverseStream`).
 *
 * POST …/responses is answered as the Responses API answers it: a queued reply that is a
 * Response (`openaiResponse`, `openaiResponseSSE`) is stored under its `resp_…` id unless
 * the request said `store: false` (and so are its output items), and a request whose
 * `previous_response_id` or `item_reference` names nothing stored, or whose input items
 * carry ids the API would not take, gets the API's 400 (without taking a queued reply).
 *
 * `startFakeProvider({ respond })`: replies that react to the request (say, to the tool
 * results it carries, `toolResultsIn`), so a run's outcome follows what its tools returned
 * whatever order concurrent runs ask in; `respond` returning undefined leaves the request to
 * the queue. Without it, the queue alone answers, as before.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll } from "vitest";
import { geminiResultsIn } from "./geminiWire.js";

export type FakeReply =
  | { json: object; status?: number; headers?: Record<string, string>; delayMs?: number }
  | { sse: string[]; chunkSize?: number; delayMs?: number; status?: number }
  /** Bedrock ConverseStream: AWS event-stream frames, sent cut into `chunkSize`-byte pieces (default 7). */
  | { eventstream: Uint8Array[]; chunkSize?: number; delayMs?: number; status?: number };

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
  geminiUrl: string;
  enqueue(...replies: FakeReply[]): void;
  requests: FakeRequest[];
  /** Response ids the fake holds (served to a request not saying store: false), which previous_response_id may name. */
  readonly storedResponses: ReadonlySet<string>;
  /** Replies still queued. */
  readonly pending: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The id prefix the Responses API takes on an input item of each type. */
const ITEM_ID_PREFIX: Record<string, string> = { message: "msg", function_call: "fc", reasoning: "rs" };

/** The 400 the Responses API answers a request with that it cannot take, else undefined. */
function responsesRejection(
  body: unknown,
  stored: ReadonlySet<string>,
  storedItems: ReadonlySet<string>,
): object | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  const error = (message: string, param: string, code: string) => ({
    error: { message, type: "invalid_request_error", param, code },
  });
  const previous = b.previous_response_id;
  if (typeof previous === "string" && !stored.has(previous))
    return error(
      `Previous response with id '${previous}' not found.`,
      "previous_response_id",
      "previous_response_not_found",
    );
  const input = Array.isArray(b.input) ? b.input : [];
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as Record<string, unknown> | null;
    if (!item || typeof item.id !== "string") continue;
    if (item.type === "item_reference") {
      if (!storedItems.has(item.id))
        return error(`Item with id '${item.id}' not found.`, `input[${i}]`, "invalid_value");
      continue;
    }
    const prefix = ITEM_ID_PREFIX[typeof item.type === "string" ? item.type : "message"];
    if (prefix && !item.id.startsWith(`${prefix}_`))
      return error(
        `Invalid 'input[${i}].id': '${item.id}'. Expected an ID that begins with '${prefix}'.`,
        `input[${i}].id`,
        "invalid_value",
      );
  }
  return undefined;
}

/** A queued reply that is a Responses API Response (JSON, or the final event of a stream), else undefined. */
function responseOf(reply: FakeReply): { id: string; itemIds: string[] } | undefined {
  let r: Record<string, unknown> | undefined;
  if ("json" in reply) r = reply.json as Record<string, unknown>;
  else if ("eventstream" in reply) return undefined;
  else {
    const final = reply.sse.find((e) => /^event: response\.(completed|incomplete)\n/.test(e));
    const data = final?.split("\n").find((l) => l.startsWith("data: "));
    r = data
      ? ((JSON.parse(data.slice(6)) as { response?: Record<string, unknown> }).response ?? undefined)
      : undefined;
  }
  if (!r || r.object !== "response" || typeof r.id !== "string") return undefined;
  const output = Array.isArray(r.output) ? (r.output as Record<string, unknown>[]) : [];
  return { id: r.id, itemIds: output.flatMap((o) => (typeof o.id === "string" ? [o.id] : [])) };
}

export interface FakeProviderOptions {
  /** A reply made from the request, tried before the queue; undefined: the queue answers. */
  respond?: (request: FakeRequest) => FakeReply | undefined;
}

/** The tool results a chat request carries, oldest first, as the text sent (Anthropic tool_result blocks, OpenAI tool messages). */
export function toolResultsIn(body: unknown): string[] {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  const contents = (body as { contents?: unknown } | undefined)?.contents;
  if (Array.isArray(contents)) return geminiResultsIn(contents);
  if (!Array.isArray(messages)) return [];
  const out: string[] = [];
  for (const m of messages as Array<Record<string, unknown>>) {
    if (m.role === "tool") out.push(typeof m.content === "string" ? m.content : JSON.stringify(m.content));
    if (m.role !== "user" || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<Record<string, unknown>>) {
      if (b.type === "tool_result") out.push(typeof b.content === "string" ? b.content : JSON.stringify(b.content));
    }
  }
  return out;
}

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const stored = new Set<string>();
  const storedItems = new Set<string>();
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
    const request = { method, path, headers: req.headers, body };
    requests.push(request);
    const responsesApi = method === "POST" && /\/responses\/?(\?|$)/.test(path);
    const rejection = responsesApi ? responsesRejection(body, stored, storedItems) : undefined;
    if (rejection) {
      res.writeHead(400, { "content-type": "application/json", "x-request-id": "req_fake400" });
      res.end(JSON.stringify(rejection));
      return;
    }
    const reply = options.respond?.(request) ?? queue.shift();
    if (!reply) {
      res.writeHead(500, { "content-type": "application/json", "x-should-retry": "false" });
      res.end(
        JSON.stringify({
          type: "error",
          error: {
            type: "fake_provider_error",
            message: `fake provider: no reply queued for ${method} ${path}; call enqueue() before the request`,
          },
        }),
      );
      return;
    }
    const response = responsesApi && !("eventstream" in reply) ? responseOf(reply) : undefined;
    if (response && (body as { store?: unknown } | undefined)?.store !== false) {
      stored.add(response.id);
      for (const id of response.itemIds) storedItems.add(id);
    }
    if ("json" in reply) {
      if (reply.delayMs) await sleep(reply.delayMs); // a slow reply: the call stays in flight
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.json));
      return;
    }
    const framed = "eventstream" in reply;
    res.writeHead(reply.status ?? 200, {
      "content-type": framed ? "application/vnd.amazon.eventstream" : "text/event-stream",
      "cache-control": "no-cache",
    });
    const bytes = framed ? Buffer.concat(reply.eventstream) : Buffer.from(reply.sse.join(""), "utf8");
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
    geminiUrl: url,
    enqueue: (...replies) => void queue.push(...replies),
    requests,
    storedResponses: stored,
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
  for (const t of c.toolCalls ?? [])
    content.push({ type: "tool_use", id: rid("toolu_01"), name: t.name, input: t.input });
  return {
    id: rid("msg_01"),
    type: "message",
    role: "assistant",
    model: c.model ?? "claude-sonnet-4-5-20250929",
    content,
    stop_reason: c.stop ?? (c.toolCalls?.length ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: 321,
      output_tokens: 54,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: "standard",
    },
  };
}

export function openaiCompletion(c: FakeContent & { refusal?: string } = {}): Record<string, unknown> {
  const calls = (c.toolCalls ?? []).map((t) => ({
    id: rid("call_"),
    type: "function",
    function: { name: t.name, arguments: JSON.stringify(t.input) },
  }));
  const message: Record<string, unknown> = {
    role: "assistant",
    content: c.refusal ? null : (c.text ?? null),
    refusal: c.refusal ?? null,
    annotations: [],
  };
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
  const out = [
    ev("message_start", {
      type: "message_start",
      message: { ...m, content: [], stop_reason: null, usage: { input_tokens: 321, output_tokens: 1 } },
    }),
  ];
  out.push(ev("ping", { type: "ping" }));
  (m.content as Record<string, unknown>[]).forEach((b, index) => {
    if (b.type === "text") {
      out.push(
        ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }),
      );
      for (const p of pieces(b.text as string))
        out.push(
          ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: p } }),
        );
    } else {
      out.push(ev("content_block_start", { type: "content_block_start", index, content_block: { ...b, input: {} } }));
      for (const p of pieces(JSON.stringify(b.input))) {
        out.push(
          ev("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: p },
          }),
        );
      }
    }
    out.push(ev("content_block_stop", { type: "content_block_stop", index }));
  });
  out.push(
    ev("message_delta", {
      type: "message_delta",
      delta: { stop_reason: m.stop_reason, stop_sequence: null },
      usage: { output_tokens: 54 },
    }),
  );
  out.push(ev("message_stop", { type: "message_stop" }));
  return out;
}

export function openaiSSE(c: FakeContent & { refusal?: string } = {}): string[] {
  const full = openaiCompletion(c);
  const choice = (full.choices as Record<string, unknown>[])[0]!;
  const msg = choice.message as Record<string, unknown>;
  const base = {
    id: full.id,
    object: "chat.completion.chunk",
    created: full.created,
    model: full.model,
    system_fingerprint: full.system_fingerprint,
    service_tier: "default",
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const out = [chunk({ role: "assistant", content: "", refusal: null })];
  if (typeof msg.content === "string") for (const p of pieces(msg.content)) out.push(chunk({ content: p }));
  if (typeof msg.refusal === "string") for (const p of pieces(msg.refusal)) out.push(chunk({ refusal: p }));
  ((msg.tool_calls ?? []) as Record<string, any>[]).forEach((t, index) => {
    out.push(
      chunk({
        tool_calls: [{ index, id: t.id, type: "function", function: { name: t.function.name, arguments: "" } }],
      }),
    );
    for (const p of pieces(t.function.arguments))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, choice.finish_reason as string));
  out.push(`data: ${JSON.stringify({ ...base, choices: [], usage: full.usage })}\n\n`);
  out.push("data: [DONE]\n\n");
  return out;
}

export interface FakeResponseContent extends FakeContent {
  refusal?: string;
  /** A reasoning item first, as reasoning models answer (with `encrypted_content` when a string). */
  reasoning?: boolean | string;
  /** status "incomplete" for this reason (max_output_tokens, content_filter). */
  incomplete?: string;
  /** Echoed as the API echoes the request's. */
  previousResponseId?: string;
  store?: boolean;
}

/** A Responses API Response body as the API returns it (provider ids, usage, the request's controls echoed). */
export function openaiResponse(c: FakeResponseContent = {}): Record<string, unknown> {
  const output: Record<string, unknown>[] = [];
  const done = c.incomplete ? "incomplete" : "completed";
  if (c.reasoning) {
    const r: Record<string, unknown> = { id: rid("rs_0"), type: "reasoning", summary: [] };
    if (typeof c.reasoning === "string") r.encrypted_content = c.reasoning;
    output.push(r);
  }
  const content: Record<string, unknown>[] = [];
  if (c.text !== undefined) content.push({ type: "output_text", annotations: [], logprobs: [], text: c.text });
  if (c.refusal !== undefined) content.push({ type: "refusal", refusal: c.refusal });
  if (content.length) output.push({ id: rid("msg_0"), type: "message", status: done, content, role: "assistant" });
  for (const t of c.toolCalls ?? []) {
    output.push({
      id: rid("fc_0"),
      type: "function_call",
      status: "completed",
      arguments: JSON.stringify(t.input),
      call_id: rid("call_"),
      name: t.name,
    });
  }
  return {
    id: rid("resp_0"),
    object: "response",
    created_at: 1_760_000_000,
    status: done,
    background: false,
    error: null,
    incomplete_details: c.incomplete ? { reason: c.incomplete } : null,
    instructions: null,
    max_output_tokens: null,
    max_tool_calls: null,
    model: c.model ?? "gpt-4.1-2025-04-14",
    output,
    parallel_tool_calls: true,
    previous_response_id: c.previousResponseId ?? null,
    prompt_cache_key: null,
    reasoning: { effort: c.reasoning ? "medium" : null, summary: null },
    safety_identifier: null,
    service_tier: "default",
    store: c.store ?? true,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_logprobs: 0,
    top_p: 1,
    truncation: "disabled",
    usage: {
      input_tokens: 88,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 17,
      output_tokens_details: { reasoning_tokens: c.reasoning ? 64 : 0 },
      total_tokens: 105,
    },
    user: null,
    metadata: {},
  };
}

/**
 * The same Response as the API streams it: named events numbered by `sequence_number` from
 * 0, text and arguments in several deltas carrying `obfuscation` padding, each part and item
 * opened, filled and closed, then response.completed (or response.incomplete) with the whole
 * response.
 */
export function openaiResponseSSE(c: FakeResponseContent = {}): string[] {
  const full = openaiResponse(c);
  const out: string[] = [];
  let seq = 0;
  const emit = (type: string, fields: Record<string, unknown>) =>
    out.push(ev(type, { type, sequence_number: seq++, ...fields }));
  const started = { ...full, status: "in_progress", incomplete_details: null, output: [], usage: null };
  emit("response.created", { response: started });
  emit("response.in_progress", { response: started });
  const pad = () => "x".repeat(1 + (seq % 9));
  (full.output as Record<string, any>[]).forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "message") {
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      (item.content as Record<string, any>[]).forEach((part, content_index) => {
        const at = { item_id, output_index, content_index };
        if (part.type === "refusal") {
          emit("response.content_part.added", { ...at, part: { type: "refusal", refusal: "" } });
          for (const p of pieces(part.refusal)) emit("response.refusal.delta", { ...at, delta: p });
          emit("response.refusal.done", { ...at, refusal: part.refusal });
        } else {
          emit("response.content_part.added", { ...at, part: { ...part, text: "" } });
          for (const p of pieces(part.text))
            emit("response.output_text.delta", { ...at, delta: p, logprobs: [], obfuscation: pad() });
          emit("response.output_text.done", { ...at, text: part.text, logprobs: [] });
        }
        emit("response.content_part.done", { ...at, part });
      });
    } else if (item.type === "function_call") {
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const p of pieces(item.arguments))
        emit("response.function_call_arguments.delta", { item_id, output_index, delta: p, obfuscation: pad() });
      emit("response.function_call_arguments.done", {
        item_id,
        output_index,
        name: item.name,
        arguments: item.arguments,
      });
    } else {
      emit("response.output_item.added", { output_index, item });
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit(full.status === "incomplete" ? "response.incomplete" : "response.completed", { response: full });
  return out;
}

/**
 * For a test file: a fake provider and a temp directory, started before its tests and
 * closed (removed) after them. Read `fake` and `dir` inside tests, not at load.
 */
// --- Amazon Bedrock Converse ---

/** A Converse reply as Bedrock sends it (`tooluse_…` ids, usage, metrics). */
export function bedrockConverse(c: FakeContent = {}): Record<string, unknown> {
  const content: unknown[] = [];
  if (c.text !== undefined) content.push({ text: c.text });
  for (const t of c.toolCalls ?? [])
    content.push({ toolUse: { toolUseId: rid("tooluse_"), name: t.name, input: t.input } });
  return {
    output: { message: { role: "assistant", content } },
    stopReason: c.stop ?? (c.toolCalls?.length ? "tool_use" : "end_turn"),
    usage: { inputTokens: 25, outputTokens: 12, totalTokens: 37 },
    metrics: { latencyMs: 321 },
  };
}

/** One AWS event-stream message (written here with zlib's CRC-32, apart from Blackbox's own codec). */
export function eventFrame(headers: Record<string, string>, payload: string): Uint8Array {
  const hs = Buffer.concat(
    Object.entries(headers).map(([k, v]) => {
      const name = Buffer.from(k);
      const value = Buffer.from(v);
      const len = Buffer.alloc(2);
      len.writeUInt16BE(value.length);
      return Buffer.concat([Buffer.from([name.length]), name, Buffer.from([7]), len, value]);
    }),
  );
  const body = Buffer.from(payload);
  const total = 16 + hs.length + body.length;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(hs.length, 4);
  const pcrc = Buffer.alloc(4);
  pcrc.writeUInt32BE(crc32(prelude));
  const head = Buffer.concat([prelude, pcrc, hs, body]);
  const mcrc = Buffer.alloc(4);
  mcrc.writeUInt32BE(crc32(head));
  return Buffer.concat([head, mcrc]);
}

const bedrockEvent = (type: string, data: unknown) =>
  eventFrame(
    { ":event-type": type, ":content-type": "application/json", ":message-type": "event" },
    JSON.stringify({
      ...(data as object),
      p: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDE".slice(0, 7),
    }),
  );

/** A ConverseStream reply as Bedrock frames it: text in pieces, tool input JSON in pieces, usage last. */
export function bedrockConverseStream(c: FakeContent = {}): Uint8Array[] {
  const frames: Uint8Array[] = [bedrockEvent("messageStart", { role: "assistant" })];
  let index = 0;
  if (c.text !== undefined) {
    for (const t of pieces(c.text))
      frames.push(bedrockEvent("contentBlockDelta", { contentBlockIndex: index, delta: { text: t } }));
    frames.push(bedrockEvent("contentBlockStop", { contentBlockIndex: index++ }));
  }
  for (const t of c.toolCalls ?? []) {
    frames.push(
      bedrockEvent("contentBlockStart", {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: rid("tooluse_"), name: t.name } },
      }),
    );
    for (const j of pieces(JSON.stringify(t.input)))
      frames.push(bedrockEvent("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: j } } }));
    frames.push(bedrockEvent("contentBlockStop", { contentBlockIndex: index++ }));
  }
  frames.push(bedrockEvent("messageStop", { stopReason: c.stop ?? (c.toolCalls?.length ? "tool_use" : "end_turn") }));
  frames.push(
    bedrockEvent("metadata", {
      usage: { inputTokens: 25, outputTokens: 12, totalTokens: 37 },
      metrics: { latencyMs: 321 },
    }),
  );
  return frames;
}

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
