/**
 * An SDK tool runner's tool object, which a config may name in place of a function: the
 * Anthropic SDK's `betaTool()` / `betaZodTool()` for `toolRunner()` (`{ type: "custom", name,
 * input_schema, run, parse }`) and the openai SDK's `runTools()` tools (`{ type: "function",
 * function: { name, function, parse, parameters } }`, `zodFunction()`'s too). The hooks wrap
 * its function where it sits, in the object itself: the runner calls `tool.run(...)` /
 * `tool.function.function(...)`, and the module's own references to the object (a list of
 * tools it builds from it) hold the wrapped tool as well.
 */
import type { AnyFn } from "../session/types.js";

export interface RunnerTool {
  /** The function the runner calls. */
  readonly fn: AnyFn;
  /** The tool's name as the model knows it: what its steps are recorded under. */
  readonly name: string | undefined;
  /** Put `wrapped` where the runner finds the function; false when the object does not take it (frozen). */
  replace(wrapped: AnyFn): boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

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

/** The name a runner tool is recorded under: the config's `name` when it gave one, else the tool's own. */
export function runnerToolName(target: { name: string; named?: boolean }, tool: RunnerTool): string {
  return target.named ? target.name : (tool.name ?? target.name);
}
