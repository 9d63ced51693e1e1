/**
 * `blackbox redact <cassette> [-o out] [rules...] [--check] [--json]`: the run's redaction rules
 * (blackbox.config.* `redact`, and the flags) applied to a cassette already written, for runs
 * recorded before the rules: each changed step's payload rewritten, the hash chain made again.
 * `--check` writes nothing and exits 1 when the rules would change the cassette (for CI).
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../config/index.js";
import { CassetteWriteError } from "../errors.js";
import {
  OPT_IN_DETECTORS,
  redactedSummary,
  redactRulesProblem,
  redactTrace,
  type RedactRules,
} from "../redact/index.js";
import { saveTrace } from "../store/index.js";
import { verifyTrace } from "../trace/verify.js";
import { printable } from "../trace/printable.js";
import { CliExit, out, outJson } from "./exit.js";
import { loadCliTrace, shownPath } from "./input.js";

interface RedactFlags {
  out?: string;
  detect?: string;
  value?: string[];
  pattern?: string[];
  env?: string[];
  path?: string[];
  defaults: boolean;
  config?: string;
  check?: boolean;
  json?: boolean;
}

const collect = (v: string, list: string[] = []): string[] => [...list, v];

export function register(program: Command): void {
  program
    .command("redact")
    .description("apply redaction rules to a cassette recorded before them (the hash chain made again)")
    .argument("<cassette>", "the cassette to redact")
    .option("-o, --out <file>", "where to write the redacted cassette (default: in place, atomically)")
    .option("--detect <kinds>", `opt-in detectors, comma-separated: ${Object.keys(OPT_IN_DETECTORS).join(", ")}`)
    .option("--value <text>", "a literal value never written (repeatable)", collect)
    .option("--pattern <regexp>", "a regular expression whose matches are never written (repeatable)", collect)
    .option("--env <name>", "an environment variable whose value is never written (repeatable)", collect)
    .option(
      "--path <path>",
      "a JSON path whose value is never written, e.g. toolInput.customer.email (repeatable)",
      collect,
    )
    .option("--no-defaults", "leave the built-in credential detectors off")
    .option("--config <file>", "config file whose redact rules apply (default: blackbox.config.* here)")
    .option("--check", "write nothing; exit 1 when the rules would change the cassette")
    .option("--json", "print the result as JSON")
    .action(async (file: string, flags: RedactFlags, cmd: Command) => {
      const rules = await rulesOf(flags, cmd);
      const trace = await loadCliTrace(file, "redact");
      const { trace: redacted, changed, counts } = redactTrace(trace, rules, process.env);
      const target = flags.out ? resolve(flags.out) : resolve(file);
      const summary = redactedSummary(counts);
      if (!flags.check && changed.length > 0) {
        const verdict = verifyTrace(redacted);
        if (!verdict.ok) {
          throw new CassetteWriteError(
            `the redacted cassette would fail verify (${printable(verdict.problems[0]!.message)}); nothing was written`,
          );
        }
        await saveTrace(target, redacted);
      }
      if (flags.json) {
        outJson({
          file,
          out: flags.check ? null : target,
          changedSteps: changed,
          redacted: counts,
          written: !flags.check && changed.length > 0,
        });
      } else if (changed.length === 0) {
        out(`${printable(shownPath(resolve(file)))}: nothing to redact under these rules`);
      } else {
        const where = `step${changed.length === 1 ? "" : "s"} ${changed.join(", ")}`;
        out(
          flags.check
            ? `${printable(shownPath(resolve(file)))}: the rules would change ${where}: ${summary}. Run blackbox redact ${printable(file)} to rewrite it`
            : `${printable(shownPath(target))}: ${summary} in ${where}; hash chain made again`,
        );
      }
      if (flags.check && changed.length > 0) throw new CliExit(1);
    });
}

/** The config's rules with the flags added on top; a mistyped rule is a usage error. */
async function rulesOf(flags: RedactFlags, cmd: Command): Promise<RedactRules> {
  const config = await loadConfig(process.cwd(), flags.config ?? process.env.BLACKBOX_CONFIG);
  const base = config.redact === false || config.redact === undefined ? {} : config.redact;
  const rules: RedactRules = {
    ...base,
    defaults: flags.defaults === false ? false : base.defaults,
    detect: [
      ...(base.detect ?? []),
      ...((flags.detect
        ?.split(",")
        .map((d) => d.trim())
        .filter(Boolean) ?? []) as RedactRules["detect"] & string[]),
    ],
    values: [...(base.values ?? []), ...(flags.value ?? [])],
    patterns: [...(base.patterns ?? []), ...(flags.pattern ?? [])],
    env: [...(base.env ?? []), ...(flags.env ?? [])],
    paths: [...(base.paths ?? []), ...(flags.path ?? [])],
  };
  const problem = redactRulesProblem(rules, Object.keys(OPT_IN_DETECTORS));
  if (problem) cmd.error(`error: ${problem}`, { exitCode: 2 });
  return rules;
}
