/**
 * Streaming by provider name. The session calls these: while recording, every byte
 * of a streamed reply passes through to the agent untouched and is also pushed into
 * an assembler, whose finish() gives the same ModelOutput a non-streamed call would;
 * in replay, synthesize() turns a recorded output into the SSE text the SDK parses.
 * Pure.
 */
import type { ModelOutput } from "../trace/types.js";
import * as anthropic from "./anthropicStream.js";
import type { ToolCallIds } from "./ids.js";
import * as openai from "./openaiStream.js";
import type { ParsedModelRequest, ProviderName } from "./types.js";

export interface StreamAssembler {
  /** Feed the bytes as they pass through to the agent, in order. Never throws. */
  push(chunk: Uint8Array): void;
  /**
   * Whether the reply's final event has arrived (Anthropic `message_stop`; OpenAI `[DONE]`
   * or a `finish_reason` on every choice), with nothing wrong so far: an agent that stops
   * reading now has read the whole reply.
   */
  complete(): boolean;
  /** Whether the events already hold what finish() would refuse (a provider error event, data it cannot read). */
  failed(): boolean;
  /**
   * The stream ended. The neutral output, or a BlackboxUnsupportedError when the stream
   * broke (no final event, a provider error event) or holds something not recordable.
   * `stoppedAfterFinalEvent`: the agent stopped reading once complete() was true, so what
   * would have come after (OpenAI's usage chunk and `[DONE]`) is not asked for.
   */
  finish(stoppedAfterFinalEvent?: boolean): ModelOutput;
  /** After finish(): the non-streamed reply body the events folded into (what parseResponse read). */
  reply(): unknown;
}

export interface StreamAdapter {
  createAssembler(ids: ToolCallIds): StreamAssembler;
  /** The complete `text/event-stream` body replaying `output` (ids via ids.wireIdFor, like buildResponse). */
  synthesize(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): string;
}

export const streamAdapters: Record<ProviderName, StreamAdapter> = {
  anthropic: { createAssembler: anthropic.createAssembler, synthesize: anthropic.synthesize },
  openai: { createAssembler: openai.createAssembler, synthesize: openai.synthesize },
};

/** The content-type a synthesized stream is served with. */
export const STREAM_CONTENT_TYPE = "text/event-stream; charset=utf-8";
