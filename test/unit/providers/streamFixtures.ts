/**
 * Realistic provider streams (shapes as the APIs send them) with the non-streamed
 * body each one is equivalent to, and helpers that cut bytes awkwardly.
 */

type Obj = Record<string, unknown>;

export function anthropicSse(events: Obj[], eol = "\n"): string {
  return events.map((e) => `event: ${String(e.type)}${eol}data: ${JSON.stringify(e)}${eol}${eol}`).join("");
}

export function openaiSse(chunks: (Obj | "[DONE]")[], eol = "\n"): string {
  return chunks.map((c) => `data: ${c === "[DONE]" ? c : JSON.stringify(c)}${eol}${eol}`).join("");
}

/** Fixed-size pieces. */
export function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** Cut after the first byte of every multi-byte UTF-8 character (and nowhere else). */
export function splitInsideUtf8(bytes: Uint8Array): Uint8Array[] {
  const cuts: number[] = [];
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0xc0) cuts.push(i + 1);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const c of cuts) {
    out.push(bytes.subarray(start, c));
    start = c;
  }
  out.push(bytes.subarray(start));
  return out;
}

/** Cut inside every JSON string "…" boundary of the data lines: after each `":` pair. */
export function splitInsideJson(bytes: Uint8Array): Uint8Array[] {
  const text = new TextDecoder().decode(bytes);
  const cuts: number[] = [];
  const enc = new TextEncoder();
  let idx = text.indexOf('":');
  while (idx !== -1) {
    cuts.push(enc.encode(text.slice(0, idx + 1)).length);
    idx = text.indexOf('":', idx + 1);
  }
  const out: Uint8Array[] = [];
  let start = 0;
  for (const c of cuts) {
    out.push(bytes.subarray(start, c));
    start = c;
  }
  out.push(bytes.subarray(start));
  return out;
}

export const encode = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Every way the tests cut a stream. */
export function chunkings(text: string): [string, Uint8Array[]][] {
  const bytes = encode(text);
  return [
    ["whole", [bytes]],
    ["1 byte", chunksOf(bytes, 1)],
    ["7 bytes", chunksOf(bytes, 7)],
    ["inside UTF-8 characters", splitInsideUtf8(bytes)],
    ["inside JSON", splitInsideJson(bytes)],
  ];
}

export const MULTIBYTE = "Olá — 日本語 🌍 café";

/** Split a string into pieces of about n code points (never inside a surrogate pair). */
export function pieces(s: string, n: number): string[] {
  const cps = [...s];
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(""));
  return out;
}

export type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "thinking"; thinking: string; signature: string };

/** An Anthropic reply as the API streams it, and the same reply non-streamed. */
export function anthropicReply(blocks: AnthropicBlock[], stopReason: string): { sse: string; body: Obj } {
  const id = "msg_01XFDUDYJgAACzvnptvVoYEL";
  const model = "claude-sonnet-4-5-20250929";
  const usage = {
    input_tokens: 472,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 2,
    service_tier: "standard",
  };
  const events: Obj[] = [
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    },
  ];
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      if (index === 0) events.push({ type: "ping" });
      for (const text of pieces(b.text, 4))
        events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    } else if (b.type === "tool_use") {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      });
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } });
      for (const partial_json of pieces(JSON.stringify(b.input), 5)) {
        events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
      }
    } else {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const thinking of pieces(b.thinking, 6))
        events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } });
      events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: b.signature } });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 89 },
  });
  events.push({ type: "message_stop" });
  const body = {
    id,
    type: "message",
    role: "assistant",
    model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { ...usage, output_tokens: 89 },
  };
  return { sse: anthropicSse(events), body };
}

export interface OpenAICall {
  id: string;
  name: string;
  arguments: string;
}

/** An OpenAI reply as the API streams it, and the same reply non-streamed. */
export function openaiReply(
  reply: { content?: string; refusal?: string; calls?: OpenAICall[] },
  finishReason: string,
  opts: { usageChunk?: boolean } = {},
): { sse: string; body: Obj } {
  const base = {
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    object: "chat.completion.chunk",
    created: 1741570283,
    model: "gpt-4o-2024-08-06",
    service_tier: "default",
    system_fingerprint: "fp_eb9dce56a8",
  };
  const chunk = (delta: Obj, finish_reason: string | null = null): Obj => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    ...(opts.usageChunk ? { usage: null } : {}),
  });
  const chunks: (Obj | "[DONE]")[] = [];
  const calls = reply.calls ?? [];
  if (calls.length > 0) chunks.push(chunk({ role: "assistant", content: null, refusal: null }));
  else chunks.push(chunk({ role: "assistant", content: "", refusal: null }));
  for (const content of pieces(reply.content ?? "", 3)) chunks.push(chunk({ content }));
  for (const refusal of pieces(reply.refusal ?? "", 5)) chunks.push(chunk({ refusal }));
  calls.forEach((c, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }),
    );
    for (const a of pieces(c.arguments, 4)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: a } }] }));
  });
  chunks.push(chunk({}, finishReason));
  const usage = { prompt_tokens: 82, completion_tokens: 17, total_tokens: 99 };
  if (opts.usageChunk) chunks.push({ ...base, choices: [], usage });
  chunks.push("[DONE]");
  const message: Obj = {
    role: "assistant",
    content: calls.length > 0 || reply.refusal ? (reply.content ?? null) : (reply.content ?? ""),
    refusal: reply.refusal ?? null,
    annotations: [],
  };
  if (calls.length > 0)
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  const { object: _o, ...rest } = base;
  const body = {
    ...rest,
    object: "chat.completion",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
  };
  return { sse: openaiSse(chunks), body };
}
