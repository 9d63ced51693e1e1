/**
 * How deep a parsed JSON value nests, found without recursion. The schema check, the
 * hash (canonical JSON), the neutrality scan and diff all recurse, so a cassette nested
 * deeper than MAX_JSON_DEPTH is refused up front with its path instead of overflowing
 * the stack. Pure.
 */
import { appendPath } from "./jsonPath.js";

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

/** Fast pass: does anything nest deeper than `max`? (No paths, no allocation per value.) */
function exceeds(root: unknown, max: number): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth >= max) return true;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      if (child !== null && typeof child === "object") {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The JSON path of the first value nested deeper than `max`, or undefined when none is. */
export function tooDeepAt(root: unknown, max = MAX_JSON_DEPTH): string | undefined {
  if (!exceeds(root, max)) return undefined;
  const stack: Array<{ value: unknown; depth: number; at: At | undefined }> = [{ value: root, depth: 0, at: undefined }];
  while (stack.length > 0) {
    const { value, depth, at } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth >= max) return pathOf(at);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: depth + 1, at: { up: at, key: i } });
    } else {
      for (const key of Object.keys(value)) stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, at: { up: at, key } });
    }
  }
  return undefined;
}

export function tooDeepMessage(path: string): string {
  const shown = path.length > 100 ? `${path.slice(0, 100)}...` : path;
  return `the value at ${shown} is nested more than ${MAX_JSON_DEPTH} levels deep; Blackbox cannot check or hash it. Flatten that data (e.g. store it as a JSON string) or re-record the run.`;
}
