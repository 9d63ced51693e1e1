/**
 * JSON paths in the form people read them: `steps[3].payload.messages[0].content`.
 * Keys that are not plain identifiers are quoted: `payload["x-api-key"]`.
 */

import { printable } from "./printable.js";

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends one object key or array index to a path ("" is the root). */
export function appendPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (IDENT.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${printable(JSON.stringify(key))}]`; // a key is cassette text: printable, still a JSON literal
}

/** Formats a list of keys and indexes as one path. */
export function formatPath(segments: readonly (string | number | symbol)[]): string {
  let out = "";
  for (const s of segments) out = appendPath(out, typeof s === "symbol" ? String(s) : s);
  return out;
}

/** A short description of a JSON value's kind, for messages ("a string", "null", "an array" ...). */
export function kindOf(value: unknown): string {
  if (value === undefined) return "nothing (the field is missing)";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      if (!Number.isFinite(value)) return `a number too large for JSON (it reads as ${String(value)})`;
      return Number.isInteger(value) ? "an integer" : "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/** Reads the value at a list of keys, or undefined when the path does not exist. */
export function valueAt(root: unknown, segments: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const s of segments) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[s];
  }
  return cur;
}
