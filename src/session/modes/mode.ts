/**
 * What a mode decides, as one small interface (nock's back modes are the picture): how a
 * model call and a tool call are answered, what a provider call that is not a model call
 * does, and how the run ends. The engine (src/session/engine.ts) keeps the state every
 * mode shares and checks the order of calls; a mode added later is one file here.
 */
import type { BlackboxError } from "../../errors.js";
import type { ToolCallIds } from "../../providers/shared/ids.js";
import type {
  ChainedRequest,
  ChainStore,
  ParsedModelRequest,
  ProviderDefinition,
  WireRequest,
} from "../../providers/types.js";
import type { JsonValue, ModelInput, ModelOutput, TerminalPayload } from "../../trace/types.js";
import type { Redactor } from "../../redact/index.js";
import type { IncrementalRequests } from "../incremental.js";
import type { RoundEntry } from "../rounds.js";
import type { Forward, HttpResponseLike, Mode, SessionOptions, SessionPorts } from "../types.js";

/** The engine's state and services, as the modes (and what they share: recorder, replayer, live calls) use them. */
export interface EngineContext {
  readonly mode: Mode;
  readonly options: SessionOptions;
  readonly ports: SessionPorts;
  readonly now: () => number;
  readonly ids: ToolCallIds;
  readonly requests: IncrementalRequests;
  /** Every payload written passes it; a replay passes what the agent sends through it before comparing. */
  readonly redactor: Redactor;
  /** The model call in flight continues a conversation the provider holds: what it stands for. */
  readonly chained: { store: ChainStore; request: ChainedRequest } | undefined;
  lastOutput: ModelOutput | undefined;
  /** A live streamed reply still being read: its steps are written when it ends. */
  streamOpen: boolean;
  settleOpenStream: (() => boolean) | undefined;
  toolsRunning: number;
  /** Numbers the replies the session serves. */
  readonly seq: number;
  firstError: BlackboxError | undefined;
  /** strictTools (the option or BLACKBOX_STRICT_TOOLS): tools that ran unrecorded fail the run. */
  readonly strictTools: boolean;
  /** A request of this run enabled extended thinking. */
  readonly thinkingSeen: boolean;
  /** A reply the session serves (replayed or scripted), as the wire response the agent asked for. */
  respond(provider: ProviderDefinition, output: ModelOutput, parsed: ParsedModelRequest): HttpResponseLike;
  /** The API keys a written cassette must not hold. */
  keysSeen(): string[];
  /** Why no tool is wrapped in this run (no config was found), when none is; else undefined. */
  unwrappedTools(): string | undefined;
}

/** One model call, parsed, as the engine hands it to the mode. */
export interface ModelCall {
  provider: ProviderDefinition;
  parsed: ParsedModelRequest;
  request: WireRequest;
  forward: Forward;
  signal: AbortSignal | undefined;
}

/** Whether a conversation's last reply asked for a tool (src/session/run.ts routes a tool call by it). */
export type ToolExpectation = "args" | "name" | undefined;

export interface SessionMode {
  readonly name: Mode;
  /**
   * The mode writes a cassette (record, fork): it collects the keys the agent sends, loads the writer and
   * ends at process exit.
   */
  readonly writes: boolean;
  /**
   * After the first refused call, every later call gets that refusal (replay, fork: the run has parted from
   * its recording).
   */
  readonly haltsOnError: boolean;
  /**
   * The next model call is answered from the recording (replay; a fork before its fork point): parsed and
   * compared incrementally.
   */
  replaying(): boolean;
  /** A provider call that is not a model call goes upstream (record, a live fork); else it is refused. */
  forwardsOther(): boolean;
  /** Answers a model call (synchronously where it can: a replayed call is short enough that a tick shows). */
  model(call: ModelCall): HttpResponseLike | Promise<HttpResponseLike>;
  /** Answers a wrapped tool's call; `run` runs the tool itself. */
  tool(name: string, input: JsonValue, run: () => unknown): Promise<unknown>;
  /**
   * The run ended with `outcome` (finish(), or the process end with `atExit`): write the cassette, or check
   * the replay.
   */
  end(outcome: TerminalPayload, atExit: boolean): void;
  /** The last reply asked for tool `name` and it was not called yet: "args" with these arguments, else "name". */
  expectsTool?(name: string, input: JsonValue): ToolExpectation;
  /** Record: the tool round being recorded (a run moves alike calls' outcomes between alike conversations). */
  roundEntries?(): RoundEntry[] | undefined;
  /** Replay: the recording's next model request, when the recording is at one. */
  nextInput?(): ModelInput | undefined;
}
