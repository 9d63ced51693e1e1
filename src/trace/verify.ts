/**
 * verifyTrace: version, schema, hash chain, step structure (structure.ts) and provider neutrality. Returns
 * every problem with its step index and JSON path, not just the first. Pure.
 */
import { stepHash } from "./canonical.js";
import { unsafeValueIn } from "./depth.js";
import { appendPath, kindOf } from "./jsonPath.js";
import { checkNeutrality } from "./neutrality.js";
import { isValidTraceShape } from "./fastShape.js";
import type { SharedValues } from "./share.js";
import { checkShape } from "./shape.js";
import { checkStructure } from "./structure.js";
import { maxSteps, tooManyStepsMessage } from "./limits.js";
import { printable, quoted } from "./printable.js";
import { CURRENT_TRACE_VERSION, type JsonValue } from "./types.js";

export { findSecrets } from "./neutrality.js";

export interface VerifyProblem {
  /** The step the problem is in, or null for the trace's own fields. */
  stepIndex: number | null;
  /** JSON path from the trace root, like `steps[3].payload.toolCallId`. */
  path: string;
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  problems: VerifyProblem[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Problems verifyTrace lists; past that it stops, and one more problem says so. */
export const MAX_VERIFY_PROBLEMS = 1000;

function checkChain(trace: Obj, steps: unknown[], out: VerifyProblem[], shared: SharedValues | undefined): void {
  const RECORD =
    "The cassette was edited or corrupted after recording: restore it from version control or re-record the run.";
  const memo = shared && shared.size > 0 ? { shared, texts: new Map<object, string>() } : undefined;
  for (let i = 0; i < steps.length && out.length < MAX_VERIFY_PROBLEMS; i++) {
    const raw = steps[i];
    if (!isObj(raw)) continue;
    const at = (field: string): string => appendPath(appendPath("steps", i), field);
    const problem = (field: string, message: string): void => {
      out.push({ stepIndex: i, path: at(field), message: `${message} ${RECORD}` });
    };
    if (raw.index !== i) problem("index", `index is ${quoted(raw.index)} but the step is at position ${i}.`);
    if (typeof trace.id === "string" && raw.id !== `${trace.id}:${i}`) {
      problem("id", `id is ${quoted(raw.id)}, expected ${quoted(`${trace.id}:${i}`)}.`);
    }
    const prev = i === 0 ? null : isObj(steps[i - 1]) ? (steps[i - 1] as Obj).hash : undefined;
    if (raw.prevHash !== prev) {
      problem(
        "prevHash",
        i === 0
          ? `the first step's prevHash must be null, got ${quoted(raw.prevHash, 80)}.`
          : `prevHash does not link to step ${i - 1} (expected ${quoted(prev, 80)}, got ${quoted(raw.prevHash, 80)}).`,
      );
    }
    let recomputed: string | undefined;
    try {
      recomputed = stepHash(
        {
          index: raw.index as number,
          type: raw.type as string,
          timestamp: raw.timestamp as number,
          payload: raw.payload as JsonValue,
          prevHash: raw.prevHash as string | null,
        },
        memo,
      );
    } catch (error) {
      // never let a step whose hash cannot be computed pass unchecked
      problem("hash", `the step's hash cannot be recomputed (${quoted((error as Error).message, 120)}).`);
      recomputed = undefined;
    }
    if (recomputed !== undefined && recomputed !== raw.hash) {
      problem(
        "hash",
        `hash does not match the step's content (recomputed ${recomputed.slice(0, 12)}..., stored ${typeof raw.hash === "string" ? `${printable(raw.hash.slice(0, 12))}...` : kindOf(raw.hash)}).`,
      );
    }
  }
}

/**
 * Checks a parsed cassette (any value) and lists every problem found. `shared`: the objects
 * shareRecordedHistory made stand at several places (src/trace/share.ts); each is then
 * checked once where that gives the same answer, so the result is the same with or without.
 */
export function verifyTrace(trace: unknown, shared?: SharedValues): VerifyResult {
  const problems: VerifyProblem[] = [];
  if (!isObj(trace)) {
    problems.push({
      stepIndex: null,
      path: "(root)",
      message:
        "a cassette must be a JSON object with version, id, createdAt and steps. Check that you passed the right file.",
    });
    return { ok: false, problems };
  }
  const limit = maxSteps();
  if (Array.isArray(trace.steps) && trace.steps.length > limit) {
    problems.push({ stepIndex: null, path: "steps", message: tooManyStepsMessage("the cassette", limit) });
    return { ok: false, problems }; // every other check goes through every step
  }
  const unsafe = unsafeValueIn(trace, undefined, shared);
  if (unsafe) {
    const m = /^steps\[(\d+)\]/.exec(unsafe.path);
    problems.push({ stepIndex: m ? Number(m[1]) : null, path: unsafe.path, message: unsafe.message });
    return { ok: false, problems }; // every other check recurses through the value
  }
  if (trace.version !== CURRENT_TRACE_VERSION) {
    problems.push({
      stepIndex: null,
      path: "version",
      message: `version is ${trace.version === undefined ? "missing" : quoted(trace.version)}; this Blackbox reads only version ${CURRENT_TRACE_VERSION}. ${
        typeof trace.version === "number" && trace.version > CURRENT_TRACE_VERSION
          ? "Use the Blackbox release that wrote it, or re-record the run."
          : "Re-record the run."
      }`,
    });
  }
  // The fast check never accepts what the schema rejects (test/unit/perf): the schema runs
  // only to name the problems of a cassette it does not accept.
  const shape = isValidTraceShape(trace, shared) ? [] : checkShape(trace).filter((p) => p.path !== "version");
  problems.push(...shape);
  const steps = Array.isArray(trace.steps) ? trace.steps : [];
  checkChain(trace, steps, problems, shared);
  // schema first: the structure check reads each step as the schema types it (a null among a
  // model output's calls is a schema problem, not something to read a toolCallId from)
  if (shape.length === 0) problems.push(...checkStructure(trace, steps, shared));
  for (const p of checkNeutrality(trace, "", shared)) {
    const m = /^steps\[(\d+)\]/.exec(p.path);
    problems.push({ stepIndex: m ? Number(m[1]) : null, path: p.path, message: p.message });
  }
  problems.sort((a, b) => (a.stepIndex ?? -1) - (b.stepIndex ?? -1));
  if (problems.length > MAX_VERIFY_PROBLEMS) {
    problems.length = MAX_VERIFY_PROBLEMS;
    problems.push({
      stepIndex: null,
      path: "(trace)",
      message: `more problems are not listed: verify stops at ${MAX_VERIFY_PROBLEMS}. Fix these (or re-record the run) and verify again.`,
    });
  }
  return { ok: problems.length === 0, problems };
}
