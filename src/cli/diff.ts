/** `blackbox diff <a> <b> [--json]`: the first divergent step and whether the outcomes differ. */
import type { Command } from "commander";
import { diffOutcome, diffTraces } from "../trace/diff.js";
import { forkIndexOf } from "../trace/payloads.js";
import type { Outcome } from "../trace/outcome.js";
import { printable, quoted } from "../trace/printable.js";
import type { Trace } from "../trace/types.js";
import { verifyTrace, type VerifyResult } from "../trace/verify.js";
import { CliExit, out, outJson } from "./exit.js";
import { checkOneStdin, loadCliTrace, requireCassettes } from "./input.js";
import { warnIfUnverified } from "./warn.js";
import { makeStyle } from "./style.js";
import { isRunFolder, loadRun } from "./runFolder.js";
import { canonicalJson } from "../trace/canonical.js";

function short(value: unknown): string {
  if (value === undefined) return "(absent)";
  return quoted(value, 100);
}

function outcomeText(o: Outcome): string {
  if (o.status === "success") return `success ${short(o.result)}`;
  if (o.status === "error") return printable(`error (${o.reason}): ${o.error}`);
  return "none (no terminal step)";
}

/**
 * A cassette that fails verify is still diffed (diffing an edited copy against the original
 * is how one sees what was edited), by content, never by its stored hashes; the user is
 * told it fails verify, on stderr, so stdout stays the diff.
 */
function warnUnverified(file: string, side: "A" | "B", v: VerifyResult): void {
  warnIfUnverified(`${side} ${file}`, file, v, "Its steps were compared by content, not by their stored hashes.");
}

export interface ForkRelation {
  /** Which side is the fork of the other. */
  child: "a" | "b";
  parentId: string;
  forkedFromStepId: string | null;
  /** The step index in forkedFromStepId, or null. */
  at: number | null;
}

/** B forked from A (or A from B), by the runs' ids: what makes a divergence at N expected. */
function forkRelation(a: Trace, b: Trace): ForkRelation | null {
  const [child, other, side] =
    b.parentId !== undefined && b.parentId === a.id
      ? [b, a, "b" as const]
      : a.parentId !== undefined && a.parentId === b.id
        ? [a, b, "a" as const]
        : [];
  if (child === undefined || other === undefined || side === undefined) return null;
  return {
    child: side,
    parentId: other.id,
    forkedFromStepId: child.forkedFromStepId ?? null,
    at: forkIndexOf(child) ?? null,
  };
}

function relationText(r: ForkRelation): string {
  const [child, parent] = r.child === "b" ? ["B", "A"] : ["A", "B"];
  return printable(`${child} is a fork of ${parent} (run ${r.parentId})${r.at === null ? "" : ` at step ${r.at}`}`);
}

const verdict = (t: Trace): VerifyResult => verifyTrace(t);

/** undefined has no JSON form; absent values print as null. */
const orNull = (v: unknown): unknown => (v === undefined ? null : v);

