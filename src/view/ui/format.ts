/** Small text helpers for the page. */
import type { RunMeta, StepType } from "../model.js";

/** Time since the run's first step: +250ms, +1.5s, +2m03s (- when the clock went back). */
export function elapsed(ms: number): string {
  const sign = ms < 0 ? "-" : "+";
  return `${sign}${duration(Math.abs(ms))}`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const two = (n: number): string => String(n).padStart(2, "0");
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${two(Math.floor(ms / 1000) % 60)}s`;
  return `${Math.floor(ms / 3_600_000)}h${two(Math.floor(ms / 60_000) % 60)}m`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime())
    ? String(ms)
    : d
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, " UTC");
}

export const TYPE_LABEL: Record<StepType, string> = {
  model_input: "model input",
  model_output: "model output",
  tool_call: "tool call",
  tool_result: "tool result",
  metadata: "metadata",
};

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The time the run spans: first step to the last step or end. */
export function span(run: RunMeta): { t0: number; t1: number } {
  const t0 = run.steps[0]?.timestamp ?? run.createdAt;
  let t1 = t0;
  for (const s of run.steps) t1 = Math.max(t1, s.timestamp, s.end ?? 0);
  return { t0, t1 };
}

/** Pretty JSON, cut at `limit` characters. */
export function prettyJson(value: unknown, limit: number): { text: string; cut: number } {
  const text = JSON.stringify(value, null, 2) ?? "undefined";
  return text.length > limit ? { text: text.slice(0, limit), cut: text.length } : { text, cut: 0 };
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
