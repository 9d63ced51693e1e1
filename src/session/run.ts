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
import { conversationFile, runFolderOf, runIndexOf, type RunIndex } from "../trace/runIndex.js";
import type { ModelOutput, Trace } from "../trace/types.js";
import { SessionEngine } from "./engine.js";
import { argsToJson } from "./json.js";
import { checkOptions, checkRedactRules, sessionModeOf } from "./options.js";
import * as refusals from "./refusals.js";
import { ProviderRoutes } from "./routes.js";
import { RunRoutes, type Conversation } from "./runRoutes.js";
import { ToolWraps } from "./tools.js";
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
  /** The run's folder (for a run given a file: the folder of its name, used once a second conversation starts). */
  private readonly folder: string;
  private readonly table: RunRoutes;
  /**
   * Conversation 1, made with the run's own ports (the hook's claim, the process end): while it is the only one,
   * the run is exactly a session of one conversation.
   */
  private readonly primary: Conversation;
  /** The process end of conversations 2, 3 ...: the run's own handler calls them after the primary's. */
  private readonly exitHandlers: Array<(info: ExitInfo) => void> = [];
  private readonly endOfRun: Array<() => void> = [];
  private readonly installed: Array<() => void> = [];
  private readonly createdAt: number;
  /** The tools the run wrapped: its conversations' engines ask it why none is. */
  private readonly wraps = new ToolWraps(this, () => this.ports.toolsConfig);
  private finished = false;
  /** The first refusal a conversation met (a divergence): what the run's end reports, before any later check. */
  private firstFailure: BlackboxError | undefined;
  private lastAnswered: Conversation | undefined;

  /**
   * `shape`: "folder" (options.out / options.cassette names the run's folder) or "file" (record into a cassette
   * file: a run of one conversation is that file, as a session's; one of several is the folder of its name).
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
        "a run of several conversations cannot be forked as a whole yet: fork one of its cassettes (blackbox fork runs/NAME/conversation-NN.json --at N), or record it again.",
      );
    this.given = (this.mode === "replay" ? options.cassette : options.out) ?? "";
    this.folder = shape === "folder" ? this.given : runFolderOf(this.given);
    this.routes = new ProviderRoutes(options.providers, ports.env);
    this.createdAt = (options.now ?? Date.now)();
    this.table = new RunRoutes(this.mode, checkRedactRules(options.redact), ports.env);
    if (this.mode === "replay") {
      const { index } = ports.loadRun(this.folder);
      index.conversations.forEach((c, i) => this.table.wait(this.conversation(i + 1, c.toldApart)));
      this.primary = this.table.waiting[0]!;
    } else this.primary = this.conversation(1, "new history");
    // after the primary's: at the process end its cassette is made first
    if (ports.onProcessExit) this.endOfRun.push(ports.onProcessExit((info) => this.onExit(info)));
  }

  get active(): boolean {
    return this.primary.engine.active;
  }

  /** The first refusal any conversation met (a divergence, a refused call). */
  get firstError(): BlackboxError | undefined {
    return this.firstFailure ?? this.all().find((c) => c.engine.firstError)?.engine.firstError;
  }

  /** The latest reply of the conversation whose model call ended last (an MCP tool's model-facing name is read from it). */
  get lastOutput(): ModelOutput | undefined {
    return (this.lastAnswered ?? this.primary).engine.lastOutput;
  }

  adopt(undo: () => void): void {
    this.installed.push(undo);
  }

  /**
   * Conversation `n`: an engine with its own cassette. Written as the run ends: conversation 1 of a run given a
   * file to that file while it is the only one; else all into the folder, with the index.
   */
  private conversation(n: number, toldApart: string): Conversation {
    const file = conversationFile(n);
    const single = this.shape === "file" && n === 1;
    const path = single ? this.given : this.ports.join(this.folder, file);
    const made = { n, file, toldApart, last: undefined, failed: false, written: undefined } as unknown as Conversation;
    const claim = this.ports.claim;
    const own: Partial<SessionPorts> =
      n === 1
        ? // the primary claims what the run was given (the run's root and the CLI check that path)
          {
            claim: claim && {
              take: () => claim.take(this.given),
              assertHeld: () => claim.assertHeld(this.given),
            },
          }
        : {
            claim: undefined,
            onProcessExit: (handler) => {
              this.exitHandlers.push(handler);
              return () => this.exitHandlers.splice(this.exitHandlers.indexOf(handler) >>> 0, 1);
            },
          };
    const ports: SessionPorts = {
      ...this.ports,
      ...own,
      writeCassette: (p, trace, secrets) => {
        // one of several: kept until every conversation is whole, then all are written (writeAll)
        if (this.split()) made.pending = { trace, secrets };
        else this.ports.writeCassette(p, trace, secrets);
        made.written = trace;
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
    // conversations that began alike serve the same ids (their first's): which of them a request went to
    // shows in what it carries, never in ids only one of them could have served
    const first = Number(/the same first request as conversation (\d+)/.exec(toldApart)?.[1] ?? n);
    const engine = new SessionEngine(options, ports, {
      idPrefix: first === 1 ? "" : `c${first}_`,
      seqBase: (n - 1) * SEQ_SPAN,
      unwrapped: () => this.unwrappedTools(),
    });
    (made as { engine: SessionEngine }).engine = engine;
    return made;
  }

  /** Conversation `n` for the routes: the primary is made already. */
  private readonly make = (n: number, toldApart: string): Conversation =>
    n === 1 ? this.primary : this.conversation(n, toldApart);

  /** The run is written as a folder: it was given one, or it holds more than one conversation. */
  private split(): boolean {
    return this.shape === "folder" || this.table.started.length + this.table.waiting.length > 1;
  }

  /** The run's id: the option, else the folder's name. */
  private runId(): string {
    const name = this.folder
      .replace(/[\\/]+$/, "")
      .split(/[\\/]/)
      .pop();
    return this.options.traceId ?? (name || "run");
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
    const url = request.parsedUrl ?? new URL(request.url);
    // what is not a model call, and every call once the run ended, is the primary's (it answers or refuses)
    if (this.finished || providers[name].classify(request.method, url) !== "model")
      return this.primary.engine.handle(request, forward, signal, name);
    const loading = this.writerLoading();
    if (loading) await loading;
    // the text the engine parses (a Gemini request's model, from its URL, in it; its contents last)
    const text = providers[name].requestText?.(request, url) ?? request.body;
    const { conversation, added } = this.table.modelCall(name, text, this.make);
    if (this.mode === "record") this.table.reconcile(conversation, added);
    let ok = false;
    try {
      const response = await conversation.engine.handle(request, forward, signal, name);
      ok = response.status < 400;
      return response;
    } finally {
      this.table.answered(conversation, ok);
      this.lastAnswered = conversation;
      this.firstFailure ??= conversation.engine.firstError;
    }
  }

  refuse(provider: ProviderName, err: BlackboxError): HttpResponseLike {
    return this.primary.engine.refuse(provider, err);
  }

  fail(err: BlackboxError): void {
    this.primary.engine.fail(err);
  }

  forwardsOther(): boolean {
    return this.primary.engine.forwardsOther();
  }

  modelEndpoint(method: string, url: string): ProviderName | undefined {
    return this.primary.engine.modelEndpoint(method, url);
  }

  // --- tools --------------------------------------------------------------------

  writerLoading(): Promise<void> | undefined {
    return this.mode === "record" ? this.ports.writerReady?.() : undefined;
  }

  tools<T extends Record<string, AnyFn>>(tools: T): WrappedTools<T> {
    return this.wraps.tools(tools);
  }

  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F> {
    return this.wraps.tool(name, fn);
  }

  unwrappedTools(): string | undefined {
    return this.wraps.unwrapped();
  }

  startTool(name: string, args: unknown[], run: () => unknown): Promise<unknown> {
    if (this.finished) return this.primary.engine.startTool(name, args, run);
    const input = argsToJson(args, `the arguments of tool "${name}"`);
    const conversation = this.table.toolCall(name, input, this.make);
    try {
      return conversation.engine.startTool(name, args, run);
    } finally {
      this.firstFailure ??= conversation.engine.firstError;
    }
  }

  // --- the run's end ------------------------------------------------------------

  private all(): Conversation[] {
    return [...this.table.started, ...this.table.waiting];
  }

  async finish(options?: FinishOptions): Promise<void> {
    if (this.mode === "off") return;
    if (this.finished) return this.primary.engine.finish(options); // it says why not
    const all = this.all();
    if (all.length === 0) return this.primary.engine.finish(options); // no call: as a session of one
    this.finished = true;
    try {
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
      this.writeAll();
    } finally {
      this.endRun();
    }
  }

  /** After the primary's own end at the process end: the other conversations' ends, then the run written. */
  private onExit(info: ExitInfo): void {
    // a run of one conversation given a file is the primary's alone; one that made no call writes nothing; one
    // whose primary failed said so already
    if (this.finished || !this.split() || !this.primary.engine.active || this.primary.engine.firstError) return;
    this.finished = true;
    try {
      let failure: unknown;
      for (const h of this.exitHandlers.splice(0)) {
        try {
          h(info);
        } catch (err) {
          failure ??= err;
        }
      }
      if (this.firstFailure)
        throw this.mode === "record" ? refusals.notWritten(this.firstFailure, this.given) : this.firstFailure;
      if (failure) throw failure;
      this.writeAll();
    } finally {
      this.endRun();
    }
  }

  /** A recording of several conversations: each cassette into the folder, then the index; none if one is missing. */
  private writeAll(): void {
    if (this.mode !== "record" || !this.split()) return;
    const started = this.table.started;
    const missing = started.find((c) => !c.pending);
    if (missing)
      throw new SessionError(
        `no conversation of the run was written to ${this.folder}: conversation ${missing.n} did not end (it failed, or a call was still running). Record the run again.`,
      );
    for (const c of started)
      this.ports.writeCassette(this.ports.join(this.folder, c.file), c.pending!.trace, c.pending!.secrets);
    const written = started.map((c) => ({ file: c.file, trace: c.written!, toldApart: c.toldApart }));
    this.ports.writeRunIndex(this.folder, runIndexOf(this.runId(), this.createdAt, written));
  }

  private endRun(): void {
    for (const u of this.endOfRun.splice(0)) u();
  }

  dispose(): void {
    this.endRun();
    for (const c of this.all()) c.engine.dispose();
    if (!this.all().includes(this.primary)) this.primary.engine.dispose();
    for (const u of this.installed.splice(0).reverse()) u();
  }
}
