/**
 * The `--json` output of every command, one zod schema each (docs/cli.md, "JSON output"):
 * what a script may rely on. Fields are only ever added. The commands build their output
 * with the types inferred here, so a field the schema lacks does not compile.
 */
import { z } from "zod";

const int = z.number().int();
const json = z.unknown();

export const outcomeSchema = z.object({
  status: z.enum(["success", "error", "none"]),
  result: json.optional(),
  reason: z.string().optional(),
  error: z.string().optional(),
});

export const verifyProblemSchema = z.object({ stepIndex: int.nullable(), path: z.string(), message: z.string() });
const verdictSchema = z.object({ ok: z.boolean(), problems: z.array(verifyProblemSchema) });

/** A tool and how many calls of it. */
export const toolCountSchema = z.object({ name: z.string(), calls: int });

/** What a cassette holds: the run summary record, replay and fork print. */
export const runSummarySchema = z.object({
  id: z.string(),
  steps: int,
  modelCalls: int,
  toolCalls: int,
  /** The tools recorded as tool steps, by name, in the order of their first call. */
  tools: z.array(toolCountSchema),
  /** Tools the model asked for whose calls have no tool step: the agent ran them outside Blackbox. */
  unrecordedTools: z.array(toolCountSchema),
  /** Values the cassette holds as redaction placeholders, by kind (`{ "AWS_KEY": 1 }`). */
  redactions: z.record(z.string(), int),
  outcome: outcomeSchema,
});

/** Where a replay (or the replayed part of a fork) left the recording. */
export const divergenceSchema = z.object({
  /** The cassette step where it diverged, when known. */
  step: int.nullable(),
  /** The JSON path of the first difference inside that step, when known. */
  path: z.string().nullable(),
  /** The recorded value there (absent: null). */
  expected: json,
  /** What the run did instead (absent: null). */
  actual: json,
  message: z.string(),
});

/** The part of record, replay and fork that ran a command (null when the built-in demo agent ran). */
const commandRun = {
  ok: z.boolean(),
  /** The command after --, or null for the built-in demo agent. */
  command: z.array(z.string()).nullable(),
  /** The command's exit code (128 + N for signal N; 127 when it could not start), or null for the demo agent. */
  exitCode: int.nullable(),
  /** Why the run failed, in the words printed on stderr, or null. */
  error: z.string().nullable(),
};

export const recordJsonSchema = z.object({
  ...commandRun,
  /** The cassette's path (absolute). */
  cassette: z.string(),
  /** Whether this run wrote it. */
  written: z.boolean(),
  /** The cassette written, or null when none was. */
  run: runSummarySchema.nullable(),
});

export const replayJsonSchema = z.object({
  ...commandRun,
  cassette: z.string(),
  /** The recording replayed, or null when it could not be read. */
  run: runSummarySchema.nullable(),
  divergence: divergenceSchema.nullable(),
});

export const forkJsonSchema = z.object({
  ...commandRun,
  /** The cassette forked. */
  cassette: z.string(),
  /** The fork's cassette (absolute). */
  out: z.string(),
  at: int,
  /** The replacement tool result, or null (demo agent, --at alone). */
  set: json,
  written: z.boolean(),
  /** The fork's cassette, or null when none was written. */
  run: runSummarySchema.nullable(),
  divergence: divergenceSchema.nullable(),
});

export const verifyJsonSchema = z.object({
  ok: z.boolean(),
  results: z.array(
    z.object({ file: z.string(), ok: z.boolean(), steps: int.nullable(), problems: z.array(verifyProblemSchema) }),
  ),
});

export const diffJsonSchema = z.object({
  same: z.boolean(),
  divergence: z
    .object({
      index: int,
      typeA: z.string().nullable(),
      typeB: z.string().nullable(),
      kind: z.enum(["changed", "only_in_a", "only_in_b"]),
      path: z.string(),
      a: json,
      b: json,
      reason: z.string(),
      /** Steps before it that differ only in their timestamps: how many, from which (absent when none). */
      retimed: z.object({ count: int, first: int }).optional(),
    })
    .nullable(),
  outcome: z.object({ same: z.boolean(), a: outcomeSchema, b: outcomeSchema }),
  fork: z
    .object({
      child: z.enum(["a", "b"]),
      parentId: z.string(),
      forkedFromStepId: z.string().nullable(),
      at: int.nullable(),
    })
    .nullable(),
  verify: z.object({ a: verdictSchema, b: verdictSchema }),
});

