/** The stderr warning for a cassette that fails verify but is still read (diff, show). */
import { printable } from "../trace/printable.js";
import type { VerifyResult } from "../trace/verify.js";

/** `what` names the cassette in the sentence, `file` is what to pass to verify, `consequence` what it means here. */
export function warnIfUnverified(what: string, file: string, v: VerifyResult, consequence: string): void {
  if (v.ok) return;
  const first = v.problems[0]!;
  const where = printable(first.stepIndex === null ? first.path : `step ${first.stepIndex} ${first.path}`);
  process.stderr.write(
    `blackbox: warning: ${what} fails verify (${v.problems.length} problem${v.problems.length === 1 ? "" : "s"}; first: ${where}: ${printable(first.message.split(". ")[0]!)}). ` +
      `${consequence} Run blackbox verify ${file} to see every problem.\n`,
  );
}
