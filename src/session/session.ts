import {
  BlackboxError,
  BlackboxUnsupportedError,
  ForkError,
  SessionError,
} from "../errors.js";
import { MessageThreads, type ThreadedRequest } from "../providers/anthropicThreads.js";
import { adapters } from "../providers/index.js";
import { isObj } from "../providers/wire.js";
import { ToolCallIds } from "../providers/ids.js";
import type { ParsedModelRequest, ProviderAdapter, ProviderName, WireRequest } from "../providers/types.js";
import { TraceBuilder } from "../trace/builder.js";
import { callIndex, maxCallIndex, toolCallsOf } from "../trace/payloads.js";
import type { JsonValue, ModelOutput, TerminalPayload } from "../trace/types.js";
import { assertClaimHeld, claimCassette } from "../edges/claim.js";
import { onProcessExit, type ExitInfo } from "../edges/processExit.js";
import { makeFetch } from "./fetchDoor.js";
import { IncrementalRequests, parseRequestBody } from "./incremental.js";
import { argsToJson, errorMessageOf, jsonEqual, toJsonValue } from "./json.js";
import { exitOutcome, outcomeOf } from "./outcome.js";
import { loadTraceSync, writeCassetteSync, writerReady } from "./lazy.js";
import { ProviderRoutes } from "./routes.js";
import { loadScript, withIds, type ScriptedOutput } from "./script.js";
import { checkForkOut, checkOptions, checkToolName, checkTraceId, continueWithOf, forkPointOf, requireCassette, requireOut, traceIdOf } from "./setup.js";
import { RecordRound, type RecordedPair, type RoundEntry } from "./rounds.js";
import { divergence, ReplaySource } from "./source.js";
import { readBody, servedHeaders, streamLive, synthesizeStream } from "./streaming.js";
import type {
  AnyFn,
  FinishOptions,
  Forward,
  HttpResponseLike,
  Mode,
  Session,
  SessionOptions,
  WrappedTool,
  WrappedTools,
} from "./types.js";

const JSON_HEADERS = { "content-type": "application/json" };

/** The one stateful engine behind bb.fetch, the global dispatcher and the wrapped tools. */
export class SessionImpl implements Session {
  readonly mode: Mode;
  readonly fetch: typeof globalThis.fetch;
  private readonly opts: SessionOptions;
  private readonly now: () => number;
  private readonly ids = new ToolCallIds();
  private readonly requests = new IncrementalRequests();
  private readonly threads = new MessageThreads();
  /** The model call in flight is an Anthropic message thread's turn: what it stands for. */
  private thread: ThreadedRequest | undefined;
  /** Which provider a URL belongs to (also read by the http guard, src/edges/httpGuard.ts). */
  readonly routes: ProviderRoutes;
  private readonly secrets = new Set<string>();
  private readonly undo: Array<() => void> = [];

  private builder: TraceBuilder | undefined;
  private source: ReplaySource | undefined;
  private round: RecordRound | undefined;
  private lastOutput: ModelOutput | undefined;
  private modelInFlight = false;
  /** A live streamed reply still being read: its steps are written when it ends. */
  private streamOpen = false;
  /** The open stream's early settle: at finish() or the process end, a reply whose final event came is recorded. */
  private settleOpenStream: (() => boolean) | undefined;
  private toolsRunning = 0;
  private seq = 0;
  private finished = false;
  private firstError: BlackboxError | undefined;
  private claimError: BlackboxError | undefined;
  /** The signal that ended the run at process end, when the process then went on (a reload on SIGHUP). */
  private endedBy: string | undefined;
  private endedCode: number | undefined;
  private thinkingSeen = false;
  private released: (() => void) | undefined;
  private activeFlag = false;
  // fork
  private forkAt = -1;
  /** The replacement result, copied once: neither the caller's object nor the agent's copy can change what is written. */
  private forkValue: JsonValue = null;
  private pastFork = false;
  private script: ScriptedOutput[] = [];

