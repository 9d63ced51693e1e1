import { canonicalJson } from "../trace/canonical.js";
import type { JsonValue } from "../trace/types.js";

/**
 * The JSON form a tool's arguments or return value is stored in: undefined becomes
 * null, class instances become plain objects (their own enumerable fields), dates
 * their ISO string. A value with no JSON form (a BigInt, a cycle) is an error that
 * says which tool and what to do.
 */
export function toJsonValue(value: unknown, what: string, hint: string): JsonValue {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`${what} has no JSON form (${(err as Error).message}); ${hint}`);
  }
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Tool arguments as one JSON value: one argument as itself, several as an array, none as null. */
export function argsToJson(args: readonly unknown[], what: string): JsonValue {
  if (args.length === 0) return null;
  const hint = "pass plain data (objects, arrays, strings, numbers) to the tool";
  if (args.length === 1) return toJsonValue(args[0], what, hint);
  return toJsonValue(args, what, hint);
}

export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  return canonicalJson(a) === canonicalJson(b);
}

export function errorMessageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
