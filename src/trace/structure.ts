/**
 * checkStructure: the step order trace-format.md describes, beyond each step's own shape.
 * A run is a sequence of model turns (model_input, then its model_output), each followed
 * by its tool round (tool_call, tool_result pairs with the same toolCallId, in call
 * order), and ends with exactly one terminal metadata step (run_completed / run_failed).
 * A hash chain alone cannot tell that a tool_result was deleted, moved or added: whoever
 * edits the file can recompute every hash. Replay serves tool results by this structure,
 * so a cassette that breaks it must fail verify. Pure.
 *
 * What the code writes, and so what is allowed:
 * - the built-in loop (single `tool_call` model outputs): after each tool-call output,
 *   exactly that call's tool_call and tool_result, or the run ends (unknown_tool);
 * - recorded agents (`tool_calls` outputs): a requested call whose tool is not wrapped, or
 *   was never run, has no tool steps; the others follow in call order; a wrapped tool the
 *   model did not request (also before the first model call or after the final answer)
 *   gets the next unused call-N, after the requested ones;
 * - a tool_call carries the time its tool started, so in a parallel round it may be earlier
 *   than the steps of the same round before it (tools are written in call order);
 * - a fork child (parentId, forkedFromStepId = `${parentId}:K`): the built-in demo fork
 *   with --at alone copies steps 0..K-1, which may end inside a model turn or a tool
 *   round, and the loop starts a new model turn at K from the history the prefix holds
 *   (an unfinished round left out). A recorded agent's fork has the replacement
 *   tool_result at K; a child whose request at K carries a result for the call left open
 *   lost that tool_result, and is refused.
 *
 * Timestamps: whole and non-negative; never earlier than the steps before, except that a
 * tool_call (stamped when its tool started) need only be no earlier than the step before
 * its round, and a tool_result no earlier than its tool_call. TraceBuilder holds every
 * timestamp it is given to this, so no clock makes the code write what verify refuses.
 *
 * Over the house's ~300 lines: the rules above are one state machine over the steps (the
 * round open, the calls it owes, the fork point), and each check reads that state; split, the
 * state would be passed around between files that make sense only together.
 */
import { appendPath } from "./jsonPath.js";
import { checkMessageIds, fieldPath, isId, notCallN, resultPartFor, showId } from "./structureIds.js";
import { callIndex, isTerminalPayload, toolCallsOf } from "./payloads.js";
import { clip, printable, quoted } from "./printable.js";
import type { SharedValues } from "./share.js";
import type { JsonValue } from "./types.js";

