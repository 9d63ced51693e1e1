/**
 * An SDK tool runner's tool object, which a config may name in place of a function: the
 * Anthropic SDK's `betaTool()` / `betaZodTool()` for `toolRunner()` (`{ type: "custom", name,
 * input_schema, run, parse }`) and the openai SDK's `runTools()` tools (`{ type: "function",
 * function: { name, function, parse, parameters } }`; not `zodFunction()`'s, whose function
 * sits in a read-only `$callback` and which is strict, see describeExport). The hooks wrap
 * its function where it sits, in the object itself: the runner calls `tool.run(...)` /
 * `tool.function.function(...)`, and the module's own references to the object (a list of
 * tools it builds from it) hold the wrapped tool as well.
 */
import { isObj, type Obj } from "../providers/wire.js";
import type { AnyFn } from "../session/types.js";

export interface RunnerTool {
  /** The function the runner calls. */
  readonly fn: AnyFn;
  /** The tool's name as the model knows it: what its steps are recorded under. */
  readonly name: string | undefined;
  /** Put `wrapped` where the runner finds the function; false when the object does not take it (frozen). */
  replace(wrapped: AnyFn): boolean;
}

function holder(obj: Obj, key: string, name: unknown): RunnerTool {
  return {
    fn: obj[key] as AnyFn,
    name: typeof name === "string" && name !== "" ? name : undefined,
    replace(wrapped) {
      try {
        obj[key] = wrapped;
      } catch {
        return false; // a frozen object, in strict code
      }
      return obj[key] === wrapped;
    },
  };
}

/** The runner tool `value` is, or undefined for anything else. */
export function runnerTool(value: unknown): RunnerTool | undefined {
  if (!isObj(value)) return undefined;
  if (typeof value.run === "function") return holder(value, "run", value.name);
  const f = value.function;
  if (value.type === "function" && isObj(f) && typeof f.function === "function") return holder(f, "function", f.name);
  return undefined;
}

/**
 * The name a runner tool's steps are recorded under: its own, the name the model calls it
 * by (a recorded call is matched to the model's by name), else the config's.
 */
export function runnerToolName(target: { name: string }, tool: RunnerTool): string {
  return tool.name ?? target.name;
}

/** Why a configured export that is not a function cannot be wrapped (after "has no function export X"). */
export function describeExport(value: unknown): string {
  if (value === undefined) return "it is not exported";
  if (isObj(value) && value.$brand === "auto-parseable-tool") {
    return 'it is a zodFunction() tool, whose function sits where it cannot be wrapped, and which is strict (not supported yet); write it as { type: "function", function: { name, parameters, parse, function } }';
  }
  return `it is a ${typeof value}`;
}
