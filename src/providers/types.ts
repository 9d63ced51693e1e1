import type { JsonValue, ModelInput, ModelOutput } from "../trace/types.js";
import type { ToolCallIds } from "./shared/ids.js";

export type ProviderName = "anthropic" | "openai" | "openai-responses" | "gemini" | "bedrock";

/**
 * The services whose base URLs Blackbox is told (a config's `providers`, SessionOptions.providers): a provider
 * that is another API of one of them (the Responses API of OpenAI's) shares its base URLs (`baseUrlsOf`).
 */
export type ServiceName = "anthropic" | "openai" | "gemini" | "bedrock";

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
 * - "model": messages.create / chat.completions.create / responses.create, recorded and replayed;
 * - "other": any other SDK call, passed through when recording, refused in replay;
 * - { unsupported }: an endpoint Blackbox refuses outright (e.g. Anthropic's managed agent sessions).
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
  /** The request declared the deprecated `functions` (OpenAI): a reply's tool call goes back as `function_call`. */
  functionCall?: boolean;
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

/**
 * A streamed reply, both ways. While recording, every byte passes through to the agent
 * untouched and is also pushed into an assembler, whose finish() gives the same
 * ModelOutput a non-streamed call would; in replay, synthesize() turns a recorded output
 * into the event stream the SDK parses.
 */
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
  /** The complete stream body replaying `output` (ids via ids.wireIdFor, like buildResponse). */
  synthesize(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): string | Uint8Array;
  /** The content-type a synthesized stream is served with, when not `text/event-stream` (Bedrock's event stream). */
  readonly contentType?: string;
}

/**
 * The incremental parse of a tool loop's requests (src/session/incremental.ts): `full`
 * parses a whole body, keeping what `more` continues from; `more` converts only the
 * messages a next request adds at the end (undefined: the full parse must say).
 */
export interface IncrementalParser {
  full(raw: unknown, ids: ToolCallIds): RequestState;
  more(state: RequestState, more: unknown[], ids: ToolCallIds): RequestState | undefined;
  /** The body member holding the conversation, which a next request extends at its end (default `messages`). */
  readonly member?: string;
  /**
   * The chain store remembers every reply (the Responses API's: a chain's first call names no response), so a
   * request the incremental parse extends is expanded all the same.
   */
  readonly expandsEvery?: boolean;
}

/** A request that stands for a longer conversation the provider holds, expanded. */
export interface ChainedRequest {
  /** The request it stands for: the whole history, and the fields the provider kept. */
  full: Record<string, unknown>;
  /**
   * It continues a reply the provider never saw (replayed or scripted): upstream must get `full` as a new
   * conversation.
   */
  continuesLocal: boolean;
}

/**
 * Conversations the provider holds between calls (Anthropic message threads): a request
 * that continues one is expanded into the whole request it stands for, from the replies
 * this run saw, so a cassette holds each call's whole conversation. Pure apart from the
 * replies it remembers.
 */
export interface ChainStore<R extends ChainedRequest = ChainedRequest> {
  /**
   * The expansion of `body` when it continues or starts a held conversation, else undefined. Throws a refusal
   * for one it cannot expand.
   */
  expand(body: Record<string, unknown>): R | undefined;
  /** A reply to `request` (its wire body); `upstream`: the provider sent it (so it holds the conversation). */
  remember(request: R, reply: unknown, upstream: boolean): void;
  /** The body sent upstream for a request that continues a reply the provider never saw. */
  asNew(request: R): string;
  /** `body` continues a reply this store remembers (a run finds the conversation it belongs to by it). */
  holds(body: Record<string, unknown>): boolean;
}

/**
 * Everything Blackbox knows of one provider, as data: the adapter, its stream and
 * incremental parsers, where its SDK sends by default, the environment variables and
 * headers it reads, and how its SDK names itself. Adding a provider is one folder that
 * exports one of these, and one entry in src/providers/index.ts.
 */
export interface ProviderDefinition extends ProviderAdapter {
  readonly stream: StreamAdapter;
  readonly incremental: IncrementalParser;
  /** Conversations the provider holds between calls, when its API has them (one store per session). */
  readonly chains?: () => ChainStore;
  /**
   * The service whose base URLs (default origin, base URL variable, the config's `providers` entry) this
   * provider shares, when it is another API of it: the routes send a URL under them to the one whose `classify`
   * takes its path (src/session/routes.ts).
   */
  readonly baseUrlsOf?: ServiceName;
  /** The origin its SDK sends to by default. */
  readonly defaultOrigin: string;
  /** Host names its SDK sends to by default besides defaultOrigin's, on https (Bedrock's, one a region). */
  readonly defaultHosts?: RegExp;
  /** The environment variable its SDK reads for a base URL. */
  readonly baseUrlEnv: string;
  /** Further base URL variables its SDK reads, in the order it reads them after baseUrlEnv (AWS_ENDPOINT_URL). */
  readonly moreBaseUrlEnvs?: readonly string[];
  /** The environment variable its SDK reads for the API key. */
  readonly apiKeyEnv: string;
  /**
   * Other variables its SDKs read the key from (their values never reach a cassette); `placeholder`: a replay
   * sets one when it is missing, as for apiKeyEnv.
   */
  readonly otherKeyEnvs?: readonly { name: string; placeholder: boolean }[];
  /** The request headers that carry the key (their values never reach a cassette). */
  readonly keyHeaders: readonly string[];
  /** A query parameter that may carry the key (Gemini's `?key=`; its value never reaches a cassette). */
  readonly keyQuery?: string;
  /** What ends the model endpoint's path (the base URL is what comes before). */
  readonly modelPath: string;
  /** The base URL's path of a model call's path, when modelPath is not a fixed ending (the model is in it). */
  readonly basePathOf?: (path: string) => string;
  /**
   * The body text the adapter parses, when the URL carries part of the request (Gemini's model and streaming):
   * the request's body with that part put in; default the body.
   */
  readonly requestText?: (request: WireRequest, url: URL) => string | undefined;
  /** The response header its SDK reads the request id from. */
  readonly requestIdHeader: string;
  /** The npm package of its official SDK. */
  readonly sdkPackage: string;
  /** The user-agent its SDK's clients send: the client class (group 1) and the SDK version (group 2). */
  readonly sdkAgent: RegExp;
  /**
   * The client class of the SDK itself (others, such as AzureOpenAI or AnthropicBedrock, are named beside the
   * version).
   */
  readonly sdkClient: string;
  /** A request header only its SDK (and SDKs generated like it) sends, if any. */
  readonly sdkHeader?: string;
  /**
   * Known telemetry uploads that ride on its recorded client (the OpenAI Agents SDK's trace export): a
   * replay answers each with an empty success instead of refusing it as an unrecorded call.
   */
  readonly telemetry?: readonly TelemetryEndpoint[];
}

/** A telemetry upload a replay answers with `status` and no body: `method` to a path ending in `path`. */
export interface TelemetryEndpoint {
  method: string;
  path: string;
  status: number;
  /** Who sends it, for the docs and messages. */
  sender: string;
}
