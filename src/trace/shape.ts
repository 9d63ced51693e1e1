/**
 * Checks a parsed value against the v2 schema and turns zod issues into
 * readable problems: the JSON path and what was expected, never a raw zod dump.
 */
import type * as z from "zod";
import { formatPath, kindOf, valueAt } from "./jsonPath.js";
import { quoted } from "./printable.js";
import { payloadSchemaFor, TraceSchema } from "./schema.js";

export interface ShapeProblem {
  /** Index of the step the problem is in, or null for the trace's own fields. */
  stepIndex: number | null;
  /** JSON path from the trace root, like `steps[3].payload.toolCallId`. */
  path: string;
  message: string;
}

type Issue = z.core.$ZodIssue;

function describeExpected(issue: Issue, actual: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${article(issue.expected)}, got ${kindOf(actual)}`;
    case "invalid_value":
      return `expected ${issue.values.map((v) => quoted(v)).join(" or ")}, got ${show(actual)}`;
    case "invalid_union": {
      if ("discriminator" in issue && issue.discriminator) {
        const options = (issue as { options?: unknown[] }).options ?? [];
        return `expected ${options.map((v) => quoted(v)).join(" or ")}, got ${show(actual)}`;
      }
      const kinds = new Set<string>();
      for (const branch of issue.errors)
        for (const i of branch) if (i.code === "invalid_type" && i.path.length === 0) kinds.add(article(i.expected));
      if (kinds.size === issue.errors.length && kinds.size > 0) {
        const list = [...kinds];
        if (list.length === 6) return `expected a JSON value, got ${kindOf(actual)}`;
        return `expected ${list.join(" or ")}, got ${kindOf(actual)}`;
      }
      return `does not match any allowed shape (got ${kindOf(actual)})`;
    }
    case "too_small":
      return `expected a value >= ${String(issue.minimum)}, got ${show(actual)}`;
    case "too_big":
      return `expected a value <= ${String(issue.maximum)}, got ${show(actual)}`;
    case "invalid_format":
      return issue.message.startsWith("expected")
        ? `${issue.message}, got ${show(actual)}`
        : `invalid ${issue.format}: ${show(actual)}`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  const names: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "an integer",
    boolean: "a boolean",
    null: "null",
    array: "an array",
    object: "an object",
    record: "an object",
  };
  return names[expected] ?? expected;
}

function show(value: unknown): string {
  return value === undefined ? "nothing (the field is missing)" : quoted(value);
}

/** A union issue where exactly one branch got past the type check: report that branch's own issues. */
function expand(issue: Issue): Issue[] {
  if (issue.code !== "invalid_union" || ("discriminator" in issue && issue.discriminator)) return [issue];
  const deeper = issue.errors.filter(
    (branch) => !(branch.length === 1 && branch[0]!.code === "invalid_type" && branch[0]!.path.length === 0),
  );
  if (deeper.length !== 1) return [issue];
  return deeper[0]!.flatMap((inner) => expand({ ...inner, path: [...issue.path, ...inner.path] } as Issue));
}

function toProblems(
  issues: readonly Issue[],
  root: unknown,
  prefix: PropertyKey[],
  stepIndex: number | null,
): ShapeProblem[] {
  return issues.flatMap(expand).map((issue) => {
    const segments = [...prefix, ...issue.path];
    const idx = stepIndex ?? (segments[0] === "steps" && typeof segments[1] === "number" ? segments[1] : null);
    return {
      stepIndex: idx,
      path: formatPath(segments as (string | number)[]) || "(root)",
      message: describeExpected(issue, valueAt(root, segments)),
    };
  });
}

/**
 * Every schema problem of a would-be v2 trace (empty when it matches), up to MAX_SHAPE_PROBLEMS:
 * past that, one more problem says how many steps were not looked at. (A list holding a million
 * wrong values gives a million issues otherwise, several GB: schema.ts's lists stop early too.)
 */
export function checkShape(value: unknown): ShapeProblem[] {
  const base = TraceSchema.safeParse(value);
  const problems = base.success ? [] : toProblems(base.error.issues, value, [], null);
  const steps = (value as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps)) return problems;
  for (let i = 0; i < steps.length; i++) {
    if (problems.length >= MAX_SHAPE_PROBLEMS) {
      problems.push({
        stepIndex: i,
        path: formatPath(["steps", i]),
        message: `${steps.length - i} more step(s) not checked: the first ${MAX_SHAPE_PROBLEMS} problems are listed. Fix those (or re-record the run) and check again.`,
      });
      break;
    }
    const step: unknown = steps[i];
    if (step === null || typeof step !== "object") continue;
    const { type, payload } = step as { type?: unknown; payload?: unknown };
    if (typeof type !== "string" || payload === undefined) continue;
    const schema = payloadSchemaFor(type, payload);
    if (!schema) continue;
    const r = schema.safeParse(payload);
    if (!r.success) problems.push(...toProblems(r.error.issues, value, ["steps", i, "payload"], i));
  }
  return problems;
}

/** Schema problems listed before checkShape stops. */
export const MAX_SHAPE_PROBLEMS = 1000;
