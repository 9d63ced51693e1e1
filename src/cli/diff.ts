/** `blackbox diff <a> <b> [--json]`: the first divergent step and whether the outcomes differ. */
import type { Command } from "commander";
import { loadTrace } from "../edges/store.js";
import { diffOutcome, diffTraces } from "../trace/diff.js";
import type { Outcome } from "../trace/outcome.js";
import { CliExit, out, outJson } from "./exit.js";
import { makeStyle } from "./style.js";

function short(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

function outcomeText(o: Outcome): string {
  if (o.status === "success") return `success ${short(o.result)}`;
  if (o.status === "error") return `error (${o.reason}): ${o.error}`;
  return "none (no terminal step)";
}

/** undefined has no JSON form; absent values print as null. */
const orNull = (v: unknown): unknown => (v === undefined ? null : v);

export function register(program: Command): void {
  program
    .command("diff")
    .description("show the first step where two cassettes diverge (exit 1 when they differ, 0 when the same)")
    .argument("<a>", "first cassette")
    .argument("<b>", "second cassette")
    .option("--json", "print a machine-readable result (README: CLI JSON output)")
    .action(async (fileA: string, fileB: string, opts: { json?: boolean }) => {
      const [a, b] = await Promise.all([loadTrace(fileA), loadTrace(fileB)]);
      const d = diffTraces(a, b);
      const outcome = diffOutcome(a, b);
      const same = d === null;
      if (opts.json) {
        outJson({
          same,
          divergence: d === null ? null : { ...d, a: orNull(d.a), b: orNull(d.b) },
          outcome,
        });
      } else {
        const s = makeStyle();
        if (d === null) {
          out(`${s.green("same")}: ${a.steps.length} steps with identical hashes; outcome ${outcomeText(outcome.a)}`);
        } else {
          const type = d.typeA === d.typeB ? d.typeA : `${d.typeA ?? "(none)"} in A, ${d.typeB ?? "(none)"} in B`;
          out(`${s.red("differ")}: first divergence at step ${s.bold(String(d.index))} (${type})`);
          if (d.kind === "changed") {
            out(`  ${s.bold(d.path)}`);
            out(`    A ${fileA}: ${short(d.a)}`);
            out(`    B ${fileB}: ${short(d.b)}`);
          } else {
            out(`  ${d.reason}`);
          }
          out(outcome.same ? `outcome: same, ${outcomeText(outcome.a)}` : `outcome: ${s.yellow("differs")}`);
          if (!outcome.same) {
            out(`    A: ${outcomeText(outcome.a)}`);
            out(`    B: ${outcomeText(outcome.b)}`);
          }
        }
      }
      if (!same) throw new CliExit(1);
    });
}
