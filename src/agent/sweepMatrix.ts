/**
 * A sweep's result: the matrix (tool results x variants) of the children's outcomes, its
 * summary, the sweep file's form (paths relative to its folder), and the matrix as text.
 */
import { clipColumns, printable } from "../trace/printable.js";
import type { JsonValue } from "../trace/types.js";

export const SWEEP_FILE_KIND = "blackbox-sweep";
export const SWEEP_FILE_VERSION = 1;

/** What a grader said of a child: `detail` is its message (a --verify command's last output line). */
export interface SweepGrade {
  pass: boolean;
  detail?: string;
}

/** A tool call a child made past its fork point; `ran` false: answered from the parent's recording. */
export interface SweepToolCall {
  name: string;
  input: JsonValue;
  ran: boolean;
}

/** One child: the fork at `at` given `variant`'s value, and how it ended. */
export interface SweepCell {
  at: number;
  variant: string;
  /** What the child was given at the fork point. */
  value: JsonValue;
  /** answered: a final answer; failed: the agent's run failed; error: the fork could not run; skipped: the budget ran out. */
  status: "answered" | "failed" | "error" | "skipped";
  answer?: JsonValue;
  /** What went wrong: the run's failure (failed), why the child did not run (error, skipped). */
  failure?: string;
  /** Steps in the child cassette (0: none written). */
  steps: number;
  /** Model calls the child made past its fork point. */
  modelCalls: number;
  toolCalls: SweepToolCall[];
  /** The child cassette (absolute in a result, relative to the sweep file in the file), or null. */
  cassette: string | null;
  /** The first step where the child differs from the parent (the fork point, for a good child). */
  divergesAt: number | null;
  grade?: SweepGrade;
  /** Taken from an earlier sweep whose inputs were the same. */
  reused: boolean;
  /** What identifies the child's inputs (parent hash, fork point, value, run), for reuse. */
  key: string;
}

export interface SweepRow {
  at: number;
  toolName: string;
  toolInput: JsonValue;
  recorded: JsonValue;
}

export interface SweepSummary {
  children: number;
  answered: number;
  failed: number;
  errors: number;
  skipped: number;
  reused: number;
  graded: number;
  passed: number;
  /** Model calls the children run by this sweep made past their fork points (a reused child's are not made again). */
  modelCalls: number;
  /** Names of the tools that ran for real in some child (none for a scripted sweep in code). */
  toolsRun: string[];
}

export interface SweepResult {
  kind: typeof SWEEP_FILE_KIND;
  version: typeof SWEEP_FILE_VERSION;
  parent: { cassette: string; id: string; hash: string };
  continueWith: "live" | "script";
  /** The command the children ran, or null (a sweep in code). */
  command: string[] | null;
  rows: SweepRow[];
  variants: Array<{ name: string; kind: string }>;
  /** Row-major: rows[i] x variants[j] is cells[i * variants.length + j]. */
  cells: SweepCell[];
  summary: SweepSummary;
  /** True when every child ran and every graded child passed. */
  ok: boolean;
}

export function cellAt(result: SweepResult, at: number, variant: string): SweepCell | undefined {
  return result.cells.find((c) => c.at === at && c.variant === variant);
}

export function summarize(cells: readonly SweepCell[]): SweepSummary {
  const count = (f: (c: SweepCell) => boolean) => cells.filter(f).length;
  const run = new Set<string>();
  for (const c of cells) for (const t of c.toolCalls) if (t.ran) run.add(t.name);
  return {
    children: cells.length,
    answered: count((c) => c.status === "answered"),
    failed: count((c) => c.status === "failed"),
    errors: count((c) => c.status === "error"),
    skipped: count((c) => c.status === "skipped"),
    reused: count((c) => c.reused),
    graded: count((c) => c.grade !== undefined),
    passed: count((c) => c.grade?.pass === true),
    modelCalls: cells.reduce((n, c) => n + (c.reused ? 0 : c.modelCalls), 0),
    toolsRun: [...run].sort(),
  };
}

export function isOk(s: SweepSummary): boolean {
  return s.errors === 0 && s.skipped === 0 && s.passed === s.graded;
}

const short = (v: JsonValue | undefined): string => printable(typeof v === "string" ? v : JSON.stringify(v ?? null));

/** A cell as the terminal shows it: its grade mark, then the answer or what went wrong. */
export function cellText(c: SweepCell, common = ""): string {
  const mark = c.grade ? (c.grade.pass ? "pass " : "FAIL ") : "";
  const what =
    c.status === "answered"
      ? common
        ? `...${short(c.answer).slice(common.length)}`
        : short(c.answer)
      : c.status === "failed"
        ? `failed: ${c.failure ?? ""}`
        : c.status === "error"
          ? `error: ${c.failure ?? ""}`
          : "skipped";
  return `${mark}${what}${c.reused ? " (reused)" : ""}`;
}

/** The start every answer shares (to a word's end, 16 characters at least), else "": the cells show what differs. */
export function commonStart(result: SweepResult): string {
  const texts = result.cells.filter((c) => c.status === "answered").map((c) => short(c.answer));
  if (texts.length < 2) return "";
  let n = 0;
  while (n < texts[0]!.length && texts.every((t) => t[n] === texts[0]![n])) n++;
  const start = texts[0]!.slice(0, n);
  const cut = start.lastIndexOf(" ") + 1;
  return cut >= 16 && texts.every((t) => t.length > cut) ? start.slice(0, cut) : "";
}

/** The matrix as text: one row per tool result, one column per variant (a start all answers share, above it). */
export function formatMatrix(result: SweepResult, width = 24): string {
  const common = commonStart(result);
  const rowLabel = (r: SweepRow) => clipColumns(`${r.at} ${r.toolName} ${short(r.toolInput)}`, 40);
  const labels = result.rows.map(rowLabel);
  const first = Math.max(4, ...labels.map((l) => l.length));
  const pad = (s: string, n: number) => s + " ".repeat(Math.max(0, n - s.length));
  const lines = [
    [pad("step", first), ...result.variants.map((v) => pad(clipColumns(printable(v.name), width), width))]
      .join("  ")
      .trimEnd(),
  ];
  result.rows.forEach((r, i) => {
    const cells = result.variants.map((_, j) =>
      pad(clipColumns(cellText(result.cells[i * result.variants.length + j]!, common), width), width),
    );
    lines.push([pad(labels[i]!, first), ...cells].join("  ").trimEnd());
  });
  if (common) lines.unshift(`every answer starts "${common.trimEnd()}"; the cells show the rest`, "");
  return `${lines.join("\n")}\n`;
}

/** The summary in one line. */
export function summaryLine(s: SweepSummary): string {
  const parts = [`${s.children} children: ${s.answered} answered, ${s.failed} failed`];
  if (s.errors) parts.push(`${s.errors} could not run`);
  if (s.skipped) parts.push(`${s.skipped} skipped (budget)`);
  if (s.graded) parts.push(`graded: ${s.passed} passed, ${s.graded - s.passed} failed`);
  if (s.reused) parts.push(`${s.reused} reused`);
  parts.push(`${s.modelCalls} model calls made`);
  parts.push(`tools run for real: ${s.toolsRun.length ? s.toolsRun.join(", ") : "none"}`);
  return parts.join("; ");
}