export const showJsonSchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  forkedFromStepId: z.string().nullable(),
  createdAt: z.number(),
  steps: z.array(
    z.object({
      index: int,
      type: z.string(),
      timestamp: z.number(),
      /** Milliseconds within the run (a fork's gap between its parent's recording and the fork left out). */
      elapsedMs: z.number(),
      nested: z.boolean(),
      forkPoint: z.boolean(),
      text: z.string(),
    }),
  ),
  outcome: outcomeSchema,
  verify: verdictSchema,
  /** The tools the model asked for that ran where Blackbox did not see them, as in the run summary. */
  unrecordedTools: z.array(toolCountSchema),
});

export const viewJsonSchema = z.object({
  /** The page written (absolute), or null under --serve. */
  out: z.string().nullable(),
  /** The live page's address under --serve, else null. */
  url: z.string().nullable(),
  runs: int,
  bytes: int.nullable(),
  skipped: z.array(z.object({ file: z.string(), reason: z.string() })),
});

export const redactJsonSchema = z.object({
  /** The cassette as given. */
  file: z.string(),
  /** Where the redacted cassette went (absolute), or null under --check. */
  out: z.string().nullable(),
  /** The steps the rules changed (or would change). */
  changedSteps: z.array(int),
  /** The values redacted, by kind. */
  redacted: z.record(z.string(), int),
  written: z.boolean(),
});

const sweepCellSchema = z.object({
  at: int,
  variant: z.string(),
  value: json,
  key: z.string(),
  reused: z.boolean(),
  status: z.enum(["answered", "failed", "error", "skipped"]),
  answer: json.optional(),
  failure: z.string().optional(),
  steps: int,
  modelCalls: int,
  toolCalls: z.array(z.object({ name: z.string(), input: json, ran: z.boolean() })),
  cassette: z.string().nullable(),
  divergesAt: int.nullable(),
  grade: z.object({ pass: z.boolean(), detail: z.string().optional() }).optional(),
});

export const sweepJsonSchema = z.object({
  kind: z.literal("blackbox-sweep"),
  version: z.literal(1),
  parent: z.object({ cassette: z.string(), id: z.string(), hash: z.string() }),
  continueWith: z.enum(["live", "script"]),
  command: z.array(z.string()).nullable(),
  rows: z.array(z.object({ at: int, toolName: z.string(), toolInput: json, recorded: json })),
  variants: z.array(z.object({ name: z.string(), kind: z.string() })),
  /** Row-major: rows[i] x variants[j] is cells[i * variants.length + j]. */
  cells: z.array(sweepCellSchema),
  summary: z.object({
    children: int,
    answered: int,
    failed: int,
    errors: int,
    skipped: int,
    reused: int,
    graded: int,
    passed: int,
    modelCalls: int,
    toolsRun: z.array(z.string()),
  }),
  ok: z.boolean(),
});

export const demoJsonSchema = z.object({
  ok: z.boolean(),
  dir: z.string(),
  parent: runSummarySchema.extend({ file: z.string() }),
  child: runSummarySchema.extend({ file: z.string() }),
  at: int,
  /** The first step where parent and child part. */
  divergence: z.object({ index: int, path: z.string() }).nullable(),
});

/** Every command's schema by its name (completion and help print text, not JSON). */
export const jsonSchemas = {
  record: recordJsonSchema,
  replay: replayJsonSchema,
  fork: forkJsonSchema,
  verify: verifyJsonSchema,
  diff: diffJsonSchema,
  show: showJsonSchema,
  view: viewJsonSchema,
  redact: redactJsonSchema,
  sweep: sweepJsonSchema,
  demo: demoJsonSchema,
} as const;

export type RunSummary = z.infer<typeof runSummarySchema>;
export type DivergenceJson = z.infer<typeof divergenceSchema>;
export type RecordJson = z.infer<typeof recordJsonSchema>;
export type ReplayJson = z.infer<typeof replayJsonSchema>;
export type ForkJson = z.infer<typeof forkJsonSchema>;
export type ViewJson = z.infer<typeof viewJsonSchema>;
export type DemoJson = z.infer<typeof demoJsonSchema>;
export type ShowJson = z.infer<typeof showJsonSchema>;
