/**
 * Anthropic Messages streaming, both ways. Recording: the event stream is folded
 * back into the Message body a non-streamed call would have returned, and that body
 * goes through the adapter's own parseResponse, so a streamed reply and a plain one
 * give the same ModelOutput. Replay: the adapter's buildResponse body is unfolded
 * into the event sequence the SDK expects. Pure.
 */
import type { JsonValue, ModelOutput } from "../../trace/types.js";
import { buildResponse, parseResponse } from "./response.js";
import type { ToolCallIds } from "../shared/ids.js";
import { refuse } from "../shared/wire.js";
import { formatSse, type SseEvent, sseAssembler } from "../shared/sse.js";
import type { ParsedModelRequest, StreamAssembler } from "../types.js";

type Obj = Record<string, unknown>;

/** Folds Anthropic stream events into the equivalent non-streamed Message body. */
export class AnthropicMessageFolder {
  private message: Obj | undefined;
  private blocks: Obj[] = [];
  private json = new Map<number, string>();
  private stopped = false;
  /** The first tool_use block whose input JSON did not parse. */
  private truncated: number | undefined;
  /** The first problem seen; finish() reports it. */
  problem: string | undefined;

  event(ev: SseEvent): void {
    if (this.problem !== undefined || ev.event === "ping") return;
    if (ev.event === undefined || ev.data === "") return; // the SDK skips unnamed events too
    let data: Obj;
    try {
      data = JSON.parse(ev.data) as Obj;
    } catch {
      this.problem = `an event "${ev.event}" whose data is not JSON`;
      return;
    }
    if (ev.event === "error" || data.type === "error") {
      const err = (data.error ?? {}) as Obj;
      this.problem = `an error event from the provider (${String(err.type ?? "error")}: ${String(err.message ?? ev.data)})`;
      return;
    }
    this.apply(data);
  }

  private apply(e: Obj): void {
    const index = typeof e.index === "number" ? e.index : -1;
    switch (e.type) {
      case "message_start":
        this.message = { ...(e.message as Obj) };
        return;
      case "content_block_start":
        this.blocks[index] = { ...(e.content_block as Obj) };
        return;
      case "content_block_delta":
        return this.delta(index, e.delta as Obj);
      case "content_block_stop": {
        const buf = this.json.get(index);
        const block = this.blocks[index];
        if (buf !== undefined && block) {
          try {
            block.input = buf === "" ? {} : (JSON.parse(buf) as JsonValue);
          } catch {
            // Cut short by max_tokens, the tool input is truncated JSON: the SDK's helpers
            // partial-parse it and the agent gets a whole message. Kept raw, it is given
            // back as the same partial_json (body() refuses it on any other stop).
            block.input = buf;
            this.truncated ??= index;
          }
        }
        return;
      }
      case "message_delta": {
        if (this.message) Object.assign(this.message, e.delta as Obj);
        const usage = e.usage as Obj | undefined;
        if (this.message && usage) this.message.usage = { ...((this.message.usage as Obj) ?? {}), ...usage };
        return;
      }
      case "message_stop":
        this.stopped = true;
        return;
      default:
        return; // future event types carry nothing the neutral output keeps
    }
  }

  private delta(index: number, d: Obj): void {
    const block = this.blocks[index];
    if (!block) {
      this.problem = `a delta for content block ${index} before its content_block_start`;
      return;
    }
    switch (d.type) {
      case "text_delta":
        block.text = String(block.text ?? "") + String(d.text);
        return;
      case "input_json_delta":
        this.json.set(index, (this.json.get(index) ?? "") + String(d.partial_json));
        return;
      case "thinking_delta":
        block.thinking = String(block.thinking ?? "") + String(d.thinking);
        return;
      case "signature_delta":
        block.signature = d.signature;
        return;
      case "citations_delta":
        block.citations = [...((block.citations as unknown[]) ?? []), d.citation];
        return;
      default:
        this.problem = `a content delta of type "${String(d.type)}" that Blackbox cannot assemble`;
    }
  }

  /** message_stop arrived and nothing went wrong before it. */
  get complete(): boolean {
    return this.problem === undefined && this.message !== undefined && this.stopped;
  }

  /** The assembled Message body; throws when the stream broke or was not understood. */
  body(): Obj {
    if (this.problem !== undefined) {
      refuse(
        `The Anthropic stream could not be recorded: it contained ${this.problem}. ` +
          "Blackbox records only complete replies: retry the call, or record without stream: true.",
      );
    }
    if (!this.message || !this.stopped) {
      const got = !this.message ? "before message_start" : "before message_stop";
      refuse(
        `The Anthropic stream broke: it ended ${got}, so the reply is incomplete and cannot be recorded. ` +
          "Retry the call (the agent saw the same broken stream), or record again when the provider is stable.",
      );
    }
    if (this.truncated !== undefined && this.message.stop_reason !== "max_tokens") {
      const buf = String(this.blocks[this.truncated]?.input ?? "");
      refuse(
        `The Anthropic stream could not be recorded: it contained tool input of content block ${this.truncated} that is not valid JSON (${buf.slice(0, 80)}) ` +
          `although the reply stopped on ${JSON.stringify(this.message.stop_reason)}, not max_tokens. ` +
          "Blackbox records only complete replies: retry the call, or record without stream: true.",
      );
    }
    return { ...this.message, content: this.blocks.filter((b) => b !== undefined) };
  }
}

export function createAssembler(ids: ToolCallIds): StreamAssembler {
  return sseAssembler(new AnthropicMessageFolder(), (body) => parseResponse(body as Obj, ids));
}

/** The SSE text of a Message body, as the API streams it (one delta per block). */
export function messageToSse(body: Obj): string {
  const content = (body.content as Obj[]) ?? [];
  const usage = (body.usage as Obj) ?? {};
  const out: string[] = [];
  const emit = (type: string, data: Obj): void => {
    out.push(formatSse({ event: type, data: JSON.stringify({ type, ...data }) }));
  };
  emit("message_start", {
    message: { ...body, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } },
  });
  content.forEach((block, index) => {
    if (block.type === "tool_use") {
      emit("content_block_start", { index, content_block: { ...block, input: {} } });
      // a string is the raw JSON of a tool input truncated by max_tokens: given back as it came
      const partial_json = typeof block.input === "string" ? block.input : JSON.stringify(block.input ?? {});
      emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    } else if (block.type === "text") {
      emit("content_block_start", { index, content_block: { ...block, text: "" } });
      const text = String(block.text ?? "");
      if (text !== "") emit("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else {
      emit("content_block_start", { index, content_block: block });
    }
    emit("content_block_stop", { index });
  });
  emit("message_delta", {
    delta: { stop_reason: body.stop_reason ?? null, stop_sequence: body.stop_sequence ?? null },
    usage: { output_tokens: usage.output_tokens ?? 0 },
  });
  emit("message_stop", {});
  return out.join("");
}

export function synthesize(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): string {
  return messageToSse(buildResponse(output, request, ids, seq) as Obj);
}
