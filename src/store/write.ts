import { CassetteWriteError, SecretLeakError } from "../errors.js";
import { saveTraceSync } from "./index.js";
import { findSecrets, verifyTrace } from "../trace/verify.js";
import type { Trace } from "../trace/types.js";

/**
 * The last gate before a recorded cassette reaches the disk: it must pass verify and
 * must not contain an API key the session saw. Then an atomic write.
 */
export function writeCassetteSync(path: string, trace: Trace, secrets: string[]): void {
  const leaks = secrets.length ? findSecrets(trace, secrets) : [];
  if (leaks.length > 0) {
    throw new SecretLeakError(
      `refusing to write ${path}: the cassette would contain the API key (at ${leaks.slice(0, 5).join(", ")}). ` +
        "Nothing was written. Keep keys out of prompts, tool inputs and tool results.",
    );
  }
  // a recorded agent's fork child holds the replacement tool_result at the fork point, whatever happened on the way
  const forkAt = trace.forkedFromStepId !== undefined ? Number(/:(\d+)$/.exec(trace.forkedFromStepId)?.[1]) : undefined;
  if (forkAt !== undefined && trace.steps[forkAt]?.type !== "tool_result") {
    throw new CassetteWriteError(
      `refusing to write ${path}: the fork child has no tool_result at the fork point (step ${forkAt}), so it would not hold the replacement result. Nothing was written. ` +
        "This is a bug in Blackbox; please report it with the command you ran.",
    );
  }
  const result = verifyTrace(trace);
  if (!result.ok) {
    const lines = result.problems.slice(0, 10).map((p) => `  step ${p.stepIndex ?? "-"} ${p.path}: ${p.message}`);
    throw new CassetteWriteError(
      `refusing to write ${path}: the cassette fails verify. Nothing was written.\n${lines.join("\n")}\n` +
        "This is a bug in Blackbox or in the data the agent passed; please report it with the lines above.",
    );
  }
  saveTraceSync(path, trace);
}