export interface StructureProblem {
  stepIndex: number | null;
  path: string;
  message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

const EDITED =
  "The cassette was edited or corrupted after recording: restore it from version control or re-record the run.";

interface Call {
  toolCallId: string;
  toolName: string;
}

/** The tool round after a model output (or before the first one). */
interface Round {
  /** Step index of the model output that opened it, or null. */
  output: number | null;
  /** The output was the built-in loop's single `tool_call` shape. */
  single: boolean;
  requested: Call[];
  /** Requested calls before this position are run or skipped; later tool steps come after. */
  next: number;
  /** toolCallId -> the step index of its tool_call in this round. */
  seen: Map<string, number>;
}

type Pending =
  { kind: "output"; at: number } | { kind: "result"; at: number; call: Call; timestamp: number } | undefined;

const stepAt = (i: number, field: string): string => appendPath(appendPath("steps", i), field);

/** The fork point K of a child whose forkedFromStepId is `${parentId}:K`, else undefined. */
function forkIndexOf(trace: Obj, length: number): number | undefined {
  const { parentId, forkedFromStepId } = trace;
  if (typeof parentId !== "string" || typeof forkedFromStepId !== "string") return undefined;
  if (!forkedFromStepId.startsWith(`${parentId}:`)) return undefined;
  const rest = forkedFromStepId.slice(parentId.length + 1);
  if (!/^\d+$/.test(rest)) return undefined;
  const k = Number(rest);
  return k < length ? k : undefined;
}

/** A cassette's string as a message shows it, unquoted (call-0): printable and clipped; anything else quoted. */
const shownText = (v: unknown): string => (typeof v === "string" ? clip(printable(v), 80) : quoted(v, 80));
/**
 * A string as it is, anything else as JSON: String() of a parsed object with its own toString or valueOf key
 * throws.
 */
const asText = (v: unknown): string => (typeof v === "string" ? v : showId(v));

export function checkStructure(trace: Obj, steps: readonly unknown[], shared?: SharedValues): StructureProblem[] {
  const out: StructureProblem[] = [];
  const problem = (i: number | null, path: string, message: string): void => {
    out.push({ stepIndex: i, path, message: `${message} ${EDITED}` });
  };
  if (steps.length === 0) {
    problem(
      null,
      "steps",
      "the cassette has no steps; a recorded run ends with a terminal metadata step (run_completed or run_failed).",
    );
    return out;
  }
  const forkAt = forkIndexOf(trace, steps.length);
  // a cassette the built-in loop wrote runs exactly the calls each model output asked for
  const builtIn = steps.some(
    (s) => isObj(s) && s.type === "model_output" && isObj(s.payload) && s.payload.type === "tool_call",
  );
  const checkedMessages = shared && shared.size > 0 ? new Map<object, Array<[number, unknown]>>() : undefined;

  let pending: Pending;
  let round: Round | undefined;
  let maxCall = -1; // highest call-N of the model outputs and tool_calls so far
  const unrequested = new Map<string, number>(); // ids of tool rounds no model output asked for -> step
  let maxTime = -Infinity; // latest timestamp so far
  let roundBase = -Infinity; // latest timestamp before the current tool round
  let terminalAt: number | undefined;

  const closeRound = (i: number, byFailure: boolean): void => {
    const r = round;
    round = undefined;
    if (!r || !r.single || r.output === null) return;
    const call = r.requested[0];
    if (call && !r.seen.has(call.toolCallId) && !byFailure) {
      problem(
        i,
        stepAt(i, "type"),
        `the model output at step ${r.output} asked for ${shownText(call.toolCallId)} (${quoted(call.toolName)}), but no tool_call and tool_result for it follow; the built-in loop runs every call it is asked for before the next model turn.`,
      );
    }
  };
  const missing = (i: number, type: string): void => {
    if (pending?.kind === "output") {
      problem(
        i,
        stepAt(i, "type"),
        `expected the model_output of the model_input at step ${pending.at}, found a ${type}; every model_input is followed by its model_output.`,
      );
    } else if (pending?.kind === "result") {
      problem(
        i,
        stepAt(i, "type"),
        `expected the tool_result of ${shownText(pending.call.toolCallId)} (tool_call at step ${pending.at}), found a ${type}; every tool_call is followed by its tool_result.`,
      );
    }
    pending = undefined;
  };

  steps.forEach((raw, i) => {
    if (!isObj(raw)) return;
    const type = raw.type;
    const p = isObj(raw.payload) ? raw.payload : {};
    const ts = raw.timestamp;
    // a timestamp that is not a whole, non-negative number is reported once, and not compared
    let time = typeof ts === "number" ? ts : NaN;
    if (typeof ts === "number" && (!Number.isSafeInteger(ts) || ts < 0)) {
      problem(
        i,
        stepAt(i, "timestamp"),
        `timestamp is ${ts}; a step's timestamp is a whole, non-negative number of milliseconds since the epoch.`,
      );
      time = NaN;
    }
    const notBefore = (floor: number, what: string): void => {
      if (time < floor)
        problem(
          i,
          stepAt(i, "timestamp"),
          `timestamp ${time} is earlier than ${what} (${floor}); steps are appended as they happen.`,
        );
    };
    if (terminalAt !== undefined && terminalAt === i - 1) {
      // reported once, at the terminal step that is not last
      problem(
        terminalAt,
        fieldPath(terminalAt, "payload", "event"),
        `step ${terminalAt} is a terminal ${quoted((steps[terminalAt] as Obj & { payload: Obj }).payload.event)} step, but ${steps.length - 1 - terminalAt} step(s) follow it; a run has one terminal metadata step, its last.`,
      );
    }

    // A fork child: the built-in fork with --at alone copies a prefix that may stop inside a
    // model turn or a tool round, and starts a new turn at K from the history the prefix
    // holds, which leaves an unfinished round out. A next request that carries a result for
    // the call left open got that result from outside the cassette: the fork point's
    // tool_result (a recorded agent's fork writes it at K) is missing. The prefix of a fork
    // of a fork holds its parent's fork point, which this cassette does not name: a turn
    // may start that way anywhere before K, on the same terms.
    const open =
      round?.single === true &&
      round.output !== null &&
      round.requested[0] !== undefined &&
      !round.seen.has(round.requested[0].toolCallId);
    const forkTurn =
      i === forkAt
        ? type === "model_input" || type === "metadata"
        : forkAt !== undefined && i < forkAt && type === "model_input" && (pending !== undefined || open);
    if (forkTurn) {
      if (pending?.kind === "result" && resultPartFor(p, pending.call.toolCallId)) {
        problem(
          i,
          stepAt(i, "type"),
          `step ${i} is the fork point, so it must be the tool_result of ${shownText(pending.call.toolCallId)} (tool_call at step ${pending.at}) with the replacement result, but it is a ${shownText(type)} whose messages already carry a result for ${shownText(pending.call.toolCallId)}.`,
        );
      }
      pending = undefined;
      round = undefined;
    }

    switch (type) {
      case "model_input": {
        missing(i, "model_input");
        closeRound(i, false);
        notBefore(maxTime, "an earlier step's");
        pending = { kind: "output", at: i };
        checkMessageIds(p, i, problem, checkedMessages, shared);
        break;
      }
      case "model_output": {
        if (pending?.kind !== "output") {
          if (pending) missing(i, "model_output");
          else
            problem(
              i,
              stepAt(i, "type"),
              `a model_output must directly follow its model_input, but step ${i - 1} is not one.`,
            );
        } else notBefore(maxTime, `its model_input's`);
        pending = undefined;
        const calls = toolCallsOf(p as JsonValue);
        const ids = new Set<string>();
        calls.forEach((c, k) => {
          const path =
            p.type === "tool_call"
              ? fieldPath(i, "payload", "toolCallId")
              : fieldPath(i, "payload", "calls", k, "toolCallId");
          if (!isId(c.toolCallId)) problem(i, path, notCallN(c.toolCallId));
          else if (ids.has(c.toolCallId))
            problem(
              i,
              path,
              `${shownText(c.toolCallId)} appears twice in one model output; each call of a turn has its own id.`,
            );
          else if (unrequested.has(c.toolCallId))
            problem(
              i,
              path,
              `${shownText(c.toolCallId)} is already the id of the tool round at step ${unrequested.get(c.toolCallId)}, which no model output asked for; a model's new calls get new ids.`,
            );
          ids.add(c.toolCallId);
        });
        round = { output: i, single: p.type === "tool_call", requested: calls, next: 0, seen: new Map() };
        for (const id of ids) maxCall = Math.max(maxCall, callIndex(id));
        break;
      }
      case "tool_call": {
        missing(i, "tool_call");
        const r = (round ??= { output: null, single: false, requested: [], next: 0, seen: new Map() });
        notBefore(roundBase, "the step before its tool round");
        const id = p.toolCallId;
        const name = p.toolName;
        const idPath = fieldPath(i, "payload", "toolCallId");
        if (!isId(id)) {
          problem(i, idPath, notCallN(id));
          if (typeof id === "string") r.seen.set(id, i);
        } else if (r.seen.has(id)) {
          problem(
            i,
            idPath,
            `${shownText(id)} already has a tool round at step ${r.seen.get(id)}; each requested call runs once.`,
          );
        } else {
          const k = r.requested.findIndex((c) => c.toolCallId === id);
          if (k >= 0) {
            if (k < r.next) {
              problem(
                i,
                idPath,
                `${shownText(id)} comes after a later call of the same round; tool rounds are written in the order the model output at step ${r.output} lists its calls.`,
              );
            } else if (name !== r.requested[k]!.toolName) {
              problem(
                i,
                fieldPath(i, "payload", "toolName"),
                `toolName is ${quoted(name)}, but the model output at step ${r.output} asked ${shownText(id)} for ${quoted(r.requested[k]!.toolName)}.`,
              );
            }
            r.next = Math.max(r.next, k + 1);
          } else if (builtIn || r.single) {
            problem(
              i,
              idPath,
              `no model output asked for ${shownText(id)}${r.output === null ? "" : ` (step ${r.output} asked for ${clip(r.requested.map((c) => shownText(c.toolCallId)).join(", "), 200) || "none"})`}; the built-in loop runs only the calls its model asked for.`,
            );
          } else if (callIndex(id) <= maxCall) {
            problem(
              i,
              idPath,
              `no model output of this turn asked for ${shownText(id)}, and it is not a new id (call-${maxCall} came before); a wrapped tool the model did not request gets the next unused call-N.`,
            );
          } else {
            r.next = r.requested.length; // unrequested calls come after the requested ones
            unrequested.set(id, i);
          }
          r.seen.set(id, i);
          maxCall = Math.max(maxCall, callIndex(id));
        }
        pending = { kind: "result", at: i, call: { toolCallId: asText(id), toolName: asText(name) }, timestamp: time };
        break;
      }
      case "tool_result": {
        const id = p.toolCallId;
        if (pending?.kind === "result") {
          const call = pending.call;
          if (id !== call.toolCallId) {
            problem(
              i,
              fieldPath(i, "payload", "toolCallId"),
              `toolCallId is ${showId(id)}, but the tool_call before it (step ${pending.at}) is ${shownText(call.toolCallId)}; a tool_result directly follows its own tool_call.`,
            );
          } else if (p.toolName !== call.toolName) {
            problem(
              i,
              fieldPath(i, "payload", "toolName"),
              `toolName is ${quoted(p.toolName)}, but its tool_call (step ${pending.at}) ran ${quoted(call.toolName)}.`,
            );
          }
          notBefore(pending.timestamp, "its tool_call's");
          pending = undefined;
        } else if (pending) {
          missing(i, "tool_result");
        } else {
          const earlier = typeof id === "string" ? round?.seen.get(id) : undefined;
          problem(
            i,
            stepAt(i, "type"),
            earlier !== undefined
              ? `a second tool_result for ${shownText(id)}: its tool_call (step ${earlier}) was already answered; each tool_call has exactly one tool_result, right after it.`
              : `a tool_result for ${showId(id)} without its tool_call right before it; each tool_result directly follows its own tool_call.`,
          );
        }
        break;
      }
      case "metadata": {
        missing(i, "metadata step");
        if (isTerminalPayload(p as JsonValue)) {
          closeRound(i, p.event === "run_failed");
          terminalAt = i;
        }
        notBefore(maxTime, "an earlier step's");
        break;
      }
      default:
        return; // not a step type: the shape check reports it
    }
    if (!Number.isNaN(time)) maxTime = Math.max(maxTime, time);
    if (type !== "tool_call" && type !== "tool_result") roundBase = maxTime;
  });

  const last = steps.length - 1;
  const end = steps[last];
  const endsTerminal =
    isObj(end) && end.type === "metadata" && isObj(end.payload) && isTerminalPayload(end.payload as JsonValue);
  if (!endsTerminal) {
    problem(
      last,
      stepAt(last, "type"),
      `the cassette ends at step ${last} without a terminal metadata step (run_completed or run_failed): it was cut off. Blackbox writes that step for every run it records, failed runs included.`,
    );
  }
  out.sort((a, b) => (a.stepIndex ?? -1) - (b.stepIndex ?? -1));
  return out;
}
