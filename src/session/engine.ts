/**
 * The one stateful engine behind bb.fetch, the global dispatcher and the wrapped tools.
 * It keeps what every mode shares (call-N ids, the incremental parse, the order of calls,
 * the first error, the run's end) and hands each model and tool call to its mode
 * (src/session/modes/). Its side effects come in as ports (SessionPorts).
 *
 * Longer than the house's ~300 lines (~440) on purpose: it is the one place that sees every call's
 * order (a stream still open, a tool still running, the first refusal, the run's end), and
 * each check reads the same few fields; the few accessors a run reads to route its calls
 * (src/session/run.ts: busy, expectsTool, holdsChain, nextRecordedInput) ask the mode, whose
 * state this class holds, so they stay with it. The modes, the recorder, the replayer, the live call,
 * the tool wrappers and the refusal texts live in files of their own.
 */
import { createRedactor, type Redactor } from "../redact/index.js";
import { BlackboxError, BlackboxUnsupportedError } from "../errors.js";
import { providers } from "../providers/index.js";
import { ToolCallIds } from "../providers/shared/ids.js";
import type { ParsedModelRequest, ProviderDefinition, ProviderName, WireRequest } from "../providers/types.js";
import type { JsonValue, ModelInput, ModelOutput } from "../trace/types.js";
import { type Chained, Conversations } from "./conversations.js";
import { IncrementalRequests, parseRequestBody } from "./incremental.js";
import { KeysSeen } from "./keys.js";
import { argsToJson } from "./json.js";
import { createMode } from "./modes/index.js";
import type { EngineContext, SessionMode, ToolExpectation } from "./modes/mode.js";
import type { RoundEntry } from "./rounds.js";
import { checkOptions, checkRedactRules, checkTraceId, sessionModeOf } from "./options.js";
import * as refusals from "./refusals.js";
import { exitOutcome, outcomeOf } from "./outcome.js";
import { ProviderRoutes } from "./routes.js";
import { refusedReply, servedReply } from "./served.js";
import { ToolWraps } from "./tools.js";
import { strictToolsOf } from "./unseen.js";
import { telemetryAnswer } from "./telemetry.js";
import type {
  AnyFn,
  ConversationPart,
  ExitInfo,
  FinishOptions,
  Forward,
  HttpResponseLike,
  Mode,
  SessionOptions,
  SessionPort,
  SessionPorts,
  WrappedTool,
  WrappedTools,
} from "./types.js";

export class SessionEngine implements SessionPort, EngineContext {
  readonly mode: Mode;
  readonly options: SessionOptions;
  readonly ports: SessionPorts;
  readonly now: () => number;
  readonly ids: ToolCallIds;
  readonly requests = new IncrementalRequests();
  readonly redactor: Redactor;
  /** Which provider a URL belongs to (also read by the http guard, src/interception/httpGuard.ts). */
  readonly routes: ProviderRoutes;
  /** The model call in flight continues a conversation the provider holds: what it stands for. */
  chained: Chained;
  lastOutput: ModelOutput | undefined;
  modelInFlight = false;
  /** Which call modelInFlight stands for: one its caller gave up on ends it then, and not a later call's. */
  private callInFlight: object | undefined;
  /** A live streamed reply still being read: its steps are written when it ends. */
  streamOpen = false;
  /** The open stream's early settle: at finish() or the process end, a reply whose final event came is recorded. */
  settleOpenStream: (() => boolean) | undefined;
  toolsRunning = 0;
  /** Numbers the replies the session serves (Blackbox's own ids in them). */
  seq = 0;
  firstError: BlackboxError | undefined;
  thinkingSeen = false;
  readonly strictTools: boolean;
  readonly mcpLive: string | undefined;
  /** The tools this session wrapped (bb.tools, bb.tool, the config's hooks). */
  private readonly wraps = new ToolWraps(this, () => this.ports.toolsConfig);

  private readonly strategy: SessionMode;
  private readonly conversations = new Conversations();
  private readonly keys = new KeysSeen();
  /** What the run's end releases: the exit handler, the claim. */
  private readonly endOfRun: Array<() => void> = [];
  /** What dispose() undoes, in reverse: the doors and hooks installed for this session (adopt()). */
  private readonly installed: Array<() => void> = [];
  private finished = false;
  private claimError: BlackboxError | undefined;
  /** The signal that ended the run at process end, when the process then went on (a reload on SIGHUP). */
  private endedBy: string | undefined;
  private endedCode: number | undefined;
  private claimed = false;
  /** The hook's claim on the cassette was taken. */
  private holdsClaim = false;

