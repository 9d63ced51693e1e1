/**
 * The timeline's filter, the pure part: which steps of a run it shows (all, the model
 * calls, the tool calls and results, the errors, or the steps search found), and where a
 * move of the keys lands among them. The timeline draws the shown steps one after the
 * other; this file takes nothing from the page, so a unit test reads it without a browser.
 */
import type { StepMeta } from "../model.js";

export type StepFilter = "all" | "model" | "tool" | "errors" | "hits";

export const FILTERS: readonly { value: StepFilter; label: string }[] = [
  { value: "all", label: "all steps" },
  { value: "model", label: "model calls" },
  { value: "tool", label: "tool calls and results" },
  { value: "errors", label: "errors" },
  { value: "hits", label: "search hits" },
];

function keeps(filter: StepFilter, s: StepMeta, i: number, hits: ReadonlySet<number>): boolean {
  switch (filter) {
    case "all":
      return true;
    case "model":
      return s.type === "model_input" || s.type === "model_output";
    case "tool":
      return s.type === "tool_call" || s.type === "tool_result";
    case "errors":
      return s.error;
    case "hits":
      return hits.has(i);
  }
}

/** The indexes of the steps the filter shows, in order. */
export function shownSteps(
  steps: readonly StepMeta[],
  filter: StepFilter,
  hits: ReadonlySet<number>,
): readonly number[] {
  const shown: number[] = [];
  for (let i = 0; i < steps.length; i++) if (keeps(filter, steps[i]!, i, hits)) shown.push(i);
  return shown;
}

/** Where `step` is in `shown`, or where it would go: the first position whose step is not before it. */
export function positionOf(shown: readonly number[], step: number): number {
  let lo = 0;
  let hi = shown.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (shown[mid]! < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The step `delta` shown rows from `step` (negative: back), stopping at the first and last
 * shown step; "first" and "last" go to the ends. From a step the filter hides, one row on
 * is the first shown step after it, one row back the last shown before it. With nothing
 * shown, the step stays.
 */
export function moveIn(shown: readonly number[], step: number, delta: number | "first" | "last"): number {
  if (shown.length === 0) return step;
  if (delta === "first") return shown[0]!;
  if (delta === "last") return shown[shown.length - 1]!;
  const at = positionOf(shown, step);
  const here = shown[at] === step;
  const to = here || delta < 0 ? at + delta : at + delta - 1;
  return shown[Math.max(0, Math.min(shown.length - 1, to))]!;
}
