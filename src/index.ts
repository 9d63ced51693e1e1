// The public surface of @ardaulas/blackbox: named exports, one by one.
export { blackbox } from "./blackbox.js";
export {
  BlackboxError,
  BlackboxUnsupportedError,
  ReplayDivergenceError,
  TraceLoadError,
  CassetteLimitError,
  ForkError,
  SessionError,
  SecretLeakError,
  CassetteWriteError,
  BlackboxConfigError,
  isBlackboxError,
} from "./errors.js";
export { CURRENT_TRACE_VERSION } from "./trace/types.js";
export { loadTrace, saveTrace } from "./store/index.js";
export { verifyTrace } from "./trace/verify.js";
export { diffTraces, diffOutcome } from "./trace/diff.js";
export { toolCallsOf } from "./trace/payloads.js";
export { replayTrace } from "./agent/replayTrace.js";
export { forkRun } from "./agent/forkRun.js";
export { assertCassette } from "./assert.js";
export { ScriptedModelClient } from "./agent/modelClient.js";
export { sweep } from "./sweep.js";

export type { CassetteLimit } from "./errors.js";
export type {
  Trace,
  TraceStep,
  TraceStepType,
  JsonValue,
  MessagePart,
  Message,
  ModelInput,
  ModelOutput,
  ToolCall,
  ToolDefinition,
  TerminalPayload,
} from "./trace/types.js";
export type { Session, SessionOptions, FinishOptions, Mode, MatchMode } from "./session/types.js";
export type { VerifyResult, VerifyProblem } from "./trace/verify.js";
export type { TraceDiff } from "./trace/diff.js";
export type { ModelClient } from "./agent/modelClient.js";
export type { ForkRunOptions } from "./agent/forkRun.js";
export type { CassetteExpectations } from "./assert.js";
export type { ReplayResult, ReplayDivergence } from "./agent/replayTrace.js";
export type { ToolFn, ToolMap } from "./agent/loop.js";
export type { SweepOptions } from "./sweep.js";
export type { SweepResult, SweepCell, SweepRow, SweepGrade, SweepSummary, SweepToolCall } from "./agent/sweepMatrix.js";
export type { VariantSpec, ForkPointInfo } from "./agent/sweepVariants.js";
