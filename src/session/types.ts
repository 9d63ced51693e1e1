import type { RedactRules } from "../redact/index.js";
import type { ProviderName, ServiceName, WireRequest } from "../providers/types.js";
import type { JsonValue, ModelOutput, Trace } from "../trace/types.js";
import type { BlackboxError } from "../errors.js";
import type { ProviderRoutes } from "./routes.js";

export type Mode = "off" | "record" | "replay" | "fork";
export type MatchMode = "strict" | "sequence";

export interface SessionOptions {
  /**
   * "off" (default), "record", "replay" or "fork"; "auto": replay `cassette` or record it, by the record mode
   * (`record`, BLACKBOX_RECORD; src/session/modes/resolve.ts).
   */
  mode?: Mode | "auto";
  /**
   * Mode "auto": "missing" (default outside CI) records a cassette that does not exist, "none" (default when CI
   * is set) never records, "all" re-records. BLACKBOX_RECORD, when set, wins.
   */
  record?: "missing" | "none" | "all";
  /** The command that re-records the cassette, as a replay's divergence names it (mode "auto" and the test helpers set it). */
  updateCommand?: string;
  /** Where record and fork write the cassette. */
  out?: string;
  /** The cassette replay and fork read. */
  cassette?: string;
  /** Fork step index (must be a tool_result step). */
  forkAt?: number;
  /** Replacement result at the fork point. */
  forkSet?: JsonValue;
  /**
   * After the fork point: call the provider ("live") or answer from `script` (default: "script" when a script
   * is given, else "live").
   */
  continueWith?: "live" | "script";
  /** Scripted model outputs for continueWith "script" (or a path to a JSON list of them). */
  script?: ModelOutput[] | string;
  /**
   * A scripted fork's tools past the fork's round (the round's own calls, made as recorded, are answered from
   * the cassette): "run" (default) runs them; "refuse" fails the call, so nothing the agent does reaches the world
   * (a sweep's scripted children).
   */
  scriptedTools?: "run" | "refuse";
  /** "strict" (default) compares each request with the recording; "sequence" serves in order. */
  match?: MatchMode;
  /** Id stored in the cassette (default: the out file's name without .json). */
  traceId?: string;
  /** Extra provider origins (base URLs) routed through the session, from the config. */
  providers?: Partial<Record<ServiceName, string[]>>;
  /**
   * Refuse a run whose tools are not all recorded (the model asked for tool calls the agent ran outside
   * Blackbox's view): a record writes no cassette, a replay is refused before the agent starts. Default:
   * BLACKBOX_STRICT_TOOLS=1, else false (the recording is written with a warning, the replay warns).
   */
  strictTools?: boolean;
  /**
   * Replay only: MCP servers' connect() and list calls also go to the live servers, and a
   * tool changed since the recording (name, description, input schema) fails the replay
   * (blackbox replay --mcp-live, BLACKBOX_MCP_LIVE=1; docs/tools.md). Default false.
   */
  mcpLive?: boolean;
  /** Clock for timestamps (tests). */
  now?: () => number;
  /**
   * What never reaches the cassette (docs/secrets.md): the default credential detectors are on; false turns
   * redaction off.
   */
  redact?: RedactRules | false;
}

/** A response as the session hands it back to a door. */
export interface HttpResponseLike {
  status: number;
  statusText?: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string | Uint8Array | AsyncIterable<Uint8Array>;
}

/** How a door sends a request upstream (live calls, pass-through calls). */
export type Forward = (request: WireRequest, signal?: AbortSignal) => Promise<HttpResponseLike>;

