import { ReplayDivergenceError } from "../errors.js";
import { compareModelInput, type InputDifference } from "../providers/shared/compare.js";
import { canonicalJson } from "../trace/canonical.js";
import { clip, printable } from "../trace/printable.js";
import { firstDifference } from "../trace/jsonDiff.js";
import { terminalStepOf } from "../trace/payloads.js";
import type { JsonValue, ModelInput, ModelOutput, Trace, TraceStep } from "../trace/types.js";
import type { MatchMode } from "./types.js";
import { pairsAt, type RecordedPair } from "./rounds.js";
import { shareRecordedHistory } from "../trace/share.js";

const HINT = "If the change is intended, re-record the run (blackbox record -- <command>)";
const STRICT_HINT = `${HINT}, or replay with --match sequence (in code: match: "sequence") to serve the recording in order without comparing.`;

/**
 * A recorded or new value as a divergence report prints it: JSON, cut at 200 characters, safe on a terminal
 * (src/trace/printable.ts).
 */
export function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  return clip(printable(typeof value === "string" ? JSON.stringify(value) : canonicalJson(value)), 200);
}

/**
 * `update`: how to re-record in the caller's context (the cassette and the command, e.g. a test's
 * `BLACKBOX_RECORD=all npx vitest run -t "..."`), in place of the CLI's `blackbox record`.
 */
export function divergence(
  step: TraceStep | undefined,
  what: string,
  details: { path?: string; recorded?: unknown; actual?: unknown } = {},
  match: MatchMode = "strict",
  update?: { cassette: string; command: string },
): ReplayDivergenceError {
  const where = step ? `step ${step.index} (${step.type})` : "the end of the recording";
  const diff =
    details.path !== undefined
      ? `\n  at ${details.path}\n  recorded: ${show(details.recorded)}\n  now:      ${show(details.actual)}`
      : "";
  return new ReplayDivergenceError(
    `Replay diverged at ${where}: ${what}${diff}\n${update ? updateHint(update, match) : match === "sequence" ? `${HINT}.` : STRICT_HINT}`,
    {
      stepIndex: step?.index,
      path: details.path,
      recorded: details.recorded,
      actual: details.actual,
    },
  );
}

function updateHint(update: { cassette: string; command: string }, match: MatchMode): string {
  const line = `Cassette: ${update.cassette}\nIf the change is intended, re-record it: ${update.command}`;
  return match === "sequence"
    ? line
    : `${line}\n(or replay with match: "sequence" to serve the recording in order without comparing)`;
}

/**
 * Why a recording has nothing for the call the agent makes at `step`, when it ended there
 * with calls in flight: the process exited while a tool or model call ran, so that call's
 * steps were never written (a replay of it can only diverge here).
 */
function inFlightEnd(step: TraceStep | undefined): string {
  const p = step?.type === "metadata" ? (step.payload as { reason?: unknown; exitCode?: unknown }) : undefined;
  if (p?.reason !== "calls_in_flight") return "";
  return (
    `: the recording ends here because its process exited (code ${String(p.exitCode)}) while a call was still running (run_failed, calls_in_flight), ` +
    "so it holds no result for that call. A run that exits inside a tool or a model call replays only up to that call; " +
    "to replay past it, record a run that does not exit while a call runs (a tool that returns or throws instead of calling process.exit())"
  );
}

/** A cursor over a recorded run: what replay (and a fork's prefix) serves. */
export class ReplaySource {
  cursor = 0;
  round: RecordedPair[];
  modelCalls = 0;
  /** Why no tool of this run is wrapped (no config found), when none is: said instead of "without calling it". */
  unwrapped: (() => string | undefined) | undefined;

  constructor(
    readonly trace: Trace,
    readonly match: MatchMode,
    /** How to re-record, in the context the replay runs in (a divergence names it). */
    readonly update?: { cassette: string; command: string },
  ) {
    // strict replay compares recorded inputs with each other (IncrementalRequests): the repeats
    // must be the same objects. A cassette loaded from a file already is (loadVerifiedTraceSync
    // shares at parse, and this pass then only meets identical objects); a trace given in memory is not.
    if (match === "strict") shareRecordedHistory(trace.steps);
    const { pairs, end } = pairsAt(trace.steps, 0);
    this.round = pairs;
    this.cursor = end;
  }