  /** Where a run's conversation numbers the replies it serves from (src/session/run.ts); 0 for a session. */
  private readonly seqBase: number;
  private readonly runUnwrapped: (() => string | undefined) | undefined;

  /** `part`: this session is one conversation of a run (src/session/run.ts), whose replayed ids are its own. */
  constructor(options: SessionOptions, ports: SessionPorts, part?: ConversationPart) {
    checkOptions(options);
    this.ids = new ToolCallIds(part?.idPrefix);
    this.seqBase = part?.seqBase ?? 0;
    this.runUnwrapped = part?.unwrapped;
    this.options = options;
    this.mcpLive = options.mcpLive === true && options.mode === "replay" ? options.cassette : undefined;
    this.ports = ports;
    this.mode = sessionModeOf(options);
    this.now = options.now ?? Date.now;
    this.routes = new ProviderRoutes(options.providers, ports.env);
    // a replay (and a fork's replayed prefix) parses requests incrementally: the redactor may remember messages
    this.redactor = createRedactor(
      checkRedactRules(options.redact),
      ports.env,
      this.mode === "replay" || this.mode === "fork",
    );
    if (this.mode !== "off") checkTraceId(options);
    this.strictTools = this.mode !== "off" && strictToolsOf(options, ports.env);
    this.strategy = createMode(this);
    const atExit =
      this.strategy.writes || (this.mode === "replay" && (ports.finishReplayAtExit || ports.failDivergedReplayAtExit));
    if (atExit && ports.onProcessExit) this.endOfRun.push(ports.onProcessExit((info) => this.onExit(info)));
  }

  get active(): boolean {
    return this.claimed;
  }

  /** Keeps an undo (a door, a hook installed for this session): dispose() runs them in reverse. */
  adopt(undo: () => void): void {
    this.installed.push(undo);
  }

  // --- the doors --------------------------------------------------------------

  route(url: string): ProviderName | undefined {
    return this.mode === "off" ? undefined : this.routes.route(url);
  }

  async handle(
    request: WireRequest,
    forward: Forward,
    signal?: AbortSignal,
    hint?: ProviderName,
  ): Promise<HttpResponseLike> {
    const name = hint ?? this.route(request.url);
    if (!name) return forward(request, signal);
    const provider = providers[name];
    const url = request.parsedUrl ?? new URL(request.url);
    const kind = provider.classify(request.method, url);
    if (this.strategy.writes) this.keys.add(request); // for the cassette a record or fork writes
    try {
      if (kind === "other") {
        if (this.strategy.forwardsOther()) return await forward(request, signal);
        const telemetry = telemetryAnswer(provider, request.method, url);
        if (telemetry) return telemetry; // an upload that changes nothing the agent reads
        throw refusals.notRecordedCall(request.method, url.pathname, this.mode);
      }
      // refused wherever it goes (the Responses API, Bedrock's API...): the run fails with it, as for a stray call
      if (typeof kind === "object") return this.refuse(name, new BlackboxUnsupportedError(kind.unsupported));
      return await this.handleModel(provider, request, forward, signal);
    } catch (err) {
      if (err instanceof BlackboxError) return this.errorResponse(provider, err);
      throw err;
    }
  }

  private errorResponse(provider: ProviderDefinition, err: BlackboxError): HttpResponseLike {
    this.firstError ??= err;
    return refusedReply(provider, err);
  }

  /**
   * A model call that went around both doors (src/interception/httpGuard.ts) is the first
   * call of this process, refused: the run fails with `err` at its end, as for a call the
   * session refused itself (no cassette in record; replay exits non-zero).
   */
  fail(err: BlackboxError): void {
    if (this.mode === "off" || this.finished) return;
    this.activate();
    this.firstError ??= err;
  }

  /**
   * A provider call refused wherever it goes (a stray SDK call, src/interception/unrouted.ts; one classify
   * refuses): the run fails with it, and the SDK gets it as any refused call.
   */
  refuse(provider: ProviderName, err: BlackboxError): HttpResponseLike {
    this.fail(err);
    return this.errorResponse(providers[provider], err);
  }

  forwardsOther(): boolean {
    return this.strategy.forwardsOther();
  }

  modelEndpoint(method: string, url: string): ProviderName | undefined {
    const provider = this.route(url);
    if (!provider) return undefined;
    return providers[provider].classify(method.toUpperCase(), new URL(url)) === "model" ? provider : undefined;
  }

  // --- order of calls ---------------------------------------------------------

