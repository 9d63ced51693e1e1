/**
 * A sweep: for each chosen tool result of a recorded run and each variant, a fork child
 * (the parent's prefix, the variant's value at the fork point, then the run goes on live
 * or scripted), and the matrix of their outcomes (docs/sweep.md). How a child runs (a
 * session in this process, a command under the hook) is the caller's `runChild`; this
 * file plans the children, reuses those whose inputs did not change, runs the rest with
 * bounded concurrency within a budget, grades them and writes the sweep file.
 */
import { mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ForkError } from "../errors.js";
import { canonicalJson, sha256Hex } from "../trace/canonical.js";
import { diffTraces } from "../trace/diff.js";
import { outcomeOf } from "../trace/outcome.js";
import type { JsonValue, Trace } from "../trace/types.js";
import { readSweepFile, SWEEP_FILE_NAME, writeSweepFile } from "./sweepFile.js";
import {
  isOk,
  summarize,
  SWEEP_FILE_KIND,
  SWEEP_FILE_VERSION,
  type SweepCell,
  type SweepGrade,
  type SweepResult,
  type SweepRow,
  type SweepToolCall,
} from "./sweepMatrix.js";
import type { ForkPointInfo, Variant } from "./sweepVariants.js";

/** One child to run: fork `parent` at `point.at` with `value`, writing `out`. */
export interface ChildSpec {
  point: ForkPointInfo;
  variant: Variant;
  value: JsonValue;
  out: string;
  key: string;
}

/** How a child's run went, as its runner saw it; the cassette at `out` says the rest. */
export interface ChildRun {
  /** Why no child cassette could be written (a divergence before the fork point, a script that ran out ...). */
  error?: string;
  /** The tool calls answered from the parent's recording instead of running (a scripted child). */
  answered?: Array<{ name: string; input: JsonValue }>;
}

export interface SweepPlan {
  parentPath: string;
  /** The parent, loaded and verified. */
  parent: Trace;
  /** Tool result step indexes, or "all" (the default). */
  at?: readonly number[] | "all";
  variants: readonly Variant[];
  /** The folder the children and the sweep file go to. */
  outDir: string;
  continueWith: "live" | "script";
  /** What else decides a child's run, for reuse: the command, the script ... */
  inputs: JsonValue;
  command: string[] | null;
  jobs?: number;
  /** No new child starts once the children have made this many model calls past their fork points. */
  maxCalls?: number;
  /** Do not reuse children of an earlier sweep in `outDir`. */
  fresh?: boolean;
}

export interface SweepPorts {
  runChild(spec: ChildSpec): Promise<ChildRun>;
  /** The child cassette, loaded and verified; undefined when it is missing or fails verify. */
  loadChild(file: string): Trace | undefined;
  grade?(cell: SweepCell): Promise<SweepGrade | undefined>;
  progress?(done: number, total: number, cell: SweepCell): void;
}

/** The default output folder: `<parent>.sweep/` beside the parent. */
export function defaultSweepDir(parentPath: string): string {
  return join(parentPath.replace(/[^/\\]*$/, ""), `${basename(parentPath).replace(/\.json$/i, "")}.sweep`);
}

/** The fork points of `at` (every tool_result step for "all"), checked against the parent. */
export function forkPoints(parent: Trace, at: readonly number[] | "all" = "all"): ForkPointInfo[] {
  const results = parent.steps.filter((s) => s.type === "tool_result");
  if (results.length === 0) {
    throw new ForkError(
      `the cassette "${parent.id}" has no tool_result step, so there is nothing to sweep: record the run with its tools wrapped (bb.tools, or the config's tools)`,
    );
  }
  const chosen = at === "all" ? results.map((s) => s.index) : [...new Set(at)].sort((a, b) => a - b);
  return chosen.map((n) => {
    const step = parent.steps[n];
    if (!step || step.type !== "tool_result") {
      throw new ForkError(
        `cannot sweep at step ${n} of "${parent.id}": it is ${step ? `a ${step.type}` : "not a step"}, and a sweep forks at tool_result steps (${results.map((s) => s.index).join(", ")}); pass --at with those, or --at all`,
      );
    }
    const p = step.payload as { toolCallId: string; toolName: string; result?: JsonValue; error?: string };
    const call = parent.steps.find(
      (s) => s.type === "tool_call" && (s.payload as { toolCallId?: string }).toolCallId === p.toolCallId,
    );
    const point: ForkPointInfo = {
      at: n,
      toolName: p.toolName,
      toolInput: ((call?.payload as { toolInput?: JsonValue } | undefined)?.toolInput ?? null) as JsonValue,
      recorded: p.result ?? null,
    };
    if (p.error !== undefined) point.recordedError = p.error;
    return point;
  });
}

/** A cell's outcome read from its child cassette. */
export function cellFromChild(
  parent: Trace,
  spec: ChildSpec,
  child: Trace,
  answered: ChildRun["answered"] = [],
): SweepCell {
  const at = spec.point.at;
  const outcome = outcomeOf(child);
  const left = [...answered];
  const toolCalls: SweepToolCall[] = child.steps
    .filter((s) => s.index > at && s.type === "tool_call")
    .map((s) => {
      const p = s.payload as { toolName: string; toolInput: JsonValue };
      const i = left.findIndex((a) => a.name === p.toolName && canonicalJson(a.input) === canonicalJson(p.toolInput));
      if (i >= 0) left.splice(i, 1);
      return { name: p.toolName, input: p.toolInput, ran: i < 0 };
    });
  const cell: SweepCell = {
    ...base(spec),
    status: outcome.status === "success" ? "answered" : "failed",
    steps: child.steps.length,
    modelCalls: child.steps.filter((s) => s.index > at && s.type === "model_input").length,
    toolCalls,
    cassette: spec.out,
    divergesAt: diffTraces(parent, child)?.index ?? null,
  };
  if (outcome.status === "success") cell.answer = outcome.result ?? null;
  else cell.failure = outcome.error ?? "the run has no end step";
  return cell;
}

