/**
 * What `blackbox view` embeds in the page: the runs' step summaries, verify verdicts, fork
 * relations and precomputed divergences, as one small JSON document. The step payloads
 * travel beside it, one JSON text a line per run (see html.ts), and the page parses a
 * payload only when it shows it. Shared by the Node side (data.ts) and the page (ui/);
 * types only, so the page bundle takes nothing from Node.
 */

export const VIEW_DATA_VERSION = 1;

export type StepType = "model_input" | "model_output" | "tool_call" | "tool_result" | "metadata";

/** One step as the timeline lists it; the payload itself is in the run's payload lines. */
export interface StepMeta {
  type: StepType;
  timestamp: number;
  /**
   * When what the step started ended: a model_input's model_output, a tool_call's
   * tool_result (matched by toolCallId). null for a step that starts nothing, or whose
   * end is not in the cassette.
   */
  end: number | null;
  /** One line saying what the step holds (the same line as `blackbox show`). */
  text: string;
  /** A tool_call / tool_result inside the tool round of the model output above it. */
  nested: boolean;
  /** A tool_result that is an error, or a run_failed step. */
  error: boolean;
  /** The model a model_input asked for, when recorded. */
  model: string | null;
  hash: string;
  prevHash: string | null;
  /** Length of the payload's JSON text (UTF-16 units). */
  size: number;
}

export interface ProblemMeta {
  stepIndex: number | null;
  path: string;
  message: string;
}

export interface OutcomeMeta {
  status: "success" | "error" | "none";
  /** The result (success) as JSON text, clipped. */
  result?: string;
  reason?: string;
  error?: string;
}

export interface RunMeta {
  /** Position in `runs`: what links (#run-K-step-N) and pairs name a run by. */
  key: number;
  id: string;
  parentId: string | null;
  forkedFromStepId: string | null;
  /** The step index in forkedFromStepId, or null. */
  forkAt: number | null;
  createdAt: number;
  /** The cassette's path as the fork command should name it (relative to `cwd` when under it). */
  file: string;
  /** Recorded by the built-in demo agent: `blackbox fork` continues it without `-- <command>`. */
  demo: boolean;
  /** The verdict of verifyTrace, computed when the page was built. */
  verify: { ok: boolean; problems: ProblemMeta[]; more: number };
  outcome: OutcomeMeta;
  steps: StepMeta[];
  /** Bytes of the cassette file. */
  bytes: number;
  /**
   * The conversation this run is within its run folder, when the folder has an index
   * naming its conversations (not yet written by the recorder: null for now). Runs of one
   * group with the same lane are drawn as one lane, side by side with the others.
   */
  lane: string | null;
}

/** A cassette given on the command line, or a folder of them. */
export interface RunGroup {
  kind: "file" | "folder";
  /** The path as given. */
  path: string;
  /** Keys of the runs it holds, in file-name order. */
  runs: number[];
  /**
   * A run folder's lanes (parallel conversations), in the order its index lists them;
   * null while run folders have no index, so the folder is shown as a list of runs.
   */
  lanes: { name: string; runs: number[] }[] | null;
}

/** diffTraces(a, b) of two runs, computed when the page was built. */
export interface PairDiff {
  a: number;
  b: number;
  /** null when the runs have the same steps. */
  divergence: {
    index: number;
    kind: "changed" | "only_in_a" | "only_in_b";
    typeA: StepType | null;
    typeB: StepType | null;
    path: string;
    /** The differing values as JSON text, clipped ("" for a missing step). */
    a: string;
    b: string;
    reason: string;
  } | null;
  /** diffOutcome: whether the outcomes are the same. */
  outcomeSame: boolean;
}

/** A sweep's matrix (`blackbox sweep`'s sweep.json) as the page draws it: a table whose cells open the children. */
export interface SweepMeta {
  /** The sweep file, as the page names it. */
  file: string;
  /** The parent run's key, when its cassette could be loaded. */
  parent: number | null;
  parentFile: string;
  continueWith: "live" | "script";
  command: string[] | null;
  rows: { at: number; toolName: string; toolInput: string; recorded: string }[];
  variants: { name: string; kind: string }[];
  /** Row-major, as in the sweep file. */
  cells: SweepCellMeta[];
  /** The summary line `blackbox sweep` prints. */
  summary: string;
  /** The tools that ran for real in some child. */
  toolsRun: string[];
}

export interface SweepCellMeta {
  at: number;
  variant: string;
  status: "answered" | "failed" | "error" | "skipped";
  /** The answer (JSON text when it is not a string) or what went wrong, clipped. */
  text: string;
  /** What the child was given at the fork point, as JSON text, clipped. */
  value: string;
  grade: { pass: boolean; detail: string | null } | null;
  /** The child run's key, or null when its cassette is not loaded (none written, or missing). */
  run: number | null;
  steps: number;
  modelCalls: number;
  /** The tools it called past its fork point, "(recorded)" after those answered from the parent. */
  toolCalls: string[];
  reused: boolean;
}

export interface ViewData {
  version: typeof VIEW_DATA_VERSION;
  /** The Blackbox version that built the page. */
  blackbox: string;
  generatedAt: number;
  /** Where `blackbox view` ran: the folder the fork commands are to be run from. */
  cwd: string;
  /** Served by `blackbox view --serve`: the page listens for changes and reloads. */
  live: boolean;
  /** What was watched (--serve), for the empty page. */
  watching: string | null;
  runs: RunMeta[];
  groups: RunGroup[];
  /** Divergences of the pairs the page can compare (every pair when there are few runs). */
  pairs: PairDiff[];
  /** Files that were skipped (a folder's JSON files that are not cassettes), with why. */
  skipped: { file: string; reason: string }[];
  /** The sweeps given (a sweep folder, or its sweep.json). */
  sweeps: SweepMeta[];
}

/** The id of the element holding run `key`'s payload lines. */
export const payloadElementId = (key: number): string => `bb-run-${key}`;
export const DATA_ELEMENT_ID = "bb-data";
