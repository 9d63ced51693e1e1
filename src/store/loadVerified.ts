import { loadTraceSharedSync } from "./index.js";
import { loadStepwiseSync } from "./stepwise.js";
import { rememberVerified, verifiedBefore } from "./verdicts.js";
import { TraceLoadError } from "../errors.js";
import type { Trace } from "../trace/types.js";
import { verifyTrace } from "../trace/verify.js";

/**
 * The cassette replay and fork are driven by: loaded and verified. An edited cassette
 * (a broken hash chain, a provider id, a key) must not drive the agent. Its recorded
 * history is shared (src/trace/share.ts): each repeat of a message is checked once.
 */
export function loadVerifiedTraceSync(file: string): Trace {
  // step by step (src/store/stepwise.ts); a cassette that passes verify passes every check
  // parseTrace makes (the same depth, version and shape checks), so it is the trace loadTrace gives
  // bytes this code verified before pass again (src/store/verdicts.ts): an edited file has other bytes
  const fast = loadStepwiseSync(file, { sha256: true });
  if (fast?.sha256 !== undefined && verifiedBefore(fast.sha256)) return fast.value as unknown as Trace;
  if (fast && verifyTrace(fast.value, fast.shared).ok) {
    if (fast.sha256 !== undefined) rememberVerified(fast.sha256);
    return fast.value as unknown as Trace;
  }
  // anything else is read whole, which says what is wrong
  const { trace, shared } = loadTraceSharedSync(file);
  const verdict = verifyTrace(trace, shared);
  if (!verdict.ok) {
    const lines = verdict.problems.slice(0, 5).map((p) => `  step ${p.stepIndex ?? "-"} ${p.path}: ${p.message}`);
    const more = verdict.problems.length > 5 ? `\n  ... and ${verdict.problems.length - 5} more` : "";
    throw new TraceLoadError(
      `${file} fails verify, so it cannot be replayed or forked:\n${lines.join("\n")}${more}\n` +
        "Restore the cassette (e.g. from version control) or record the run again; `blackbox verify` lists every problem.",
      { file },
    );
  }
  return trace;
}
