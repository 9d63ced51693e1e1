/** `blackbox verify <cassette...> [--json]`: hash chain, schema, provider neutrality. */
import type { Command } from "commander";
import { isBlackboxError } from "../errors.js";
import { parseTraceJson } from "../trace/parse.js";
import { printable } from "../trace/printable.js";
import { shareRecordedHistory } from "../trace/share.js";
import { verifyTrace, type VerifyProblem } from "../trace/verify.js";
import { CliExit, out, outJson } from "./exit.js";
import { cassetteLabel, checkOneStdin, readCliCassetteText } from "./input.js";
import { makeStyle } from "./style.js";

export interface FileVerdict {
  file: string;
  ok: boolean;
  /** Number of steps, or null when the file could not be read as a cassette. */
  steps: number | null;
  problems: VerifyProblem[];
}

export async function verifyFile(file: string): Promise<FileVerdict> {
  let value: unknown;
  try {
    value = parseTraceJson(await readCliCassetteText(file, "verify"), cassetteLabel(file));
  } catch (error) {
    if (!isBlackboxError(error)) throw error;
    return { file, ok: false, steps: null, problems: [{ stepIndex: null, path: "(file)", message: (error as Error).message }] };
  }
  const steps = (value as { steps?: unknown })?.steps;
  // each repeat of the recorded history checked once (src/trace/share.ts): the same problems, in less time
  const result = verifyTrace(value, Array.isArray(steps) ? shareRecordedHistory(steps) : undefined);
  return { file, ok: result.ok, steps: Array.isArray(steps) ? steps.length : null, problems: result.problems };
}

export function register(program: Command): void {
  program
    .command("verify")
    .description("check cassettes: version, schema, hash chain and provider neutrality (exit 1 when any fails)")
    .argument("<cassette...>", "cassette files to check")
    .option("--json", "print a machine-readable result (README: CLI JSON output)")
    .action(async (files: string[], opts: { json?: boolean }, cmd: Command) => {
      checkOneStdin(files, cmd);
      const verdicts: FileVerdict[] = [];
      for (const file of files) verdicts.push(await verifyFile(file));
      const ok = verdicts.every((v) => v.ok);
      if (opts.json) {
        outJson({ ok, results: verdicts });
      } else {
        const s = makeStyle();
        for (const v of verdicts) {
          if (v.ok) {
            out(`${s.green("ok")}    ${v.file}  (${v.steps} steps, hash chain intact)`);
            continue;
          }
          out(`${s.red("FAIL")}  ${v.file}  ${v.problems.length} problem${v.problems.length === 1 ? "" : "s"}`);
          for (const p of v.problems) {
            const where = p.stepIndex === null ? "trace " : `step ${p.stepIndex}`;
            out(`  ${s.dim(where.padEnd(7))} ${s.bold(printable(p.path))}: ${printable(p.message)}`);
          }
        }
      }
      if (!ok) throw new CliExit(1);
    });
}