  constructor(options: SessionOptions = {}) {
    checkOptions(options);
    this.opts = options;
    this.mode = options.mode ?? "off";
    this.now = options.now ?? Date.now;
    this.fetch = makeFetch(this);
    this.routes = new ProviderRoutes(options.providers);
    if (this.mode === "off") return;
    checkTraceId(options);
    if (this.mode === "record") {
      requireOut(options);
      this.builder = new TraceBuilder({ id: traceIdOf(options), createdAt: this.now() });
    } else {
      if (this.mode === "fork") checkForkOut(options);
      const parent = loadTraceSync(requireCassette(options));
      this.source = new ReplaySource(parent, options.match ?? "strict");
      if (this.mode === "fork") {
        this.forkAt = forkPointOf(parent, options);
        this.forkValue = structuredClone(options.forkSet as JsonValue);
        if (continueWithOf(options) === "script") this.script = loadScript(options.script);
      }
    }
    if (this.mode !== "replay" || options.autoFinish) {
      this.undo.push(onProcessExit((info) => this.onExit(info)));
    }
  }

  get active(): boolean {
    return this.activeFlag;
  }

  // --- routing (both doors) -------------------------------------------------

  route(url: string): ProviderName | undefined {
    return this.mode === "off" ? undefined : this.routes.route(url);
  }

  async handle(
    request: WireRequest,
    forward: Forward,
    signal?: AbortSignal,
    hint?: ProviderName,
  ): Promise<HttpResponseLike> {
    const provider = hint ?? this.route(request.url);
    if (!provider) return forward(request, signal);
    const adapter = adapters[provider];
    const url = request.parsedUrl ?? new URL(request.url);
    const kind = adapter.classify(request.method, url);
    if (this.mode !== "replay") this.collectSecrets(request); // for the cassette a record or fork writes
    try {
      if (kind === "other") return await this.handleOther(request, forward, signal, url);
      // refused wherever it goes (the Responses API, Bedrock's API...): the run fails with it, as for a stray call
      if (typeof kind === "object") return this.refuse(provider, new BlackboxUnsupportedError(kind.unsupported));
      return await this.handleModel(adapter, request, forward, signal);
    } catch (err) {
      if (err instanceof BlackboxError) return this.errorResponse(adapter, err);
      throw err;
    }
  }

  private async handleOther(request: WireRequest, forward: Forward, signal: AbortSignal | undefined, url: URL) {
    const liveFork = this.mode === "fork" && continueWithOf(this.opts) === "live";
    if (this.mode === "record" || liveFork) return forward(request, signal);
    throw new BlackboxUnsupportedError(
      `${request.method} ${url.pathname} is not recorded (only messages.create and chat.completions.create are), so ${this.mode === "replay" ? "replay" : "fork --script"} cannot answer it. Call it outside the recorded client, or only in record mode.`,
    );
  }

  private errorResponse(adapter: ProviderAdapter, err: BlackboxError): HttpResponseLike {
    this.firstError ??= err;
    return {
      status: 400,
      statusText: "Bad Request",
      headers: { ...JSON_HEADERS, "x-should-retry": "false" },
      body: JSON.stringify(adapter.errorBody(`[blackbox] ${err.message}`)),
    };
  }

  private collectSecrets(request: WireRequest): void {
    const h = request.headers;
    if (h["x-api-key"]) this.secrets.add(h["x-api-key"]);
    if (h.authorization) this.secrets.add(h.authorization.replace(/^Bearer\s+/i, ""));
  }

  // --- model calls ----------------------------------------------------------

  /**
   * A model call that went around both doors (src/edges/httpGuard.ts) is the first call of
   * this process, refused: the run fails with `err` at its end, as for a call the session
   * refused itself (no cassette in record; replay exits non-zero).
   */
  fail(err: BlackboxError): void {
    if (this.mode === "off" || this.finished) return;
    this.activate();
    this.firstError ??= err;
  }

  /** A provider call refused wherever it goes (a stray SDK call, src/edges/unrouted.ts; one classify refuses): the run fails with it, and the SDK gets it as any refused call. */
  refuse(provider: ProviderName, err: BlackboxError): HttpResponseLike {
    this.fail(err);
    return this.errorResponse(adapters[provider], err);
  }

  /** Whether a provider call that is not a model call goes upstream (record, a live fork), as handleOther does. */
  forwardsOther(): boolean {
    return this.mode === "record" || (this.mode === "fork" && continueWithOf(this.opts) === "live");
  }

  /** The provider of a model-call endpoint (method + URL), else undefined. */
  modelEndpoint(method: string, url: string): ProviderName | undefined {
    const provider = this.route(url);
    if (!provider) return undefined;
    return adapters[provider].classify(method.toUpperCase(), new URL(url)) === "model" ? provider : undefined;
  }

