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

/**
 * Tool arguments as one JSON value: one argument as itself, several as an array, none as
 * null. What the SDKs' tool runners pass a tool after its input (the Anthropic runner's
 * context, the OpenAI runner itself) is left out (see withoutToolRunContext).
 */
export function argsToJson(all: readonly unknown[], what: string): JsonValue {
  const args = withoutToolRunContext(all);
  if (args.length === 0) return null;
  const hint = "pass plain data (objects, arrays, strings, numbers) to the tool";
  if (args.length === 1) return toJsonValue(args[0], what, hint);
  return toJsonValue(args, what, hint);
}

/** The keys of the Anthropic SDK's BetaToolRunContext. */
const RUN_CONTEXT_KEYS: ReadonlySet<string> = new Set(["toolUse", "toolUseBlock", "signal"]);

/**
 * `args` without a last argument that is the context the Anthropic SDK's tool runners
 * call `run(input, { toolUse, toolUseBlock, signal })` with, so a wrapped tool given as a
 * runner tool's `run` is recorded with its input alone: the context holds the provider's
 * tool_use id (which a cassette must not hold, and which a replay's own ids never match)
 * and the runner's AbortSignal, and the call it answers is on the tool step already.
 */
function withoutToolRunContext(args: readonly unknown[]): readonly unknown[] {
  if (args.length < 2) return args;
  // OpenAI's runTools() calls function(args, runner, toolContext): the runner holds the whole
  // conversation with its provider ids, and toolContext is the app's own object, not data
  if (isOpenAIRunner(args[1])) return args.slice(0, 1);
  const last = args[args.length - 1];
  if (last === null || typeof last !== "object" || Object.getPrototypeOf(last) !== Object.prototype) return args;
  const keys = Object.keys(last);
  const use = (last as { toolUse?: unknown }).toolUse;
  const isContext =
    keys.every((k) => RUN_CONTEXT_KEYS.has(k)) &&
    use !== null &&
    typeof use === "object" &&
    typeof (use as { id?: unknown }).id === "string" &&
    typeof (use as { name?: unknown }).name === "string";
  return isContext ? args.slice(0, -1) : args;
}

/** The runner the openai SDK's runTools() hands a tool's function (a ChatCompletionRunner, streamed or not). */
function isOpenAIRunner(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) === Object.prototype) return false;
  const runner = value as { finalChatCompletion?: unknown; finalContent?: unknown; allChatCompletions?: unknown };
  return (
    typeof runner.finalChatCompletion === "function" &&
    typeof runner.finalContent === "function" &&
    typeof runner.allChatCompletions === "function"
  );
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
