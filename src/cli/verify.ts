/** `blackbox verify <cassette...> [--json]`: hash chain, schema, provider neutrality. */
import type { Command } from "commander";
import { loadConfig } from "../config/index.js";
import { CassetteLimitError, isBlackboxError } from "../errors.js";
import { redactedSummary, redactTrace, type RedactRules } from "../redact/index.js";
import type { Trace } from "../trace/types.js";
import { parseTraceJson } from "../trace/parse.js";
import { printable } from "../trace/printable.js";
import { shareRecordedHistory, type SharedValues } from "../trace/share.js";
import { loadStepwiseSync } from "../store/stepwise.js";
import { verifyTrace, type VerifyProblem } from "../trace/verify.js";
import { CliExit, out, outJson } from "./exit.js";
import { cassetteLabel, checkOneStdin, readCliCassetteText, requireCassettes, STDIN } from "./input.js";
import { makeStyle } from "./style.js";
import { isRunFolder } from "./runFolder.js";
import { loadRunIndexSync } from "../store/run.js";
import { RUN_INDEX } from "../trace/runIndex.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface FileVerdict {
  file: string;
  ok: boolean;
  /** Number of steps, or null when the file could not be read as a cassette. */
  steps: number | null;
  problems: VerifyProblem[];
}

export async function verifyFile(file: string, redact?: RedactRules): Promise<FileVerdict> {
  // a cassette file as Blackbox writes it is parsed step by step (src/store/stepwise.ts): the same value and
  // shared history in less time and memory; anything else is read whole, whose errors say what is wrong
  const fast = file === STDIN ? undefined : loadStepwiseSync(file);
  if (fast) return verdictOf(file, fast.value, fast.shared, redact);
  let value: unknown;
  try {
    value = parseTraceJson(await readCliCassetteText(file, "verify"), cassetteLabel(file));
  } catch (error) {
    if (!isBlackboxError(error) || error instanceof CassetteLimitError) throw error; // a limit: exit 2, as bad input
    return {
      file,
      ok: false,
      steps: null,
      problems: [{ stepIndex: null, path: "(file)", message: (error as Error).message }],
    };
  }
  const steps = (value as { steps?: unknown })?.steps;
  // each repeat of the recorded history checked once (src/trace/share.ts): the same problems, in less time
  return verdictOf(file, value, Array.isArray(steps) ? shareRecordedHistory(steps) : undefined, redact);
}

function verdictOf(file: string, value: unknown, shared: SharedValues | undefined, redact?: RedactRules): FileVerdict {
  const steps = (value as { steps?: unknown })?.steps;
  const result = verifyTrace(value, shared);
  const problems = [...result.problems];
  // --strict: a value the current redaction rules would have kept out of the cassette is a problem too
  if (redact && result.ok) {
    const { changed, counts } = redactTrace(value as Trace, redact, process.env);
    if (changed.length > 0)
      problems.push({
        stepIndex: changed[0]!,
        path: "(redaction)",
        message: `the redaction rules would change step${changed.length === 1 ? "" : "s"} ${changed.join(", ")}: ${redactedSummary(counts)}. Run blackbox redact ${file} to rewrite it`,
      });
  }
  return { file, ok: problems.length === 0, steps: Array.isArray(steps) ? steps.length : null, problems };
}

/**
 * A run's folder (docs/conversations.md): its index (format, its own hash), then each conversation's cassette,
 * which must end its hash chain where the index says.
 */
export async function verifyRunFolder(folder: string, redact?: RedactRules): Promise<FileVerdict[]> {
  const indexFile = join(folder, RUN_INDEX);
  let index;
  try {
    index = loadRunIndexSync(folder);
  } catch (error) {
    if (!isBlackboxError(error)) throw error;
    return [
      {
        file: indexFile,
        ok: false,
        steps: null,
        problems: [{ stepIndex: null, path: "(index)", message: (error as Error).message }],
      },
    ];
  }
  const verdicts: FileVerdict[] = [];
  for (const c of index.conversations) {
    const file = join(folder, c.file);
    const v = await verifyFile(file, redact);
    if (v.ok) {
      const trace = JSON.parse(readFileSync(file, "utf8")) as Trace;
      if ((trace.steps[trace.steps.length - 1]?.hash ?? "") !== c.lastHash)
        v.problems.push({
          stepIndex: null,
          path: "(index)",
          message: `its hash chain ends other than ${RUN_INDEX} says: the cassette was replaced or re-recorded alone. Record the run again`,
        });
      v.ok = v.problems.length === 0;
    }
    verdicts.push(v);
  }
  return verdicts;
}

export function register(program: Command): void {
  program
    .command("verify")
    .description("check cassettes: version, schema, hash chain and provider neutrality (exit 1 when any fails)")
    .argument("<cassette...>", "cassette files (or run folders) to check")
    .option("--json", "print a machine-readable result (README: CLI JSON output)")
    .option(
      "--strict",
      "also fail a cassette holding values the redaction rules (blackbox.config.* redact) would replace",
    )
    .option("--config <file>", "with --strict: the config whose redact rules apply (default: blackbox.config.* here)")
    .action(async (files: string[], opts: { json?: boolean; strict?: boolean; config?: string }, cmd: Command) => {
      checkOneStdin(files, cmd);
      // unreadable: a usage error (2); not a valid cassette: the verdict (1); a run's folder: each of its cassettes
      requireCassettes(
        cmd,
        files.filter((f) => !isRunFolder(f)),
      );
      const verdicts: FileVerdict[] = [];
      const rules = opts.strict ? await strictRules(opts.config) : undefined;
      for (const file of files)
        if (isRunFolder(file)) verdicts.push(...(await verifyRunFolder(file, rules)));
        else verdicts.push(await verifyFile(file, rules));
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

/** The rules `--strict` holds cassettes to: the config's redact rules (the defaults where it has none). */
async function strictRules(config: string | undefined): Promise<RedactRules> {
  const loaded = await loadConfig(process.cwd(), config ?? process.env.BLACKBOX_CONFIG);
  return loaded.redact === false || loaded.redact === undefined ? {} : loaded.redact;
}