  private guard(what: string): void {
    if (this.finished) {
      if (this.endedBy) {
        throw refusals.callAfterEnd(what, this.endedBy);
      }
      throw refusals.callAfterFinish(what);
    }
    if (this.firstError && this.strategy.haltsOnError) throw this.firstError;
    this.activate();
  }

  /** The first call of this session (or one refused around it): the hook's session claims the cassette. */
  private activate(): void {
    if (this.claimed) return;
    this.claimed = true;
    const claim = this.ports.claim;
    if (!claim) return;
    try {
      this.endOfRun.push(claim.take(this.options.out ?? this.options.cassette ?? "blackbox.json"));
      this.holdsClaim = true;
    } catch (err) {
      if (err instanceof BlackboxError) this.claimError = err; // also said at exit: the agent only saw an SDK error
      throw err;
    }
  }

  /** The hook's record mode loads the cassette writer at the first call; else undefined (no await, no tick). */
  writerLoading(): Promise<void> | undefined {
    return this.strategy.writes ? this.ports.writerReady?.() : undefined;
  }

  // --- model calls ------------------------------------------------------------

  private async handleModel(
    provider: ProviderDefinition,
    request: WireRequest,
    forward: Forward,
    signal: AbortSignal | undefined,
  ): Promise<HttpResponseLike> {
    const loading = this.writerLoading();
    if (loading) await loading;
    // the caller gave up while the writer loaded (an SDK's timeout; its retry may be here already): no call is made
    if (signal?.aborted) throw signal.reason;
    this.guard("a model call");
    if (this.streamOpen) this.settleOpenStream?.(); // its final event came: it is whole
    if (this.streamOpen && !this.modelInFlight) {
      throw refusals.modelCallBeforeStreamRead();
    }
    if (this.modelInFlight || this.streamOpen) {
      throw refusals.overlappingModelCalls();
    }
    if (this.toolsRunning > 0) throw refusals.toolStillRunning("was made");
    this.chained = undefined;
    // what the URL says of the request (Gemini's and Bedrock's model), put in the text parsed
    const text = provider.requestText
      ? provider.requestText(request, request.parsedUrl ?? new URL(request.url))
      : request.body;
    // replay parses (and compares) only what a tool loop's request adds to the previous one
    const parsed = this.strategy.replaying()
      ? this.requests.parse(provider.name, text, this.ids, this.expandChain)
      : provider.parseRequest(this.expandChain(provider.name, parseRequestBody(text)), this.ids);
    if (parsed.thinking) this.thinkingSeen = true;
    this.modelInFlight = true;
    // The call ends for the session when its caller gives up on it (the SDK retries at once), not when the
    // request below the door lets go, which may be later (queued there, the abort reaches it once it is sent).
    const call = (this.callInFlight = {});
    const ended = (): void => {
      if (this.callInFlight !== call) return; // a later call is in flight now
      this.callInFlight = undefined;
      this.modelInFlight = false;
    };
    signal?.addEventListener("abort", ended, { once: true });
    try {
      const answered = this.strategy.model({ provider, parsed, request, forward, signal });
      const response = answered instanceof Promise ? await answered : answered;
      if (this.toolsRunning > 0) throw refusals.toolStillRunning("returned");
      return response;
    } finally {
      signal?.removeEventListener("abort", ended);
      ended();
    }
  }

  /**
   * A request that continues a conversation the provider holds, as the whole request it stands for; any other
   * body as it is.
   */
  private readonly expandChain = (name: ProviderName, body: unknown): unknown => {
    const expanded = this.conversations.expand(name, body);
    this.chained = expanded.chained;
    return expanded.body;
  };

  /** A reply the session serves (replayed or scripted), as the wire response the agent asked for. */
  respond(provider: ProviderDefinition, output: ModelOutput, parsed: ParsedModelRequest): HttpResponseLike {
    return servedReply(provider, output, parsed, this.ids, this.seqBase + this.seq++, this.chained);
  }

  // --- a run's routing (src/session/run.ts) -------------------------------------

  /** A model call is in flight or its streamed reply still being read. */
  get busy(): boolean {
    return this.modelInFlight || this.streamOpen;
  }

  /**
   * Whether this conversation's last reply asked for tool `name`, not yet called: "args" with these arguments,
   * "name" with others; undefined when it did not (or the mode cannot say).
   */
  expectsTool(name: string, input: JsonValue): ToolExpectation {
    return this.strategy.expectsTool?.(name, input);
  }

