/**
 * A recording agent that ends badly, as a child process (the way users run it): each
 * fault still leaves a v2 cassette that verify accepts, ending with the run_failed
 * reason the spec gives. session-finish.test.ts covers exit codes, an uncaught throw
 * and signals after the run and SIGTERM inside a tool; these are the other moments.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { loadTrace, verifyTrace } from "../../src/index.js";
import { runTs } from "../helpers/child.js";

const dir = mkdtempSync(join(tmpdir(), "bbx-faults-"));
const THROUGH_TOOL = ["model_input", "model_output", "metadata"];
const IN_SECOND_MODEL_CALL = ["model_input", "model_output", "tool_call", "tool_result", "metadata"];
const inFlight = (exitCode: number) => ({
  event: "run_failed",
  status: "error",
  reason: "calls_in_flight",
  exitCode,
  inFlight: 1,
});

const cases: Array<[fault: string, exitCode: number, types: string[], terminal: Record<string, unknown>]> = [
  ["exit-in-tool", 4, THROUGH_TOOL, inFlight(4)],
  ["throw-in-tool", 1, THROUGH_TOOL, inFlight(1)],
  ["reject-in-tool", 1, THROUGH_TOOL, inFlight(1)],
  ["SIGINT-in-model", 130, IN_SECOND_MODEL_CALL, inFlight(130)],
  ["SIGTERM-in-model", 143, IN_SECOND_MODEL_CALL, inFlight(143)],
  ["exit-in-model", 5, IN_SECOND_MODEL_CALL, inFlight(5)],
  [
    "unhandled-rejection",
    1,
    [...IN_SECOND_MODEL_CALL.slice(0, 4), "model_input", "model_output", "metadata"],
    { event: "run_failed", status: "error", reason: "agent_error", message: "nobody awaited this" },
  ],
];

describe.concurrent("a recording ended by a fault leaves a valid cassette with the spec's reason", () => {
  test.each(cases)("%s", async (fault, exitCode, types, terminal) => {
    const out = join(dir, `${fault}.json`);
    const r = await runTs("test/reliability/faultChild.ts", [fault, out]);
    // the agent's own ending is not masked: the same exit code or signal as without Blackbox
    const signal = exitCode === 130 ? "SIGINT" : exitCode === 143 ? "SIGTERM" : null;
    expect({ code: r.code, signal: r.signal }).toEqual(
      signal ? { code: null, signal } : { code: exitCode, signal: null },
    );
    const t = await loadTrace(out);
    expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
    expect(t.version).toBe(2);
    expect(t.steps.map((s) => s.type)).toEqual(types);
    expect(t.steps.at(-1)!.payload).toEqual(terminal);
  });
});
