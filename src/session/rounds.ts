import type { JsonValue, ToolCall, TraceStep } from "../trace/types.js";
import { jsonEqual } from "./json.js";

/**
 * One tool round being recorded: the calls a model output requested, claimed by the
 * wrapped tools as they run, written in call order when the next model call starts
 * (or at finish), whatever order the tools finished in.
 */
export interface RoundEntry {
  call: ToolCall;
  claimed: boolean;
  running: boolean;
  startedAt: number;
  endedAt: number;
  outcome?: { result: JsonValue } | { error: string };
  /** Fork only: the recorded steps of this call (prefix calls are copied, not re-appended). */
  recorded?: { callStep: TraceStep; resultStep: TraceStep };
  /** Fork only: this call's result is the fork point. */
  forkPoint?: boolean;
}

export class RecordRound {
  readonly entries: RoundEntry[];

  constructor(calls: ToolCall[]) {
    this.entries = calls.map((call) => ({ call, claimed: false, running: false, startedAt: 0, endedAt: 0 }));
  }

  /** The requested call a tool invocation answers: same name and arguments, else the first with the name. */
  claim(toolName: string, input: JsonValue): RoundEntry | undefined {
    const free = this.entries.filter((e) => !e.claimed && e.call.toolName === toolName);
    const entry = free.find((e) => jsonEqual(e.call.toolInput, input)) ?? free[0];
    if (entry) entry.claimed = true;
    return entry;
  }

  add(call: ToolCall): RoundEntry {
    const entry: RoundEntry = { call, claimed: true, running: false, startedAt: 0, endedAt: 0 };
    this.entries.push(entry);
    return entry;
  }

  get running(): number {
    return this.entries.filter((e) => e.running).length;
  }
}

/** A recorded tool call and its result, as replay serves them. */
export interface RecordedPair {
  callStep: TraceStep;
  resultStep: TraceStep | undefined;
  consumed: boolean;
}

/**
 * The recorded tool steps between two model calls, paired by toolCallId. Replay
 * serves them to the wrapped tools in any order the agent calls them.
 */
export function pairsAt(steps: readonly TraceStep[], start: number): { pairs: RecordedPair[]; end: number } {
  const pairs: RecordedPair[] = [];
  const byId = new Map<string, RecordedPair>();
  let i = start;
  for (; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.type === "tool_call") {
      const p: RecordedPair = { callStep: s, resultStep: undefined, consumed: false };
      pairs.push(p);
      byId.set((s.payload as { toolCallId: string }).toolCallId, p);
    } else if (s.type === "tool_result") {
      const p = byId.get((s.payload as { toolCallId: string }).toolCallId);
      if (p) p.resultStep = s;
    } else break;
  }
  return { pairs, end: i };
}
