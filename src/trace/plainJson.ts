/**
 * notPlainJson: what, in a value handed in memory (a fork's replacement result), a
 * cassette cannot hold. JSON.parse itself can produce one such value: a number too large
 * for a double (1e999 reads as Infinity), which has no JSON form and no hash. A value
 * built in code can hold many more (undefined, NaN, a Date, a Map, a class instance, a
 * function, a bigint, a cycle, holes in an array). Refusing them up front keeps a fork
 * from handing the agent one value and writing another (or failing half-way). Pure.
 */
import { MAX_JSON_DEPTH } from "./depth.js";
import { appendPath } from "./jsonPath.js";

/** "<name> is not plain JSON: ..." saying where, what, and what to do; undefined when the value is fine. */
export function plainJsonProblem(name: string, value: unknown): string | undefined {
  const bad = notPlainJson(value);
  if (!bad) return undefined;
  const where = bad.path === "(root)" ? "" : ` at ${bad.path}`;
  return `${name} is not plain JSON: it holds ${bad.what}${where}, which a cassette cannot store. Use strings, finite numbers, booleans, null, arrays and plain objects (quote a large number as a string, e.g. "1e999").`;
}

/** The path and a description of the first value that is not plain JSON, or undefined. */
export function notPlainJson(value: unknown): { path: string; what: string } | undefined {
  const seen = new Set<object>();
  const walk = (v: unknown, path: string, depth: number): { path: string; what: string } | undefined => {
    const at = path || "(root)";
    switch (typeof v) {
      case "string":
      case "boolean":
        return undefined;
      case "number":
        return Number.isFinite(v)
          ? undefined
          : {
              path: at,
              what: `the number ${String(v)} (JSON has no ${String(v)}; a literal like 1e999 reads as Infinity)`,
            };
      case "object":
        break;
      default:
        return { path: at, what: typeof v === "undefined" ? "undefined" : `a ${typeof v}` };
    }
    if (v === null) return undefined;
    if (depth >= MAX_JSON_DEPTH) return { path: at, what: `a value nested more than ${MAX_JSON_DEPTH} levels deep` };
    if (seen.has(v)) return { path: at, what: "a cycle (a value that contains itself)" };
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) return { path: appendPath(path, i), what: "a hole in an array" };
          const bad = walk(v[i], appendPath(path, i), depth + 1);
          if (bad) return bad;
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        return { path: at, what: `a ${(v as object).constructor?.name ?? "non-plain"} object` };
      }
      for (const key of Object.keys(v)) {
        const bad = walk((v as Record<string, unknown>)[key], appendPath(path, key), depth + 1);
        if (bad) return bad;
      }
      return undefined;
    } finally {
      seen.delete(v);
    }
  };
  return walk(value, "", 0);
}
