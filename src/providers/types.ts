import type { JsonValue, ModelInput, ModelOutput } from "../trace/types.js";
import type { ToolCallIds } from "./ids.js";

export type ProviderName = "anthropic" | "openai";

/** What a door (bb.fetch or the global dispatcher) hands the session. */
export interface WireRequest {
  method: string;
  url: string;
  /** `new URL(url)`, when the door parsed it already (a replayed call is short enough that a second parse shows). */
  parsedUrl?: URL;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The request body as text (undefined when there is none). */
  body: string | undefined;
}

/**
 * How a request to a provider origin is treated:
 * - "model": messages.create / chat.completions.create, recorded and replayed;
 * - "other": any other SDK call, passed through when recording, refused in replay;
 * - { unsupported }: an endpoint Blackbox refuses outright (e.g. the Responses API).
 */
export type RequestKind = "model" | "other" | { unsupported: string };

export interface ParsedModelRequest {
  input: ModelInput;
  /** The agent asked for a streamed reply. */
  stream: boolean;
  /** Extended thinking is enabled (Anthropic). */
  thinking: boolean;
  /** A streamed reply ends with a usage chunk (OpenAI `stream_options: { include_usage: true }`). */
  streamUsage?: boolean;
}

/**
 * A parsed request an incremental parse continues from (src/session/incremental.ts):
 * the next request of a tool loop is this one plus messages at the end.
 */
export interface RequestState {
  parsed: ParsedModelRequest;
  /** The body's wire messages (the next request's state takes them over and appends to them). */
  wire: unknown[];
  /** Provider tool-call id -> tool name, from the tool calls in `wire`. */
  names: Map<string, string>;
}

export interface ProviderAdapter {
  readonly name: ProviderName;
  /** Classify a request by method and URL path (the base URL may carry a prefix). */
  classify(method: string, url: URL): RequestKind;
  /**
   * Wire request body (parsed JSON) -> neutral input. Throws BlackboxUnsupportedError
   * for every limitation, before anything is sent. Assigns call-N ids via `ids`.
   */
  parseRequest(body: unknown, ids: ToolCallIds): ParsedModelRequest;
  /** Wire response body (parsed JSON) -> neutral output. Throws BlackboxUnsupportedError. */
  parseResponse(body: unknown, ids: ToolCallIds): ModelOutput;
  /** Neutral output -> a complete wire response body the SDK parses. `seq` numbers Blackbox's ids. */
  buildResponse(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): JsonValue;
  /** The JSON body of a 400 error whose message is `message` (starts with "[blackbox]"). */
  errorBody(message: string): JsonValue;
}
