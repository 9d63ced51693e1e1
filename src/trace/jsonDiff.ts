/**
 * The first difference between two JSON values, with its path
 * (`messages[2].content[0].text`). Objects compare key by key in sorted
 * order (key order never matters); arrays compare in order, then by length.
 */
import { appendPath } from "./jsonPath.js";

export interface JsonDifference {
  /** Path of the first differing value ("" or the given base when the roots differ). */
  path: string;
  /** The value at that path in `a` (undefined when absent). */
  a: unknown;
  /** The value at that path in `b` (undefined when absent). */
  b: unknown;
}

function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

export function firstDifference(a: unknown, b: unknown, path = ""): JsonDifference | undefined {
  if (Object.is(a, b)) return undefined;
  const ka = kind(a);
  if (ka !== kind(b)) return { path, a, b };
  if (ka === "array") {
    const xa = a as unknown[];
    const xb = b as unknown[];
    const n = Math.min(xa.length, xb.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(xa[i], xb[i], appendPath(path, i));
      if (d) return d;
    }
    if (xa.length !== xb.length) return { path: appendPath(path, n), a: xa[n], b: xb[n] };
    return undefined;
  }
  if (ka === "object") {
    const oa = a as Record<string, unknown>;
    const ob = b as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort();
    for (const k of keys) {
      const inA = Object.prototype.hasOwnProperty.call(oa, k);
      const inB = Object.prototype.hasOwnProperty.call(ob, k);
      // never read an absent key: `toString` or `constructor` would answer from the prototype
      if (inA !== inB) return { path: appendPath(path, k), a: inA ? oa[k] : undefined, b: inB ? ob[k] : undefined };
      const d = firstDifference(oa[k], ob[k], appendPath(path, k));
      if (d) return d;
    }
    return undefined;
  }
  // numbers: 0 and -0 are the same JSON value
  if (ka === "number" && a === b) return undefined;
  return { path, a, b };
}
