/** The run summary `record`, `replay` and `fork` print under --json (schemas.ts runSummarySchema). */
import { placeholdersIn } from "../redact/index.js";
import { outcomeOf } from "../trace/outcome.js";
import { callCounts } from "../trace/payloads.js";
import { unrecordedTools } from "../trace/unrecordedTools.js";
import type { Trace } from "../trace/types.js";
import type { DivergenceJson, RunSummary } from "./schemas.js";

type Counts = Array<{ name: string; calls: number }>;

function add(counts: Counts, name: string): void {
  const entry = counts.find((c) => c.name === name);
  if (entry) entry.calls++;
  else counts.push({ name, calls: 1 });
}

/** Tools the model asked for that ran where Blackbox did not see them (src/trace/unrecordedTools.ts), by name. */
export function unrecordedCounts(trace: Trace): Counts {
  return unrecordedTools(trace).tools.map((t) => ({ name: t.name, calls: t.count }));
}

export function runSummary(trace: Trace): RunSummary {
  const { models, tools } = callCounts(trace.steps);
  const byName: Counts = [];
  for (const s of trace.steps)
    if (s.type === "tool_call") add(byName, String((s.payload as { toolName?: unknown }).toolName));
  return {
    id: trace.id,
    steps: trace.steps.length,
    modelCalls: models,
    toolCalls: tools,
    tools: byName,
    unrecordedTools: unrecordedCounts(trace),
    redactions: placeholdersIn(trace.steps),
    outcome: outcomeOf(trace),
  };
}

/** undefined has no JSON form: an absent value is null. */
const orNull = (v: unknown): unknown => (v === undefined ? null : v);

/** A divergence (a ReplayDivergenceError, a child's report, replayTrace's) as --json prints it. */
export function divergenceJson(d: {
  stepIndex?: number | null;
  path?: string | null;
  recorded?: unknown;
  actual?: unknown;
  message: string;
}): DivergenceJson {
  return {
    step: d.stepIndex ?? null,
    path: d.path === undefined || d.path === "" ? null : d.path,
    expected: orNull(d.recorded),
    actual: orNull(d.actual),
    message: d.message,
  };
}
