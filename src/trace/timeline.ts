/**
 * A run as a readable timeline (`blackbox show`, `blackbox demo`): one line a
 * step, tool steps indented under their model output, the fork point and
 * parent marked, the outcome last. Pure: colour is an option, not a lookup.
 */
import { outcomeOf } from "./outcome.js";
import { forkIndexOf, toolCallsOf } from "./payloads.js";
import { clip, clipColumns, columnsOf, printable } from "./printable.js";
import type { Trace, TraceStep } from "./types.js";

export interface TimelineOptions {
  color: boolean;
  /** Longest preview of a value (default 60 characters). */
  width?: number;
  /** The terminal's width: each line is cut to fit (default: lines are not cut). */
  columns?: number;
}

/**
 * `text` cut so that `used` columns plus it fit in `columns` (left whole when it cannot be cut usefully); a
 * CJK character or an emoji takes two.
 */
function fit(text: string, used: number, columns: number | undefined): string {
  if (columns === undefined) return text;
  const room = columns - used;
  return room >= 8 ? clipColumns(text, room) : text;
}

type Paint = (code: string, text: string) => string;

function painter(color: boolean): Paint {
  return color ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
}

function preview(value: unknown, width: number): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? "undefined");
  return clip(printable(text.replace(/\s+/g, " ")), width);
}