export interface FinishOptions {
  /** The run's answer, stored as JSON (default: the last model reply's text). */
  result?: unknown;
  /** A failed run: stored as run_failed agent_error with its message. null and undefined are no error. */
  error?: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFn = (...args: any[]) => any;
export type WrappedTool<F extends AnyFn> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;
/** `bb.tools()`'s result: each function wrapped; a framework's tool object as a copy of the same type. */
export type WrappedTools<T extends Record<string, unknown>> = {
  [K in keyof T]: T[K] extends AnyFn ? WrappedTool<T[K]> : T[K];
};

/** A Blackbox session, as `blackbox()` returns it. */
export interface Session {
  readonly mode: Mode;
  /** A fetch for the SDKs' `fetch` option. */
  readonly fetch: typeof globalThis.fetch;
  tools<T extends Record<string, AnyFn | object>>(tools: T): WrappedTools<T>;
  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F>;
  finish(options?: FinishOptions): Promise<void>;
  /** Undo every patch, hook and exit handler this session installed. Harmless twice. */
  dispose(): void;
}

/** The session as the doors (bb.fetch, the dispatcher, the http guard) and the tool hooks use it. */
export interface SessionPort {
  readonly mode: Mode;
  /** Which provider a URL belongs to (the http guard reads its hosts too). */
  readonly routes: ProviderRoutes;
  /** True once the session has seen a model or tool call. */
  readonly active: boolean;
  /** The provider whose endpoint this URL is (default origins, *_BASE_URL, config), if any; none in mode off. */
  route(url: string): ProviderName | undefined;
  /**
   * Handle a request to a provider: record, replay, fork or pass through. `provider`
   * names it when the door knows (bb.fetch only ever carries SDK requests); else
   * the URL's origin decides, and a request to no provider origin is forwarded.
   */
  handle(
    request: WireRequest,
    forward: Forward,
    signal?: AbortSignal,
    provider?: ProviderName,
  ): Promise<HttpResponseLike>;
  /**
   * A provider call refused wherever it goes (a model call to a base URL no route names, one the adapter
   * refuses): the run fails with it; the reply the SDK gets.
   */
  refuse(provider: ProviderName, err: BlackboxError): HttpResponseLike;
  /** A model call that went around both doors: the run fails with `err` at its end. */
  fail(err: BlackboxError): void;
  /** A replay's cassette when its MCP listings go live to be compared (the mcpLive option); else undefined. */
  readonly mcpLive: string | undefined;
  /**
   * The model's latest output (recorded, replayed or scripted), if any: an MCP callTool reads the tool calls
   * it asked for, to record its call under the name the model used for the tool (src/tools/frameworks/mcp.ts).
   */
  readonly lastOutput: ModelOutput | undefined;
  /** Whether a provider call that is not a model call goes upstream (record, a live fork). */
  forwardsOther(): boolean;
  /** The provider of a model-call endpoint (method + URL), else undefined. */
  modelEndpoint(method: string, url: string): ProviderName | undefined;
  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F>;
}

/** A session that is one conversation of a run (src/session/run.ts): how its replayed ids are set apart. */
export interface ConversationPart {
  /** Put in its replayed tool-call wire ids (`bbx_<prefix>call-N`). */
  idPrefix: string;
  /** Where its replayed replies' numbers start (the ids Blackbox serves: `bbx_msg-<n>`, `bbx-resp-<n>`). */
  seqBase: number;
  /** Why no tool is wrapped in the run, when none is (the run wraps them, not the conversation). */
  unwrapped: () => string | undefined;
}

/** How a process ended, as the exit port reports it. */
export interface ExitInfo {
  exitCode: number;
  signal?: "SIGINT" | "SIGTERM" | "SIGHUP";
  uncaught?: unknown;
}

/**
 * The side effects a session needs, passed in (src/blackbox.ts for the library,
 * src/register.ts for the hook): the session itself touches no file, no process state and
 * no environment.
 */
export interface SessionPorts {
  /** Reads and verifies the cassette replay and fork are driven by. */
  loadCassette(file: string): Trace;
  /** Writes a finished cassette (verify, the secret check, an atomic write). */
  writeCassette(path: string, trace: Trace, secrets: string[]): void;
  /** When writeCassette is loaded lazily (the hook's record mode): a promise while it loads, else undefined. */
  writerReady?(): Promise<void> | undefined;
  /**
   * A recording may read the cassette it records over, to keep what did not change (the library's ports; the
   * hook's record loads no cassette reader).
   */
  readsPrevious?: boolean;
  /** The text of a file the options name (a fork script). */
  readText(path: string): string;
  /** Whether two paths name one file (a fork must not write over its parent). */
  sameFile(a: string, b: string): boolean;
  /** The environment (base URLs, API keys). */
  env: Readonly<Record<string, string | undefined>>;
  /** Calls `handler` once at process end; returns its undo. Without it, nothing happens at process end. */
  onProcessExit?(handler: (info: ExitInfo) => void): () => void;
  /** A replay checks its end at process end too, reporting a divergence there (the hook). */
  finishReplayAtExit?: boolean;
  /**
   * A replay that diverged and never reached finish() (the agent caught the refusal) fails the process at its
   * end, naming the divergence (the library: the hook's finishReplayAtExit does it already).
   */
  failDivergedReplayAtExit?: boolean;
  /** The config the hook looked for, for a replay to say why no tool is wrapped (file: none found in cwd). */
  toolsConfig?: { file: string | undefined; cwd: string };
  /** Says something the run should know but that does not stop it (tools that ran unrecorded), once. */
  warn?(message: string): void;
  /** Claims the cassette for this process at the first call, so two processes of one tree never write it (the hook). */
  claim?: {
    take(file: string): () => void;
    /** Throws when this process no longer holds the claim (its run ended, or was taken over). */
    assertHeld(file: string): void;
  };
}