  get steps(): TraceStep[] {
    return this.trace.steps;
  }

  /** Every recorded tool of the current round was called. */
  checkRoundDone(before: string, skip?: (p: RecordedPair) => boolean): void {
    const missed = this.round.find((p) => !p.consumed && !(skip && skip(p)));
    if (missed) {
      const name = (missed.callStep.payload as { toolName: string }).toolName;
      const why = this.unwrapped?.();
      throw divergence(
        missed.callStep,
        why
          ? `the recording ran the wrapped tool ${show(name)} here, but this replay wraps no tool: ${why}`
          : `the recording ran the wrapped tool ${show(name)} here, but the agent ${before} without calling it`,
        {},
        this.match,
        this.update,
      );
    }
  }

  /** The recorded answer to the next model call; compares the request in strict mode. */
  nextModel(
    input: ModelInput,
    compare: (recorded: ModelInput, actual: ModelInput) => InputDifference | undefined = compareModelInput,
  ): { output: ModelOutput; inputStep: TraceStep; outputStep: TraceStep } {
    this.checkRoundDone("made its next model call");
    const step = this.steps[this.cursor];
    if (!step || step.type !== "model_input") {
      throw divergence(
        step,
        `the agent made model call #${this.modelCalls + 1}, but the recording ${step ? "has no further model call" : "ended"} (it made ${this.modelCalls})${inFlightEnd(step)}`,
        {},
        this.match,
        this.update,
      );
    }
    if (this.match === "strict") {
      const d = compare(step.payload as unknown as ModelInput, input);
      if (d) throw divergence(step, "the model request differs from the recording", d, this.match, this.update);
    }
    const outputStep = this.steps[this.cursor + 1];
    if (!outputStep || outputStep.type !== "model_output") {
      throw divergence(
        outputStep ?? step,
        "the recording has no model output for this model call",
        {},
        this.match,
        this.update,
      );
    }
    this.modelCalls++;
    const { pairs, end } = pairsAt(this.steps, this.cursor + 2);
    this.round = pairs;
    this.cursor = end;
    return { output: outputStep.payload as unknown as ModelOutput, inputStep: step, outputStep };
  }

  /** The recorded call a wrapped tool invocation answers (by name, and arguments in strict mode). */
  nextTool(toolName: string, input: JsonValue): RecordedPair {
    const free = this.round.filter(
      (p) => !p.consumed && (p.callStep.payload as { toolName: string }).toolName === toolName,
    );
    if (free.length === 0) {
      const anchor = this.steps[this.cursor] ?? this.steps[this.steps.length - 1];
      throw divergence(
        anchor,
        `the agent called the wrapped tool ${show(toolName)}, which the recording did not run here${inFlightEnd(anchor)}`,
        {},
        this.match,
        this.update,
      );
    }
    let pair = free[0]!;
    if (this.match === "strict") {
      const same = free.find(
        (p) => firstDifference((p.callStep.payload as { toolInput: JsonValue }).toolInput, input) === undefined,
      );
      if (!same) {
        const recordedInput = (pair.callStep.payload as { toolInput: JsonValue }).toolInput;
        const d = firstDifference(recordedInput, input, "toolInput");
        throw divergence(
          pair.callStep,
          `the wrapped tool ${show(toolName)} was called with other arguments`,
          {
            path: d?.path ?? "toolInput",
            recorded: d ? d.a : recordedInput,
            actual: d ? d.b : input,
          },
          this.match,
          this.update,
        );
      }
      pair = same;
    }
    pair.consumed = true;
    return pair;
  }

  /** Everything recorded was used: every model call and every tool. */
  checkAllUsed(): void {
    this.checkRoundDone("finished");
    const step = this.steps[this.cursor];
    if (step && step.type !== "metadata") {
      const left = this.steps.slice(this.cursor).filter((s) => s.type === "model_input").length;
      throw divergence(
        step,
        `the agent finished after ${this.modelCalls} model call(s), but the recording made ${this.modelCalls + left}`,
        {},
        this.match,
        this.update,
      );
    }
  }

  terminal(): TraceStep | undefined {
    return terminalStepOf(this.steps);
  }
}