/** The creation time as ISO text; a number no Date can hold is shown as it is. */
function createdText(createdAt: number): string {
  const date = new Date(createdAt);
  return Number.isNaN(date.getTime()) ? `at ${createdAt} (not a valid time)` : date.toISOString();
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function describe(step: TraceStep, width: number): string {
  const p = step.payload as Record<string, unknown>;
  switch (step.type) {
    case "model_input": {
      const parts = [
        plural(Array.isArray(p.messages) ? p.messages.length : 0, "message"),
        plural(Array.isArray(p.tools) ? p.tools.length : 0, "tool"),
      ];
      if (typeof p.model === "string") parts.push(`model ${p.model}`);
      return parts.join(", ");
    }
    case "model_output": {
      const stop = typeof p.stop === "string" ? ` [stop: ${p.stop}]` : "";
      if (p.type === "final_answer") return `final answer ${preview(p.text, width)}${stop}`;
      const calls = toolCallsOf(step.payload);
      const text = typeof p.text === "string" && p.text !== "" ? ` ${preview(p.text, width)}` : "";
      return `${plural(calls.length, "tool call")}: ${calls.map((c) => c.toolName).join(", ")}${text}${stop}`;
    }
    case "tool_call":
      return `${String(p.toolCallId)} ${String(p.toolName)}(${preview(p.toolInput, width)})`;
    case "tool_result":
      return "error" in p
        ? `${String(p.toolCallId)} ${String(p.toolName)} failed: ${preview(p.error, width)}`
        : `${String(p.toolCallId)} ${String(p.toolName)} -> ${preview(p.result, width)}`;
    case "metadata": {
      if (p.event === "run_failed") return `run_failed (${String(p.reason)})`;
      return String(p.event ?? "metadata");
    }
    default:
      return "";
  }
}

/** Time since the first step: +250ms, +1.5s, +2m03s, +34h17m (- when the clock went back). */
function elapsed(ms: number): string {
  const sign = ms < 0 ? "-" : "+";
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${a}ms`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(1)}s`;
  const two = (n: number) => String(n).padStart(2, "0");
  if (a < 3_600_000) return `${sign}${Math.floor(a / 60_000)}m${two(Math.floor(a / 1000) % 60)}s`;
  return `${sign}${Math.floor(a / 3_600_000)}h${two(Math.floor(a / 60_000) % 60)}m`;
}

export interface TimelineRow {
  index: number;
  type: TraceStep["type"];
  timestamp: number;
  /** True for a tool_call / tool_result inside the tool round of the model output above it. */
  nested: boolean;
  /** True at the step where a forked run diverges from its parent. */
  forkPoint: boolean;
  /** Milliseconds since the first step, within the run: a fork's gap between its parent's recording and the fork is left out. */
  elapsedMs: number;
  /** One line saying what the step holds. */
  text: string;
}

/**
 * Each step's time within the run. A fork child keeps its parent's steps up to the fork
 * point with their timestamps and makes the rest later (minutes or days): the step after
 * the fork point is counted from the fork point, so the time column says what the run
 * did, not when it was forked.
 */
export function runTimes(trace: Trace): number[] {
  const t0 = trace.steps[0]?.timestamp ?? trace.createdAt;
  const forkAt = forkIndexOf(trace);
  const resumed = forkAt === undefined ? undefined : trace.steps[forkAt + 1];
  const gap = resumed !== undefined ? resumed.timestamp - trace.steps[forkAt!]!.timestamp : 0;
  return trace.steps.map((step, i) => step.timestamp - t0 - (forkAt !== undefined && i > forkAt ? gap : 0));
}

/** The timeline as data: one row a step (what `show --json` prints). */
export function timelineRows(trace: Trace, width = 60): TimelineRow[] {
  const forkAt = forkIndexOf(trace);
  const times = runTimes(trace);
  let inToolRound = false;
  return trace.steps.map((step, i) => {
    if (step.type === "model_output") inToolRound = toolCallsOf(step.payload).length > 0;
    else if (step.type !== "tool_call" && step.type !== "tool_result") inToolRound = false;
    const nested = inToolRound && (step.type === "tool_call" || step.type === "tool_result");
    return {
      index: step.index,
      type: step.type,
      timestamp: step.timestamp,
      nested,
      forkPoint: step.index === forkAt,
      elapsedMs: times[i]!,
      text: printable(describe(step, width)),
    };
  });
}

export function formatTimeline(trace: Trace, options: TimelineOptions): string {
  const paint = painter(options.color);
  const width = options.width ?? 60;
  const lines: string[] = [];
  const cols = options.columns;
  const runId = fit(`run ${printable(trace.id)}`, 0, cols);
  lines.push(
    `${paint("1", runId)}${fit(`  ${plural(trace.steps.length, "step")}, created ${createdText(trace.createdAt)}`, columnsOf(runId), cols)}`,
  );
  if (trace.parentId !== undefined) {
    lines.push(
      paint(
        "35",
        fit(
          printable(
            `forked from ${trace.parentId}${trace.forkedFromStepId !== undefined ? ` at ${trace.forkedFromStepId}` : ""}`,
          ),
          0,
          cols,
        ),
      ),
    );
  }
  const indexWidth = String(Math.max(0, trace.steps.length - 1)).length;
  for (const row of timelineRows(trace, width)) {
    const typeColor = row.type === "metadata" ? "33" : row.type.startsWith("model") ? "36" : "32";
    const type = paint(typeColor, (row.nested ? `  ${row.type}` : row.type).padEnd(14));
    const idx = paint("2", String(row.index).padStart(indexWidth));
    const time = paint("2", elapsed(row.elapsedMs).padStart(8));
    const fork = row.forkPoint ? `  ${paint("35;1", "<- fork point")}` : "";
    // visible width of "  <index> <time>  <type> " and of the fork marker
    const used = 2 + indexWidth + 1 + 8 + 2 + 14 + 1 + (row.forkPoint ? 15 : 0);
    lines.push(`  ${idx} ${time}  ${type} ${fit(row.text, used, cols)}${fork}`);
  }
  const outcome = outcomeOf(trace);
  if (outcome.status === "success")
    lines.push(`${paint("32;1", "outcome: success")} ${fit(preview(outcome.result, width), 17, cols)}`);
  else if (outcome.status === "error")
    lines.push(`${paint("31;1", "outcome: error")} ${fit(printable(outcome.error ?? ""), 15, cols)}`);
  else lines.push(paint("33;1", "outcome: none (the run has no terminal step)"));
  return `${lines.join("\n")}\n`;
}