  /** `body` continues a reply this conversation was given that the provider holds (src/session/conversations.ts). */
  holdsChain(name: ProviderName, body: Record<string, unknown>): boolean {
    return this.conversations.holds(name, body);
  }

  /** Record: the entries of the tool round being recorded, if one is. */
  roundEntries(): RoundEntry[] | undefined {
    return this.strategy.roundEntries?.();
  }

  /** Replay: the recording's next model request, when it is at one (its tool round served); else undefined. */
  nextRecordedInput(): ModelInput | undefined {
    return this.strategy.nextInput?.();
  }

  // --- tools --------------------------------------------------------------------

  tools<T extends Record<string, AnyFn>>(tools: T): WrappedTools<T> {
    return this.wraps.tools(tools);
  }

  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F> {
    return this.wraps.tool(name, fn);
  }

  unwrappedTools(): string | undefined {
    return this.runUnwrapped ? this.runUnwrapped() : this.wraps.unwrapped();
  }

  /**
   * A wrapped tool's call (src/session/tools.ts), checked for its order (a refusal is thrown, not returned)
   * and answered by the mode.
   */
  startTool(name: string, args: unknown[], run: () => unknown): Promise<unknown> {
    this.guard(`the wrapped tool "${name}" was called`);
    if (this.modelInFlight) {
      throw refusals.toolDuringModelCall(name);
    }
    if (this.streamOpen) this.settleOpenStream?.(); // its final event came (a tool run on message_stop): it is whole
    if (this.streamOpen) {
      throw refusals.toolDuringStream(name);
    }
    const input = argsToJson(args, `the arguments of tool "${name}"`);
    return this.strategy.tool(name, input, run);
  }

  // --- the run's end ------------------------------------------------------------

  /** The API keys a written cassette must not hold: those the agent sent, and those in the environment. */
  keysSeen(): string[] {
    return this.keys.list(this.ports.env);
  }

  async finish(options?: FinishOptions): Promise<void> {
    if (this.mode === "off") return;
    if (this.finished) {
      if (this.endedBy) {
        throw refusals.finishAfterEnd(this.endedBy, this.endedCode);
      }
      throw refusals.finishTwice();
    }
    this.settleOpenStream?.();
    if (this.streamOpen && !this.modelInFlight && this.toolsRunning === 0) {
      throw refusals.finishBeforeStreamRead();
    }
    const inFlight = this.toolsRunning + (this.modelInFlight || this.streamOpen ? 1 : 0);
    if (inFlight > 0) {
      throw refusals.finishInFlight(inFlight);
    }
    // A result with no JSON form throws here, before the session is over: finish() can be
    // called again with one it can store (and the process end still writes the cassette).
    const outcome = outcomeOf(options, this.lastOutput);
    this.finished = true;
    try {
      if (this.firstError) throw this.firstError;
      const loading = this.writerLoading();
      if (loading) await loading;
      this.strategy.end(outcome, false);
    } finally {
      this.endRun();
    }
  }

  private onExit(info: ExitInfo): void {
    if (this.finished) return;
    if (this.mode === "replay" && !this.ports.finishReplayAtExit) {
      // in code: a replay that never reached finish() is checked only for a divergence the agent caught
      this.finished = true;
      this.endRun();
      if (this.firstError) throw refusals.divergedWithoutFinish(this.firstError, this.options.cassette!);
      return;
    }
    this.endedBy = info.signal;
    this.endedCode = info.exitCode;
    if (this.ports.claim && !this.holdsClaim) {
      // a process that made no call writes nothing; one refused the claim says why (the agent only saw an SDK error)
      // an app going on after it (a reload): its later calls are refused, not sent live
      if (info.signal) this.finished = true;
      if (this.claimError) throw this.claimError;
      return;
    }
    this.finished = true;
    this.settleOpenStream?.(); // an exit after the reply's final event (process.exit() at message_stop): it is whole
    const inFlight = this.toolsRunning + (this.modelInFlight || this.streamOpen ? 1 : 0);
    const outcome = exitOutcome(info.exitCode, inFlight, info.uncaught, this.lastOutput);
    try {
      if (this.firstError)
        throw this.strategy.writes ? refusals.notWritten(this.firstError, this.options.out!) : this.firstError;
      this.strategy.end(outcome, true);
    } finally {
      this.endRun();
    }
  }

  /** Releases what the run held (the exit handler, then the claim); the doors stay until dispose(). */
  private endRun(): void {
    for (const u of this.endOfRun.splice(0)) u();
  }

  dispose(): void {
    this.endRun();
    for (const u of this.installed.splice(0).reverse()) u();
  }
}