export function register(program: Command): void {
  program
    .command("diff")
    .description(
      "show the first step where two cassettes diverge (exit 1 when they differ, 0 when the same, 2 when one cannot be read)",
    )
    .argument("<a>", "first cassette (or run folder)")
    .argument("<b>", "second cassette (or run folder)")
    .option("--json", "print a machine-readable result (README: CLI JSON output)")
    .action(async (fileA: string, fileB: string, opts: { json?: boolean }, cmd: Command) => {
      checkOneStdin([fileA, fileB], cmd);
      if (isRunFolder(fileA) && isRunFolder(fileB)) return diffRuns(fileA, fileB, opts.json === true);
      requireCassettes(cmd, [fileA, fileB]);
      // as diff(1) and cmp(1): 1 says only "they differ"; one that is not a cassette is 2 (main.ts)
      const [a, b] = await Promise.all([loadCliTrace(fileA, "diff"), loadCliTrace(fileB, "diff")]);
      const d = diffTraces(a, b);
      const outcome = diffOutcome(a, b);
      const same = d === null;
      const va = verdict(a);
      const vb = fileA === fileB ? va : verdict(b);
      const fork = forkRelation(a, b);
      if (opts.json) {
        outJson({
          same,
          divergence: d === null ? null : { ...d, a: orNull(d.a), b: orNull(d.b) },
          outcome,
          fork,
          verify: { a: { ok: va.ok, problems: va.problems }, b: { ok: vb.ok, problems: vb.problems } },
        });
      } else {
        warnUnverified(fileA, "A", va);
        if (fileB !== fileA) warnUnverified(fileB, "B", vb);
        const s = makeStyle();
        if (d === null) {
          out(
            `${s.green("same")}: ${a.steps.length} steps with the same content${va.ok && vb.ok ? " and identical hashes" : ""}; outcome ${outcomeText(outcome.a)}`,
          );
        } else {
          const type = d.typeA === d.typeB ? d.typeA : `${d.typeA ?? "(none)"} in A, ${d.typeB ?? "(none)"} in B`;
          out(`${s.red("differ")}: first divergence at step ${s.bold(String(d.index))} (${type})`);
          if (fork) out(`  ${relationText(fork)}`);
          if (d.retimed)
            out(`  before it, ${d.retimed.count} step(s) from step ${d.retimed.first} differ only in their timestamps`);
          if (d.kind === "changed") {
            out(`  ${s.bold(printable(d.path))}`);
            out(`    A ${fileA}: ${short(d.a)}`);
            out(`    B ${fileB}: ${short(d.b)}`);
          } else {
            out(`  ${printable(d.reason)}`);
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

/**
 * Two runs' folders (docs/conversations.md), conversation by conversation: each conversation of A is paired with
 * the first of B not paired yet that began with the same request, else the next one of B in the order they
 * started; a conversation of one run with no partner is said. Exit 1 when any pair differs.
 */
function diffRuns(folderA: string, folderB: string, json: boolean): void {
  const a = loadRun(folderA);
  const b = loadRun(folderB);
  const firstInput = (t: Trace) => canonicalJson(t.steps.find((s) => s.type === "model_input")?.payload ?? null);
  const free = b.traces.map((_, i) => i);
  const pairs: Array<{ a?: number; b?: number }> = a.traces.map((t, i) => {
    const alike = free.find((j) => firstInput(b.traces[j]!) === firstInput(t));
    const j = alike ?? free[0];
    if (j !== undefined) free.splice(free.indexOf(j), 1);
    return { a: i, b: j };
  });
  for (const j of free) pairs.push({ b: j });
  const rows = pairs.map(({ a: i, b: j }) => {
    const fa = i === undefined ? null : a.index.conversations[i]!.file;
    const fb = j === undefined ? null : b.index.conversations[j]!.file;
    if (i === undefined || j === undefined) return { a: fa, b: fb, same: false, divergence: null, outcome: null };
    const d = diffTraces(a.traces[i]!, b.traces[j]!);
    const divergence = d === null ? null : { ...d, a: orNull(d.a), b: orNull(d.b) };
    return { a: fa, b: fb, same: d === null, divergence, outcome: diffOutcome(a.traces[i]!, b.traces[j]!) };
  });
  const same = rows.every((r) => r.same);
  if (json) outJson({ same, conversations: rows });
  else {
    const s = makeStyle();
    out(
      `${same ? s.green("same") : s.red("differ")}: ${rows.length} conversation(s), ${rows.filter((r) => !r.same).length} differ`,
    );
    for (const r of rows) {
      const name = r.a === r.b ? r.a : `${r.a ?? "(none)"} / ${r.b ?? "(none)"}`;
      if (r.a === null || r.b === null) out(`  ${name}: only in ${r.a === null ? "B" : "A"}`);
      else if (r.same) out(`  ${name}: same`);
      else {
        const d = r.divergence!;
        out(
          `  ${name}: first divergence at step ${d.index} (${d.typeA === d.typeB ? d.typeA : `${d.typeA} / ${d.typeB}`})`,
        );
        if (d.kind === "changed") {
          out(`    ${printable(d.path)}`);
          out(`      A: ${short(d.a)}`);
          out(`      B: ${short(d.b)}`);
        } else out(`    ${printable(d.reason)}`);
      }
    }
  }
  if (!same) throw new CliExit(1);
}