function base(spec: ChildSpec): Pick<SweepCell, "at" | "variant" | "value" | "key" | "reused"> {
  return { at: spec.point.at, variant: spec.variant.name, value: spec.value, key: spec.key, reused: false };
}

function emptyCell(spec: ChildSpec, status: "error" | "skipped", failure: string): SweepCell {
  return {
    ...base(spec),
    status,
    failure,
    steps: 0,
    modelCalls: 0,
    toolCalls: [],
    cassette: null,
    divergesAt: null,
  };
}

/** The children a sweep is made of, in matrix order (rows: fork points, columns: variants). */
export function planChildren(plan: SweepPlan): { rows: SweepRow[]; specs: ChildSpec[] } {
  const points = forkPoints(plan.parent, plan.at);
  const name = basename(plan.parentPath).replace(/\.json$/i, "");
  const head = plan.parent.steps.at(-1)?.hash ?? "";
  const specs: ChildSpec[] = [];
  for (const point of points) {
    for (const variant of plan.variants) {
      const value = variant.valueAt(point);
      const key = sha256Hex(
        canonicalJson({ parent: head, at: point.at, value, continueWith: plan.continueWith, inputs: plan.inputs }),
      ).slice(0, 32);
      const out = join(resolve(plan.outDir), `${name}.at-${point.at}.${variant.slug}.json`);
      specs.push({ point, variant, value, key, out });
    }
  }
  const rows = points.map((p) => ({ at: p.at, toolName: p.toolName, toolInput: p.toolInput, recorded: p.recorded }));
  return { rows, specs };
}

/** A child of an earlier sweep with the same key whose cassette is still there and whole, as a cell. */
function reusable(plan: SweepPlan, ports: SweepPorts, spec: ChildSpec, earlier: SweepCell[]): SweepCell | undefined {
  const old = earlier.find((c) => c.key === spec.key && c.cassette === spec.out);
  if (!old || (old.status !== "answered" && old.status !== "failed")) return undefined;
  const child = ports.loadChild(spec.out);
  if (!child || child.parentId !== plan.parent.id) return undefined;
  const answered = old.toolCalls.filter((t) => !t.ran).map((t) => ({ name: t.name, input: t.input }));
  return { ...cellFromChild(plan.parent, spec, child, answered), reused: true };
}

async function runOne(plan: SweepPlan, ports: SweepPorts, spec: ChildSpec): Promise<SweepCell> {
  let run: ChildRun;
  try {
    run = await ports.runChild(spec);
  } catch (err) {
    run = { error: (err as Error).message };
  }
  if (run.error !== undefined) return emptyCell(spec, "error", run.error);
  const child = ports.loadChild(spec.out);
  if (!child) return emptyCell(spec, "error", `the child run wrote no cassette that passes verify at ${spec.out}`);
  return cellFromChild(plan.parent, spec, child, run.answered);
}

/** Runs the sweep and writes `<outDir>/sweep.json`; the result has absolute paths. */
export async function runSweep(plan: SweepPlan, ports: SweepPorts): Promise<SweepResult> {
  const { rows, specs } = planChildren(plan);
  mkdirSync(resolve(plan.outDir), { recursive: true });
  const file = join(resolve(plan.outDir), SWEEP_FILE_NAME);
  const earlier = plan.fresh ? [] : (readSweepFile(file)?.cells ?? []);
  const cells: SweepCell[] = new Array(specs.length);
  const jobs = Math.max(1, Math.floor(plan.jobs ?? 1));
  let next = 0;
  let done = 0;
  let calls = 0;
  // after each child the file holds what is done, the rest as not run: an interrupted sweep's re-run reuses it
  const snapshot = (final: boolean): SweepResult => {
    const all = specs.map(
      (spec, i) =>
        cells[i] ??
        emptyCell(spec, "skipped", "not run: the sweep stopped before this child (run it again to continue)"),
    );
    const summary = summarize(all);
    const result: SweepResult = {
      kind: SWEEP_FILE_KIND,
      version: SWEEP_FILE_VERSION,
      parent: { cassette: resolve(plan.parentPath), id: plan.parent.id, hash: plan.parent.steps.at(-1)?.hash ?? "" },
      continueWith: plan.continueWith,
      command: plan.command,
      rows,
      variants: plan.variants.map((v) => ({ name: v.name, kind: v.kind })),
      cells: all,
      summary,
      ok: final && isOk(summary),
    };
    writeSweepFile(file, result);
    return result;
  };
  const worker = async () => {
    while (next < specs.length) {
      const i = next++;
      const spec = specs[i]!;
      let cell = reusable(plan, ports, spec, earlier);
      if (!cell && plan.maxCalls !== undefined && calls >= plan.maxCalls) {
        cell = emptyCell(
          spec,
          "skipped",
          `the budget of ${plan.maxCalls} model calls was spent before this child started; raise --max-calls (maxCalls) or sweep fewer steps`,
        );
      }
      if (!cell) {
        cell = await runOne(plan, ports, spec);
        calls += cell.modelCalls;
      }
      if (ports.grade && (cell.status === "answered" || cell.status === "failed")) {
        const grade = await ports.grade(cell);
        if (grade) cell.grade = grade;
      }
      cells[i] = cell;
      if (!cell.reused) snapshot(false);
      ports.progress?.(++done, specs.length, cell);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, specs.length) }, worker));
  return snapshot(true);
}