  private guard(what: string): void {
    if (this.finished) {
      if (this.endedBy) {
        throw new SessionError(`${what} after the run ended on ${this.endedBy}: the cassette was finished then, so this call is not recorded or replayed. Record the process again without sending it ${this.endedBy}.`);
      }
      throw new SessionError(`${what} after finish(): the run is over. Create a new session (blackbox()) for another run.`);
    }
    if (this.firstError && this.mode !== "record") throw this.firstError;
    this.activate();
  }

  /** The first call of this session (or one refused around it): the hook's session claims the cassette. */
  private activate(): void {
    if (this.activeFlag) return;
    this.activeFlag = true;
    if (this.opts.claim) this.released = this.claim();
  }

  /** The hook's claim on the cassette; a refusal (another process has it) is also said at exit. */
  private claim(): () => void {
    try {
      return claimCassette(this.opts.out ?? this.opts.cassette ?? "blackbox.json");
    } catch (err) {
      if (err instanceof BlackboxError) this.claimError = err;
      throw err;
    }
  }

  private async handleModel(
    adapter: ProviderAdapter,
    request: WireRequest,
    forward: Forward,
    signal: AbortSignal | undefined,
  ): Promise<HttpResponseLike> {
    const loading = this.writerLoading();
    if (loading) await loading;
    this.guard("a model call");
    if (this.streamOpen) this.settleOpenStream?.(); // its final event came: it is whole
    if (this.streamOpen && !this.modelInFlight) {
      throw new SessionError(
        "a model call was made while a streamed model reply was not read to its end (still being read, or never read); its steps could not be written in order. Read each stream to its end before the next call: for await over its events, or await stream.finalMessage() / stream.finalChatCompletion().",
      );
    }
    if (this.modelInFlight || this.streamOpen) {
      throw new SessionError(
        "overlapping model calls on one session: a model call was made while another was still running. One session records one conversation: await each call, or create one session per conversation.",
      );
    }
    if (this.toolsRunning > 0) throw this.toolStillRunning("was made");
    // replay parses (and compares) only what a tool loop's request adds to the previous one
    this.thread = undefined;
    const parsed = this.replaying()
      ? this.requests.parse(adapter.name, request.body, this.ids, this.expandThread)
      : adapter.parseRequest(this.expandThread(adapter.name, parseRequestBody(request.body)), this.ids);
    if (parsed.thinking) this.thinkingSeen = true;
    this.modelInFlight = true;
    try {
      const response = this.replaying()
        ? this.replayModel(adapter, parsed)
        : await this.liveOrScripted(adapter, parsed, request, forward, signal);
      if (this.toolsRunning > 0) throw this.toolStillRunning("returned");
      return response;
    } finally {
      this.modelInFlight = false;
    }
  }

  /** A message thread's turn as the whole request it stands for (src/providers/anthropicThreads.ts); any other body as it is. */
  private readonly expandThread = (provider: ProviderName, body: unknown): unknown => {
    if (provider !== "anthropic" || !isObj(body)) return body;
    this.thread = this.threads.expand(body);
    return this.thread?.full ?? body;
  };

  /** The register hook's record mode loads the cassette writer at the first call (src/session/lazy.ts); else undefined (no await, no tick). */
  private writerLoading(): Promise<void> | undefined {
    return this.mode === "replay" ? undefined : writerReady();
  }

  private toolStillRunning(when: string): SessionError {
    return new SessionError(
      `a wrapped tool was still running when a model call ${when}; its steps could not be written in order. Await each wrapped tool before the next model call.`,
    );
  }

  /** Replay, or a fork still in its prefix. */
  private replaying(): boolean {
    return this.mode === "replay" || (this.mode === "fork" && !this.pastFork);
  }

  private replayModel(adapter: ProviderAdapter, parsed: ParsedModelRequest): HttpResponseLike {
    const source = this.source!;
    if (this.mode === "fork") this.checkForkRoundBeforeModel();
    const { output } = source.nextModel(parsed.input, (recorded, actual) => this.requests.compare(recorded, actual));
    this.lastOutput = output;
    return this.respond(adapter, output, parsed);
  }

