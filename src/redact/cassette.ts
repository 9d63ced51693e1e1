/**
 * Rules applied to a cassette already written: `blackbox redact` rewrites one (each step's
 * payload through the rules, the hash chain made again over the same timestamps), and
 * `verify` asks which steps the current rules would change. Pure.
 */
import { TraceBuilder } from "../trace/builder.js";
import type { Trace, TraceStep } from "../trace/types.js";
import { PLACEHOLDER } from "./placeholders.js";
import { createRedactor } from "./redactor.js";
import type { RedactRules } from "./rules.js";

export interface RedactedCassette {
  trace: Trace;
  /** Indexes of the steps whose payload changed. */
  changed: number[];
  /** Distinct values replaced, by kind. */
  counts: Record<string, number>;
}

/** The cassette as the rules would have written it; the same steps (and hashes) where nothing changes. */
export function redactTrace(
  trace: Trace,
  rules: RedactRules | undefined,
  env: Record<string, string | undefined> = {},
): RedactedCassette {
  const redactor = createRedactor(rules ?? {}, env);
  // placeholders already in the file keep their numbers; new ones come after them
  for (const step of trace.steps) redactor.observe(step.payload);
  const builder = new TraceBuilder({
    id: trace.id,
    createdAt: trace.createdAt,
    parentId: trace.parentId,
    forkedFromStepId: trace.forkedFromStepId,
  });
  const changed: number[] = [];
  for (const step of trace.steps) {
    const payload = redactor.payload(step.type, step.payload);
    if (payload !== step.payload) changed.push(step.index);
    if (changed.length === 0) builder.copy(step);
    else builder.append(step.type, payload, step.timestamp);
  }
  return { trace: changed.length ? builder.trace : trace, changed, counts: redactor.counts() };
}

/** Placeholders a cassette holds, by kind: what its recording redacted. */
export function placeholdersIn(steps: readonly TraceStep[]): Record<string, number> {
  const seen = new Map<string, Set<string>>();
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      if (!v.includes("<")) return;
      for (const m of v.matchAll(PLACEHOLDER)) {
        let set = seen.get(m[1]!);
        if (!set) seen.set(m[1]!, (set = new Set()));
        set.add(m[0]);
      }
    } else if (v !== null && typeof v === "object") {
      for (const x of Array.isArray(v) ? v : Object.values(v)) visit(x);
    }
  };
  for (const s of steps) visit(s.payload);
  return Object.fromEntries([...seen].map(([kind, set]) => [kind, set.size]));
}

/** "3 values redacted (2 EMAIL, 1 AWS_KEY)", or undefined when none were. */
export function redactedSummary(counts: Record<string, number>): string | undefined {
  const kinds = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const total = kinds.reduce((n, [, k]) => n + k, 0);
  if (total === 0) return undefined;
  return `${total} value${total === 1 ? "" : "s"} redacted (${kinds.map(([k, n]) => `${n} ${k}`).join(", ")})`;
}
