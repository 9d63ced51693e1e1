/**
 * assertCassette: the test helper. Load (when given a path), verify, then check
 * the outcome against expectations; one Error naming every failed expectation.
 */
import { loadTrace } from "./store/index.js";
import { canonicalJson } from "./trace/canonical.js";
import { terminalStepOf } from "./trace/payloads.js";
import type { JsonValue, Trace } from "./trace/types.js";
import { verifyTrace } from "./trace/verify.js";

export interface CassetteExpectations {
  status?: "success" | "error";
  /** The run_completed result, compared as JSON (key order does not matter). */
  result?: JsonValue;
  /** A substring of the result (its JSON text when it is not a string). */
  resultContains?: string;
  /** The run_failed reason (max_steps_exceeded, unknown_tool, agent_error ...). */
  reason?: string;
  /** Number of steps in the cassette. */
  steps?: number;
}

const show = (v: unknown): string => (v === undefined ? "nothing" : JSON.stringify(v));

export async function assertCassette(pathOrTrace: string | Trace, expect: CassetteExpectations = {}): Promise<Trace> {
  const trace = typeof pathOrTrace === "string" ? await loadTrace(pathOrTrace) : pathOrTrace;
  const name = typeof pathOrTrace === "string" ? pathOrTrace : `trace "${trace.id}"`;

  const verified = verifyTrace(trace);
  if (!verified.ok) {
    const lines = verified.problems.map((p) => `  - ${p.path}: ${p.message}`);
    throw new Error(`${name} failed verify (${verified.problems.length} problem(s)):\n${lines.join("\n")}`);
  }

  const terminal = terminalStepOf(trace.steps)?.payload as
    { status?: string; result?: JsonValue; reason?: string } | undefined;
  const failures: string[] = [];
  const status = terminal?.status;
  if (expect.status !== undefined && status !== expect.status) {
    failures.push(
      `status: expected ${show(expect.status)}, got ${terminal ? show(status) : "no terminal step (the run never finished)"}`,
    );
  }
  if (
    expect.result !== undefined &&
    (terminal?.result === undefined || canonicalJson(terminal.result) !== canonicalJson(expect.result))
  ) {
    failures.push(`result: expected ${show(expect.result)}, got ${show(terminal?.result)}`);
  }
  if (expect.resultContains !== undefined) {
    const r = terminal?.result;
    const text = typeof r === "string" ? r : r === undefined ? "" : JSON.stringify(r);
    if (!text.includes(expect.resultContains)) {
      failures.push(`result: expected it to contain ${show(expect.resultContains)}, got ${show(r)}`);
    }
  }
  if (expect.reason !== undefined && terminal?.reason !== expect.reason) {
    failures.push(
      `reason: expected ${show(expect.reason)}, got ${show(terminal?.reason)}${status === "success" ? " (the run succeeded)" : ""}`,
    );
  }
  if (expect.steps !== undefined && trace.steps.length !== expect.steps) {
    failures.push(`steps: expected ${expect.steps}, got ${trace.steps.length}`);
  }
  if (failures.length > 0) {
    throw new Error(
      `${name} does not meet ${failures.length} expectation(s):\n${failures.map((f) => `  - ${f}`).join("\n")}\n` +
        `Run \`blackbox show\` on the cassette to see the run, or re-record it if the agent changed on purpose.`,
    );
  }
  return trace;
}