  private respond(adapter: ProviderAdapter, output: ModelOutput, parsed: ParsedModelRequest): HttpResponseLike {
    const seq = this.seq++;
    // a thread's next turn may continue from this reply (served here: the provider never saw it)
    if (this.thread) this.threads.remember(this.thread, adapter.buildResponse(output, parsed, this.ids, seq), false);
    if (parsed.stream) return synthesizeStream(adapter.name, output, parsed, this.ids, seq);
    return {
      status: 200,
      statusText: "OK",
      headers: servedHeaders(adapter.name, "application/json", seq),
      body: JSON.stringify(adapter.buildResponse(output, parsed, this.ids, seq)),
    };
  }

  private async liveOrScripted(
    adapter: ProviderAdapter,
    parsed: ParsedModelRequest,
    request: WireRequest,
    forward: Forward,
    signal: AbortSignal | undefined,
  ): Promise<HttpResponseLike> {
    this.flushRound();
    const startedAt = this.now();
    if (this.mode === "fork" && continueWithOf(this.opts) === "script") {
      const entry = this.script.shift();
      if (!entry) {
        throw new ForkError(
          `the fork script ran out: the agent made another model call after the ${this.seq - this.source!.modelCalls} scripted output(s). Add outputs to the script, ending with { "type": "final_answer", "text": "..." }.`,
        );
      }
      this.childBuilder(); // seeds call-N past the copied prefix
      const output = withIds(entry, () => this.ids.fresh());
      this.recordModel(parsed, output, startedAt);
      return this.respond(adapter, output, parsed);
    }
    if (this.mode === "fork" && this.thinkingSeen) {
      throw new BlackboxUnsupportedError(
        "fork --live of a thinking-enabled run is refused: the cassette leaves thinking blocks out, and the API requires them on tool-use turns. Continue the fork with --script instead.",
      );
    }
    const thread = this.thread;
    // a turn continuing a replayed or scripted reply: the provider holds no such thread, so it gets the whole conversation as a new one
    const upstream = await forward(thread?.continuesLocal ? { ...request, body: MessageThreads.asNewThread(thread) } : request, signal);
    if (upstream.status < 200 || upstream.status >= 300) return upstream; // a provider error: the SDK handles it; nothing recorded
    if (parsed.stream) {
      // The steps are appended when the stream ends; until then the call is in flight.
      this.streamOpen = true;
      const live = streamLive(
        adapter.name,
        upstream,
        this.ids,
        (output, reply) => {
          this.streamOpen = false;
          this.settleOpenStream = undefined;
          this.recordModel(parsed, output, startedAt);
          if (thread) this.threads.remember(thread, reply, true);
        },
        (error) => {
          this.streamOpen = false;
          this.settleOpenStream = undefined;
          this.firstError ??= error;
        },
        signal,
      );
      this.settleOpenStream = live.settleIfWhole;
      return live.response;
    }
    const text = await readBody(upstream.body);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new BlackboxUnsupportedError("the provider's response is not JSON; Blackbox records JSON responses of messages.create and chat.completions.create");
    }
    const output = adapter.parseResponse(json, this.ids);
    this.recordModel(parsed, output, startedAt);
    if (thread) this.threads.remember(thread, json, true);
    const headers = { ...upstream.headers };
    delete headers["content-encoding"];
    delete headers["content-length"];
    delete headers["transfer-encoding"];
    return { status: upstream.status, statusText: upstream.statusText, headers, body: text };
  }

  private recordModel(parsed: ParsedModelRequest, output: ModelOutput, startedAt: number): void {
    const b = this.childBuilder();
    b.append("model_input", parsed.input as unknown as JsonValue, startedAt);
    b.append("model_output", output as unknown as JsonValue, this.now());
    this.lastOutput = output;
    this.round = new RecordRound(toolCallsOf(output));
  }

  // --- tools ----------------------------------------------------------------

  tools<T extends Record<string, AnyFn>>(tools: T): WrappedTools<T> {
    const out = {} as Record<string, AnyFn>;
    for (const [name, fn] of Object.entries(tools)) {
      if (typeof fn !== "function") throw new TypeError(`bb.tools(): "${name}" is not a function; pass { name: function }`);
      out[name] = this.wrapTool(name, fn, "bb.tools()");
    }
    return out as WrappedTools<T>;
  }

  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F> {
    if (typeof fn !== "function") throw new TypeError(`bb.tool("${name}", fn): fn is not a function`);
    return this.wrapTool(name, fn, "bb.tool()");
  }

  private wrapTool<F extends AnyFn>(name: string, fn: F, where: string): WrappedTool<F> {
    // mode off records nothing, so no name can spoil a cassette: an app that runs without
    // Blackbox (production) must not fail on a tool name that only a recording would store
    if (this.mode !== "off") checkToolName(name, where);
    const session = this;
    const wrapped = async function (this: unknown, ...args: unknown[]) {
      return session.callTool(name, args, () => fn.apply(this, args), wrapped);
    };
    Object.defineProperty(wrapped, "name", { value: fn.name || name });
    // the ESM tool wrappers call in through this, naming their own function as the agent's entry
    const from: CallFrom = (self, args, entry) => session.callTool(name, args, () => fn.apply(self, args), entry);
    Object.defineProperty(wrapped, CALL_FROM, { value: from });
    return wrapped as WrappedTool<F>;
  }

  /** `entry`: the function the agent called; a refusal's stack starts at the agent's call of it. */
  private async callTool(name: string, args: unknown[], run: () => unknown, entry: AnyFn): Promise<unknown> {
    if (this.mode === "off") return run();
    const loading = this.writerLoading();
    if (loading) await loading;
    try {
      return this.startTool(name, args, run);
    } catch (err) {
      if (err instanceof Error) Error.captureStackTrace(err, entry); // ours (a refusal, arguments with no JSON form): the agent's frames
      throw err;
    }
  }

  private startTool(name: string, args: unknown[], run: () => unknown): Promise<unknown> {
    this.guard(`the wrapped tool "${name}" was called`);
    if (this.modelInFlight) {
      throw new SessionError(
        `the wrapped tool "${name}" was called while a model call was still running; its steps could not be written in order. Await each model call before running the tools it asks for.`,
      );
    }
    if (this.streamOpen) this.settleOpenStream?.(); // its final event came (a tool run on message_stop): it is whole
    if (this.streamOpen) {
      throw new SessionError(
        `the wrapped tool "${name}" was called while a streamed model reply was still being read; its steps could not be written in order. Read the stream to its end (e.g. await stream.finalMessage()) before running tools.`,
      );
    }
    const input = argsToJson(args, `the arguments of tool "${name}"`);
    if (this.replaying()) {
      try {
        return this.replayTool(name, input, run);
      } catch (err) {
        if (err instanceof BlackboxError) this.firstError ??= err;
        throw err;
      }
    }
    return this.recordTool(name, input, run);
  }

  private replayTool(name: string, input: JsonValue, run: () => unknown): Promise<unknown> {
    const pair = this.source!.nextTool(name, input);
    // Keep run-local numbering where the recording had it: a tool the model did not
    // request took the next call-N when it was recorded.
    const n = callIndex((pair.callStep.payload as { toolCallId: string }).toolCallId);
    if (n >= 0) this.ids.seedPast(n);
    if (this.mode === "fork" && pair.resultStep && pair.resultStep.index >= this.forkAt) {
      return this.forkTool(pair, input, run);
    }
    return Promise.resolve(recordedOutcome(pair));
  }

  private async recordTool(name: string, input: JsonValue, run: () => unknown, entry?: RoundEntry): Promise<unknown> {
    const round = (this.round ??= new RecordRound([]));
    entry ??= round.claim(name, input) ?? round.add({ toolCallId: this.ids.fresh(), toolName: name, toolInput: input });
    entry.call = { ...entry.call, toolInput: input };
    entry.startedAt = this.now();
    entry.running = true;
    this.toolsRunning++;
    try {
      const result = toJsonValue(await run(), `the result of tool "${name}"`, "return plain data (objects, arrays, strings, numbers) from the tool");
      entry.outcome = { result };
      // the agent gets what a replay will give it (undefined as null, a Date as its string, an
      // instance as plain data), so record and replay agree; a copy: its edits stay out of the cassette
      return structuredClone(result);
    } catch (err) {
      entry.outcome = { error: errorMessageOf(err) };
      throw err;
    } finally {
      entry.running = false;
      entry.endedAt = this.now();
      this.toolsRunning--;
    }
  }

  // --- fork -----------------------------------------------------------------

  /** A tool of the fork round at or after the fork point: the fork value, or a live run. */
  private forkTool(pair: RecordedPair, input: JsonValue, run: () => unknown): Promise<unknown> {
    const round = this.forkRound();
    const entry = round.entries.find((e) => e.recorded?.callStep === pair.callStep)!;
    entry.claimed = true;
    if (pair.resultStep!.index === this.forkAt) {
      entry.outcome = { result: this.forkValue };
      this.pastFork = true;
      return Promise.resolve(structuredClone(this.forkValue));
    }
    const p = pair.callStep.payload as { toolName: string };
    return this.recordTool(p.toolName, input, run, entry);
  }

  /** The round holding the fork point, as a record round over the recorded calls. */
  private forkRound(): RecordRound {
    if (this.round) return this.round;
    const source = this.source!;
    const round = new RecordRound([]);
    for (const pair of source.round) {
      const c = pair.callStep.payload as { toolCallId: string; toolName: string; toolInput: JsonValue };
      const entry = round.add({ toolCallId: c.toolCallId, toolName: c.toolName, toolInput: c.toolInput });
      entry.claimed = false;
      entry.recorded = { callStep: pair.callStep, resultStep: pair.resultStep! };
      entry.forkPoint = pair.resultStep?.index === this.forkAt;
      if (pair.resultStep && pair.resultStep.index < this.forkAt) entry.claimed = true;
    }
    // the recorded pairs at or after the fork point are now the fork's to record
    for (const pair of source.round) if (pair.resultStep && pair.resultStep.index >= this.forkAt) pair.consumed = true;
    this.round = round;
    return round;
  }

  private checkForkRoundBeforeModel(): void {
    const step = this.source!.steps[this.forkAt]!;
    if (this.source!.cursor > this.forkAt) {
      throw divergence(step, `the agent made its next model call without calling the wrapped tool whose result is the fork point (step ${this.forkAt})`, {}, this.opts.match);
    }
  }

  /** The builder the steps go to: record's own, or the fork child (prefix copied verbatim). */
  private childBuilder(): TraceBuilder {
    if (this.builder) return this.builder;
    const parent = this.source!.trace;
    const forkStep = parent.steps[this.forkAt]!;
    this.builder = new TraceBuilder({
      id: traceIdOf(this.opts),
      createdAt: this.now(),
      parentId: parent.id,
      forkedFromStepId: forkStep.id,
      steps: parent.steps.slice(0, this.forkAt),
    });
    this.ids.seedPast(maxCallIndex(parent.steps.slice(0, this.forkAt)));
    return this.builder;
  }

  /** Writes the current round's tool steps in call order. */
  private flushRound(): void {
    const round = this.round;
    this.round = undefined;
    if (!round) return;
    const b = this.childBuilder();
    for (const e of round.entries) {
      if (e.recorded && !e.forkPoint && e.recorded.resultStep.index < this.forkAt) continue; // in the copied prefix
      if (e.forkPoint) {
        const r = e.recorded!.resultStep;
        const p = r.payload as { toolCallId: string; toolName: string };
        b.append("tool_result", { toolCallId: p.toolCallId, toolName: p.toolName, result: this.forkValue }, r.timestamp);
        continue;
      }
      if (!e.outcome) continue; // requested but never run: the agent stopped
      const { toolCallId, toolName, toolInput } = e.call;
      b.append("tool_call", { toolCallId, toolName, toolInput }, e.startedAt);
      b.append("tool_result", { toolCallId, toolName, ...e.outcome } as JsonValue, e.endedAt);
    }
  }

  // --- finish ---------------------------------------------------------------

  async finish(options?: FinishOptions): Promise<void> {
    if (this.mode === "off") return;
    if (this.finished) {
      if (this.endedBy) {
        throw new SessionError(
          `finish() after the run ended on ${this.endedBy}: Blackbox finished the session then, as at any process end (exit code ${this.endedCode}), so this finish() records nothing.`,
        );
      }
      throw new SessionError("finish() was already called for this session; a session records one run: create a new session (blackbox()) for the next run");
    }
    this.settleOpenStream?.();
    if (this.streamOpen && !this.modelInFlight && this.toolsRunning === 0) {
      throw new SessionError(
        "finish() was called while a streamed model reply was not read to its end (still being read, or never read); nothing was written. Read each stream to its end before finish(): for await over its events, or await stream.finalMessage() / stream.finalChatCompletion().",
      );
    }
    const inFlight = this.toolsRunning + (this.modelInFlight || this.streamOpen ? 1 : 0);
    if (inFlight > 0) {
      throw new SessionError(
        `finish() was called while ${inFlight} model or tool call(s) were still running; nothing was written. Await every model and tool call before finish().`,
      );
    }
    // A result with no JSON form throws here, before the session is over: finish() can be
    // called again with one it can store (and the process end still writes the cassette).
    const outcome = outcomeOf(options, this.lastOutput);
    this.finished = true;
    try {
      if (this.firstError) throw this.firstError;
      if (this.mode === "replay") this.checkReplayEnd(outcome);
      else {
        const loading = this.writerLoading();
        if (loading) await loading;
        this.write(outcome);
      }
    } finally {
      this.dispose();
    }
  }

  private checkReplayEnd(outcome: TerminalPayload): void {
    const source = this.source!;
    source.checkAllUsed();
    const terminal = source.terminal();
    if (terminal && !jsonEqual(terminal.payload, outcome as unknown as JsonValue)) {
      const d = { path: "payload", recorded: terminal.payload, actual: outcome };
      throw divergence(terminal, "the run ended differently from the recording", d, this.opts.match);
    }
  }

  private write(outcome: TerminalPayload): void {
    if (this.mode === "fork" && !this.pastFork) {
      throw divergence(
        this.source!.steps[this.forkAt],
        `the agent ended before reaching the fork point: it never called the wrapped tool whose result is step ${this.forkAt}`, {}, this.opts.match,
      );
    }
    this.flushRound();
    const b = this.childBuilder();
    b.append("metadata", outcome as unknown as JsonValue, this.now());
    if (this.opts.claim) assertClaimHeld(this.opts.out!); // a process whose run ended or was taken over must not clobber the file
    writeCassetteSync(this.opts.out!, b.trace, this.allSecrets());
  }

  private allSecrets(): string[] {
    for (const v of [process.env.ANTHROPIC_API_KEY, process.env.OPENAI_API_KEY]) if (v) this.secrets.add(v);
    return [...this.secrets].filter((s) => s.length >= 8);
  }

  private onExit(info: ExitInfo): void {
    if (this.finished) return;
    this.endedBy = info.signal;
    this.endedCode = info.exitCode;
    if (this.opts.claim && !this.released) {
      // a process that made no call writes nothing; one refused the claim says why (the agent only saw an SDK error)
      if (info.signal) this.finished = true; // an app going on after it (a reload): its later calls are refused, not sent live
      if (this.claimError) throw this.claimError;
      return;
    }
    this.finished = true;
    this.settleOpenStream?.(); // an exit after the reply's final event (process.exit() at message_stop): it is whole
    const inFlight = this.toolsRunning + (this.modelInFlight || this.streamOpen ? 1 : 0);
    const outcome = exitOutcome(info.exitCode, inFlight, info.uncaught, this.lastOutput);
    try {
      if (this.firstError) throw this.mode === "replay" ? this.firstError : notWritten(this.firstError, this.opts.out!);
      if (this.mode === "replay") {
        this.checkReplayEnd(outcome);
      } else {
        if (this.mode === "fork" && !this.pastFork) this.write(outcome);
        else {
          // unfinished tool calls: their effects are not in the cassette
          if (this.round) for (const e of this.round.entries) if (e.running) e.outcome = undefined;
          this.write(outcome);
        }
      }
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    for (const u of this.undo.splice(0)) u();
    this.released?.();
    this.released = undefined;
  }
}

