/**
 * Loaded runs as the page shows them (model.ts): step summaries, the verify verdict, the
 * outcome, the fork relations and the divergences of the pairs it can compare. Uses the
 * library's public functions (verifyTrace, diffTraces, diffOutcome); the one-line step
 * summaries are those `blackbox show` prints. Pure apart from what it is handed.
 */
import { DEMO_MODEL } from "../agent/demo.js";
import { diffOutcome, diffTraces } from "../trace/diff.js";
import type { Trace } from "../trace/types.js";
import { verifyTrace } from "../trace/verify.js";
import { outcomeOf } from "../trace/outcome.js";
import { forkIndexOf } from "../trace/payloads.js";
import { timelineRows } from "../trace/timeline.js";
import {
  VIEW_DATA_VERSION,
  type OutcomeMeta,
  type PairDiff,
  type RunGroup,
  type RunMeta,
  type StepMeta,
  type SweepMeta,
  type ViewData,
} from "./model.js";

/** A loaded cassette and where it came from. */
export interface LoadedRun {
  trace: Trace;
  /** The path the page names it by (what the fork command is to be typed with). */
  file: string;
  bytes: number;
}

/** Problems listed per run; the count of the rest is kept. */
const MAX_PROBLEMS = 200;
/** Every pair is compared up to this many runs; past it, only runs of one fork tree. */
const ALL_PAIRS_UP_TO = 16;
/** The longest value text a divergence or an outcome carries. */
const VALUE_CHARS = 2000;

function clipText(text: string, n = VALUE_CHARS): string {
  return text.length > n ? `${text.slice(0, n - 3)}...` : text;
}

function jsonText(value: unknown): string {
  if (value === undefined) return "";
  return clipText(JSON.stringify(value) ?? String(value));
}

function outcomeMeta(trace: Trace): OutcomeMeta {
  const o = outcomeOf(trace);
  if (o.status === "success") return { status: "success", result: jsonText(o.result) };
  if (o.status === "error") return { status: "error", reason: o.reason ?? "", error: o.error ?? "" };
  return { status: "none" };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Step summaries, with each model call's and tool call's end (what the waterfall draws). */
export function stepMetas(trace: Trace): StepMeta[] {
  const rows = timelineRows(trace);
  const steps = trace.steps;
  const ends: (number | null)[] = steps.map(() => null);
  const openTools = new Map<string, number>();
  let openModel: number | null = null;
  steps.forEach((s, i) => {
    const p = isObj(s.payload) ? s.payload : {};
    if (s.type === "model_input") openModel = i;
    else if (s.type === "model_output" && openModel !== null) {
      ends[openModel] = s.timestamp;
      openModel = null;
    } else if (s.type === "tool_call" && typeof p.toolCallId === "string") openTools.set(p.toolCallId, i);
    else if (s.type === "tool_result" && typeof p.toolCallId === "string") {
      const at = openTools.get(p.toolCallId);
      if (at !== undefined) {
        ends[at] = s.timestamp;
        openTools.delete(p.toolCallId);
      }
    }
  });
  return steps.map((s, i) => {
    const p = isObj(s.payload) ? s.payload : {};
    const error = (s.type === "tool_result" && "error" in p) || (s.type === "metadata" && p.event === "run_failed");
    return {
      type: s.type,
      timestamp: s.timestamp,
      end: ends[i] ?? null,
      text: rows[i]?.text ?? "",
      nested: rows[i]?.nested ?? false,
      error,
      model: s.type === "model_input" && typeof p.model === "string" ? p.model : null,
      hash: s.hash,
      prevHash: s.prevHash,
      size: 0, // set by the caller once the payload's text is made
    };
  });
}

function runMeta(run: LoadedRun, key: number): RunMeta {
  const { trace } = run;
  const verdict = verifyTrace(trace);
  const firstModel = trace.steps.find((s) => s.type === "model_input")?.payload;
  return {
    key,
    id: trace.id,
    parentId: trace.parentId ?? null,
    forkedFromStepId: trace.forkedFromStepId ?? null,
    forkAt: forkIndexOf(trace) ?? null,
    createdAt: trace.createdAt,
    file: run.file,
    demo: isObj(firstModel) && firstModel.model === DEMO_MODEL,
    verify: {
      ok: verdict.ok,
      problems: verdict.problems.slice(0, MAX_PROBLEMS).map((p) => ({
        stepIndex: p.stepIndex,
        path: p.path,
        message: p.message,
      })),
      more: Math.max(0, verdict.problems.length - MAX_PROBLEMS),
    },
    outcome: outcomeMeta(trace),
    steps: stepMetas(trace),
    bytes: run.bytes,
    lane: null,
  };
}

/** The id of the root of each run's fork tree, following parentId through the given runs. */
function treeRoots(runs: readonly Trace[]): string[] {
  const byId = new Map(runs.map((t) => [t.id, t]));
  return runs.map((t) => {
    let at = t;
    const seen = new Set<string>();
    while (at.parentId !== undefined && byId.has(at.parentId) && !seen.has(at.id)) {
      seen.add(at.id);
      at = byId.get(at.parentId)!;
    }
    return at.id;
  });
}

/** The pairs the page can compare: every pair of few runs, else the pairs within one fork tree. */
export function comparablePairs(runs: readonly Trace[]): [number, number][] {
  const roots = treeRoots(runs);
  const pairs: [number, number][] = [];
  for (let a = 0; a < runs.length; a++)
    for (let b = a + 1; b < runs.length; b++)
      if (runs.length <= ALL_PAIRS_UP_TO || roots[a] === roots[b]) pairs.push([a, b]);
  return pairs;
}

function pairDiff(runs: readonly Trace[], a: number, b: number): PairDiff {
  const d = diffTraces(runs[a]!, runs[b]!);
  return {
    a,
    b,
    divergence:
      d === null
        ? null
        : {
            index: d.index,
            kind: d.kind,
            typeA: d.typeA,
            typeB: d.typeB,
            path: d.path,
            a: d.kind === "changed" ? jsonText(d.a) : "",
            b: d.kind === "changed" ? jsonText(d.b) : "",
            reason: d.reason,
          },
    outcomeSame: diffOutcome(runs[a]!, runs[b]!).same,
  };
}

export interface BuildDataOptions {
  groups: RunGroup[];
  cwd: string;
  version: string;
  live?: boolean;
  watching?: string | null;
  skipped?: { file: string; reason: string }[];
  sweeps?: SweepMeta[];
  now?: number;
}

/** The page's data and each run's payload texts (one JSON text a step). */
export function buildViewData(
  runs: readonly LoadedRun[],
  o: BuildDataOptions,
): { data: ViewData; payloads: string[][] } {
  const payloads: string[][] = [];
  const metas = runs.map((run, key) => {
    const meta = runMeta(run, key);
    const texts = run.trace.steps.map((s) => JSON.stringify(s.payload) ?? "null");
    texts.forEach((t, i) => (meta.steps[i]!.size = t.length));
    payloads.push(texts);
    return meta;
  });
  const traces = runs.map((r) => r.trace);
  const data: ViewData = {
    version: VIEW_DATA_VERSION,
    blackbox: o.version,
    generatedAt: o.now ?? Date.now(),
    cwd: o.cwd,
    live: o.live ?? false,
    watching: o.watching ?? null,
    runs: metas,
    groups: o.groups,
    pairs: comparablePairs(traces).map(([a, b]) => pairDiff(traces, a, b)),
    skipped: o.skipped ?? [],
    sweeps: o.sweeps ?? [],
  };
  return { data, payloads };
}
