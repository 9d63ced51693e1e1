/**
 * A run of several conversations (docs/conversations.md): sub-agents started with
 * `Promise.all`, a server's conversations, handoffs. Each conversation is a session engine
 * of its own, exactly as a run of one (strict order, its own cassette, its own call-N ids);
 * the run hands each call to one of them, by content, never by timing (src/session/runRoutes.ts):
 * a model request to the conversation whose last request it extends, a wrapped tool call to
 * the conversation whose last reply asked for it. The run is what the doors and the tool
 * hooks are given (a SessionPort and a tool host), so nothing below it knows there are several.
 *
 * Record writes one cassette per conversation into the run's folder, then `run.json` (src/trace/runIndex.ts).
 * Replay loads them all; a recorded conversation starts when a request that extends no started one is its
 * first request, and the end checks that every conversation was used to its end.
 */
import { BlackboxError, SessionError } from "../errors.js";
import { providers } from "../providers/index.js";
import type { ProviderName, WireRequest } from "../providers/types.js";
import { conversationFile, runIndexOf, type RunIndex } from "../trace/runIndex.js";
import type { Trace } from "../trace/types.js";
import { SessionEngine } from "./engine.js";
import { argsToJson } from "./json.js";
import { checkOptions, checkRedactRules, sessionModeOf } from "./options.js";
import * as refusals from "./refusals.js";
import { ProviderRoutes } from "./routes.js";
import { RunRoutes, type Conversation } from "./runRoutes.js";
import { wrapTool, wrapTools } from "./tools.js";
import type {
  AnyFn,
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
import { whyNoToolWrapped } from "./unseen.js";

/** How far apart the conversations' replayed reply numbers start (`bbx_msg-<n>`): one conversation's never reach another's. */
const SEQ_SPAN = 1_000_000;

/** What a run needs beyond a session's ports: its folder's index, read and written. */
export interface RunPorts extends SessionPorts {
  writeRunIndex(folder: string, index: RunIndex): void;
  loadRun(folder: string): { index: RunIndex; traces: Trace[] };
  /** The path of a file in the run's folder. */
  join(folder: string, file: string): string;
}

export class RunSession implements SessionPort {
  readonly mode: Mode;
  readonly routes: ProviderRoutes;
  readonly mcpLive = undefined;
  /** The path the run was given: its folder, or its cassette file. */
  private readonly given: string;
  private readonly table: RunRoutes;
  private readonly exitHandlers: Array<(info: ExitInfo) => void> = [];
  private readonly endOfRun: Array<() => void> = [];
  private readonly installed: Array<() => void> = [];
  private readonly createdAt: number;
  private toolsWrapped = 0;
  private claimed = false;
  private claimError: BlackboxError | undefined;
  private finished = false;
  private firstError: BlackboxError | undefined;
  /** The first refusal a conversation met (a divergence): what the run's end reports, before any later check. */
  private firstFailure: BlackboxError | undefined;

  /** The run's folder (for a run given a file: the folder of its name, used once a second conversation starts). */
  private readonly folder: string;

  /**
   * `shape`: "folder" (options.out / options.cassette names the run's folder) or "file" (a cassette file: a
   * run of one conversation is that file, as a session's; one of several is the folder of its name).
   */
  constructor(
    private readonly options: SessionOptions,
    private readonly ports: RunPorts,
    private readonly shape: "folder" | "file",
  ) {
    checkOptions(options);
    this.mode = sessionModeOf(options);
    if (this.mode === "fork")
      throw new SessionError(
        "a run of several conversations cannot be forked as a whole yet: fork one of its cassettes (blackbox fork runs/NAME/conversation-NN.json --at N) with the others replayed by hand, or record it again.",
      );
    this.given = (this.mode === "replay" ? options.cassette : options.out) ?? "";
    this.folder = shape === "folder" ? this.given : this.given.replace(/\.json$/i, "") || `${this.given}.run`;
    this.routes = new ProviderRoutes(options.providers, ports.env);
    this.createdAt = (options.now ?? Date.now)();
    this.table = new RunRoutes(this.mode, checkRedactRules(options.redact), ports.env);
    if (this.mode === "replay") {
      if (shape === "folder") {
        const { index } = ports.loadRun(this.folder);
        index.conversations.forEach((c, i) => this.table.waiting.push(this.conversation(i + 1, c.toldApart)));
      } else this.table.waiting.push(this.conversation(1, "new history"));
    }
    const atExit = this.mode === "record" || ports.finishReplayAtExit || ports.failDivergedReplayAtExit;
    if (atExit && ports.onProcessExit) this.endOfRun.push(ports.onProcessExit((info) => this.onExit(info)));
  }

  get active(): boolean {
    return this.claimed;
  }

  adopt(undo: () => void): void {
    this.installed.push(undo);
  }

  /**
   * Conversation `n`: an engine with its own cassette, its exit reported to the run. In a run given a file,
   * conversation 1 is that file, as a session's would be, until a second conversation starts: then every
   * conversation is written into the folder of the file's name.
   */
  private conversation(n: number, toldApart: string): Conversation {
    const file = conversationFile(n);
    const single = this.shape === "file" && n === 1;
    const path = single ? this.given : this.ports.join(this.folder, file);
    const made = { n, file, toldApart, last: undefined, failed: false, written: undefined } as unknown as Conversation;
    const ports: SessionPorts = {
      ...this.ports,
      claim: undefined,
      writeCassette: (p, trace, secrets) => {
        const to = single && this.split() ? this.ports.join(this.folder, file) : p;
        this.ports.writeCassette(to, trace, secrets);
        made.written = trace;
      },
      onProcessExit: (handler) => {
        this.exitHandlers.push(handler);
        return () => this.exitHandlers.splice(this.exitHandlers.indexOf(handler) >>> 0, 1);
      },
    };
    const updateCommand =
      this.options.updateCommand ?? (single ? undefined : `blackbox record -o ${this.given} -- <command>`);
    const options: SessionOptions =
      this.mode === "replay"
        ? { ...this.options, cassette: path, out: undefined, updateCommand }
        : {
            ...this.options,
            out: path,
            cassette: undefined,
            traceId: single ? this.options.traceId : `${this.runId()}-${n}`,
          };
    const engine = new SessionEngine(options, ports, {
      idPrefix: n === 1 ? "" : `c${n}_`,
      seqBase: (n - 1) * SEQ_SPAN,
      unwrapped: () => this.unwrappedTools(),
    });
    (made as { engine: SessionEngine }).engine = engine;
    return made;
  }

  /** The run is written as a folder: it was given one, or it holds more than one conversation. */
  private split(): boolean {
    return this.shape === "folder" || this.table.started.length + this.table.waiting.length > 1;
  }

  /** The run's id: the option, else the folder's name. */
  private runId(): string {
    return (
      this.options.traceId ??
      (this.folder
        .replace(/[\\/]+$/, "")
        .split(/[\\/]/)
        .pop() ||
        "run")
    );
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
    this.guard();
    const url = request.parsedUrl ?? new URL(request.url);
    const kind = providers[name].classify(request.method, url);
    if (kind !== "model") {
      if (kind === "other" && this.mode === "record") return forward(request, signal);
      return this.anyConversation().engine.handle(request, forward, signal, name);
    }
    const loading = this.writerLoading();
    if (loading) await loading;
    const { conversation } = this.table.modelCall(name, request.body, (n, how) => this.conversation(n, how));
    let ok = false;
    try {
      const response = await conversation.engine.handle(request, forward, signal, name);
      ok = response.status < 400;
      return response;
    } finally {
      this.table.answered(conversation, ok);
      this.firstFailure ??= conversation.engine.firstError;
    }
  }

  /** A conversation for what is not a model call (a refusal, a replayed SDK call no recording holds). */
  private anyConversation(): Conversation {
    return this.table.started[0] ?? this.table.waiting[0] ?? this.table.start(this.conversation(1, "new history"));
  }

  refuse(provider: ProviderName, err: BlackboxError): HttpResponseLike {
    return this.anyConversation().engine.refuse(provider, err);
  }

  fail(err: BlackboxError): void {
    if (this.mode === "off" || this.finished) return;
    try {
      this.activate();
    } catch {
      // the claim's own refusal is said at exit
    }
    this.firstError ??= err;
  }

  forwardsOther(): boolean {
    return this.mode === "record";
  }

  modelEndpoint(method: string, url: string): ProviderName | undefined {
    const provider = this.route(url);
    if (!provider) return undefined;
    return providers[provider].classify(method.toUpperCase(), new URL(url)) === "model" ? provider : undefined;
  }

  // --- tools --------------------------------------------------------------------

  writerLoading(): Promise<void> | undefined {
    return this.mode === "record" ? this.ports.writerReady?.() : undefined;
  }

  tools<T extends Record<string, AnyFn>>(tools: T): WrappedTools<T> {
    const wrapped = wrapTools(this, tools);
    this.toolsWrapped += Object.keys(tools).length;
    return wrapped;
  }

  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F> {
    const wrapped = wrapTool(this, name, fn, "bb.tool()");
    this.toolsWrapped++;
    return wrapped;
  }

  unwrappedTools(): string | undefined {
    return this.toolsWrapped > 0 ? undefined : whyNoToolWrapped(this.ports.toolsConfig);
  }

  startTool(name: string, args: unknown[], run: () => unknown): Promise<unknown> {
    this.guard();
    const input = argsToJson(args, `the arguments of tool "${name}"`);
    const conversation = this.table.toolCall(name, input, (n, how) => this.conversation(n, how));
    try {
      return conversation.engine.startTool(name, args, run);
    } finally {
      this.firstFailure ??= conversation.engine.firstError;
    }
  }

  // --- the run's end ------------------------------------------------------------

  private guard(): void {
    if (this.finished) throw refusals.callAfterFinish("a call");
    if (this.claimError) throw this.claimError;
    this.activate();
  }

  /** The first call of the run (or one refused around it): the hook's run claims its cassette or folder. */
  private activate(): void {
    if (this.claimed) return;
    this.claimed = true;
    const claim = this.ports.claim;
    if (!claim) return;
    try {
      this.endOfRun.push(claim.take(this.given));
    } catch (err) {
      if (err instanceof BlackboxError) this.claimError = err;
      throw err;
    }
  }

  private all(): Conversation[] {
    return [...this.table.started, ...this.table.waiting];
  }

  async finish(options?: FinishOptions): Promise<void> {
    if (this.mode === "off") return;
    if (this.finished) throw refusals.finishTwice();
    const all = this.all();
    if (this.mode === "record" && all.length === 0)
      throw new SessionError(
        `the run made no model or tool call, so there is no conversation to write to ${this.folder}. Nothing was written.`,
      );
    this.finished = true;
    try {
      if (this.firstError) throw this.firstError;
      if (this.mode === "record" && this.firstFailure) throw this.firstFailure; // none of its conversations is written
      // the run's answer is its first conversation's (the orchestrator's); a failed run fails every conversation
      let failure: unknown;
      for (const c of all) {
        const own = c === all[0] ? options : options?.error != null ? { error: options.error } : undefined;
        try {
          await c.engine.finish(own);
        } catch (err) {
          failure ??= err;
        }
      }
      if (this.firstFailure) throw this.firstFailure;
      if (failure) throw failure;
      this.writeIndex();
    } finally {
      this.endRun();
    }
  }

  private onExit(info: ExitInfo): void {
    if (this.finished || !this.claimed) return; // a process that made no call writes nothing (its run's root says why)
    this.finished = true;
    try {
      if (this.claimError) throw this.claimError;
      const first = this.firstError ?? (this.mode === "record" ? this.firstFailure : undefined);
      // a recording that met a refusal writes none of its conversations
      if (first) throw this.mode === "record" ? refusals.notWritten(first, this.given) : first;
      let failure: unknown;
      for (const h of this.exitHandlers.splice(0)) {
        try {
          h(info);
        } catch (err) {
          failure ??= err;
        }
      }
      if (this.firstFailure) throw this.firstFailure;
      if (failure) throw failure;
      this.writeIndex();
    } finally {
      this.endRun();
    }
  }

  private writeIndex(): void {
    if (this.mode !== "record" || !this.split()) return;
    const written = this.table.started.map((c) => ({ file: c.file, trace: c.written!, toldApart: c.toldApart }));
    this.ports.writeRunIndex(this.folder, runIndexOf(this.runId(), this.createdAt, written));
  }

  private endRun(): void {
    for (const u of this.endOfRun.splice(0)) u();
  }

  dispose(): void {
    this.endRun();
    for (const c of this.all()) c.engine.dispose();
    for (const u of this.installed.splice(0).reverse()) u();
  }
}
