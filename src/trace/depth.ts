/**
 * Values no cassette can hold, found without recursion: nesting deeper than
 * MAX_JSON_DEPTH (the schema check, the hash, the neutrality scan and diff all recurse,
 * so such a file would overflow the stack) and numbers JSON.parse read as Infinity
 * (a literal like 1e400: it has no canonical JSON form, so no hash). Refused up front
 * with their path. Pure.
 */
import { appendPath } from "./jsonPath.js";
import type { SharedValues } from "./types.js";

/** Deepest nesting of arrays and objects a cassette may have (real runs stay far below). */
export const MAX_JSON_DEPTH = 256;

interface At {
  up: At | undefined;
  key: string | number;
}

function pathOf(at: At | undefined): string {
  const keys: Array<string | number> = [];
  for (let a = at; a; a = a.up) keys.push(a.key);
  return keys.reverse().reduce<string>((p, k) => appendPath(p, k), "") || "(root)";
}

const bad = (value: unknown, depth: number, max: number): boolean =>
  typeof value === "number" ? !Number.isFinite(value) : value !== null && typeof value === "object" && depth >= max;

/**
 * Fast pass: is anything too deep or not finite? (No paths, no allocation per value.)
 * A `shared` object (src/trace/share.ts) is gone through once per depth it is met at or
 * deeper: met again no deeper, its subtree is known fine (were it not, the pass would
 * have returned true already, since everything pushed is checked before `false`).
 */
function anyBad(root: unknown, max: number, shared: SharedValues | undefined): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  const seenAt = shared && shared.size > 0 ? new Map<object, number>() : undefined;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (bad(value, depth, max)) return true;
    if (value === null || typeof value !== "object") continue;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === "number") {
        if (!Number.isFinite(child)) return true; // checked here: a million numbers are not a million entries
      } else if (child !== null && typeof child === "object") {
        if (seenAt && typeof child === "object" && shared!.has(child)) {
          const at = seenAt.get(child);
          if (at !== undefined && at >= depth + 1) continue;
          seenAt.set(child, depth + 1);
        }
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

const shownPath = (path: string): string => (path.length > 100 ? `${path.slice(0, 100)}...` : path);

/** What is said of a value at `path` nested deeper than `max` (here, and by the text's pre-scan). */
export function tooDeepMessage(path: string, max = MAX_JSON_DEPTH): string {
  return `the value at ${shownPath(path)} is nested more than ${max} levels deep; Blackbox cannot check or hash it. Flatten that data (e.g. store it as a JSON string) or re-record the run.`;
}

export interface UnsafeValue {
  path: string;
  message: string;
}

/**
 * The first value nested deeper than `max` or not a finite number, with a message; undefined when none.
 * `shared`: objects standing at several places (src/trace/share.ts), gone through once.
 */
export function unsafeValueIn(root: unknown, max = MAX_JSON_DEPTH, shared?: SharedValues): UnsafeValue | undefined {
  if (!anyBad(root, max, shared)) return undefined;
  const stack: Array<{ value: unknown; depth: number; at: At | undefined }> = [
    { value: root, depth: 0, at: undefined },
  ];
  while (stack.length > 0) {
    const { value, depth, at } = stack.pop()!;
    if (bad(value, depth, max)) {
      const path = pathOf(at);
      const message =
        typeof value === "number"
          ? `the number at ${shownPath(path)} is too large for JSON (it reads as ${String(value)}) and cannot be hashed. Write a finite number there or re-record the run.`
          : tooDeepMessage(path, max);
      return { path, message };
    }
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], depth: depth + 1, at: { up: at, key: i } });
    } else {
      const keys = Object.keys(value).reverse();
      for (const key of keys)
        stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, at: { up: at, key } });
    }
  }
  return undefined;
}