/** How an ESM tool wrapper calls a wrapped tool: `wrapped[CALL_FROM](this, args, itself)`. */
export const CALL_FROM = Symbol.for("ardaulas.blackbox.tool.callFrom.v1");
type CallFrom = (self: unknown, args: unknown[], entry: AnyFn) => Promise<unknown>;

/**
 * What a record or fork refused during the run (a partial stream, a request or reply it
 * cannot record), said at process end as finish() would throw it: the cassette would lack
 * that call, so none is written (an earlier file at that path is left as it was).
 */
function notWritten(err: BlackboxError, out: string): Error {
  const error = new Error(`${err.message.replace(/^\[blackbox\]\s*/, "")} No cassette was written to ${out}.`);
  error.name = err.name;
  return error;
}

/** A replayed tool's outcome: a copy of the recorded result (as record hands the agent a copy), so the agent's edits never reach the cassette a fork copies its prefix from. */
function recordedOutcome(pair: RecordedPair): unknown {
  const r = pair.resultStep?.payload as { result?: JsonValue; error?: string } | undefined;
  if (!r) return null;
  if (typeof r.error === "string") throw new Error(r.error);
  return structuredClone(r.result);
}

export function createSession(options: SessionOptions = {}): SessionImpl {
  return new SessionImpl(options);
}
