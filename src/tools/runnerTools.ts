/**
 * An SDK tool runner's tool object, which a config may name in place of a function: the
 * Anthropic SDK's `betaTool()` / `betaZodTool()` for `toolRunner()` (`{ type: "custom", name,
 * input_schema, run, parse }`) and the openai SDK's `runTools()` tools (`{ type: "function",
 * function: { name, function, parse, parameters } }`; not `zodFunction()`'s, whose function
 * sits in a read-only `$callback`, see describeExport). The hooks wrap
 * its function where it sits, in the object itself: the runner calls `tool.run(...)` /
 * `tool.function.function(...)`, and the module's own references to the object (a list of
 * tools it builds from it) hold the wrapped tool as well.
 */
import { isObj, type Obj } from "../providers/shared/wire.js";
import type { AnyFn } from "../session/types.js";

export interface RunnerTool {
  /** The function the runner calls. */
  readonly fn: AnyFn;
  /**
   * For a framework's tool object: the model's arguments among the function's (the rest are the
   * framework's: a call id, a run context, callbacks), the only ones recorded. Absent: all are.
   */
  readonly modelArguments?: (args: unknown[]) => unknown;
  /** The tool's name as the model knows it: what its steps are recorded under. */
  readonly name: string | undefined;
  /** Put `wrapped` where the runner finds the function; false when the object does not take it (frozen). */
  replace(wrapped: AnyFn): boolean;
  /** A copy of the tool object (its prototype and own members) with `wrapped` where the runner finds the function. */
  copy(wrapped: AnyFn): unknown;
}

/** A shallow copy that keeps the prototype: a LangChain tool stays an instance of its class. */
const clone = (o: Obj): Obj => Object.assign(Object.create(Object.getPrototypeOf(o) as object | null) as Obj, o);

/** `obj[key]` is the function; `outer`: the tool object holding `obj` under "function" (openai's). */
function holder(
  obj: Obj,
  key: string,
  name: unknown,
  modelArguments?: (args: unknown[]) => unknown,
  outer?: Obj,
): RunnerTool {
  return {
    fn: obj[key] as AnyFn,
    name: typeof name === "string" && name !== "" ? name : undefined,
    ...(modelArguments ? { modelArguments } : {}),
    copy(wrapped) {
      const inner = clone(obj);
      // called on the copy, the function runs on the tool object itself: its private fields (#x), getters and
      // the state it keeps are the original's
      inner[key] = function (this: unknown, ...args: unknown[]) {
        return wrapped.apply(this === inner ? obj : this, args) as unknown;
      };
      if (!outer) return inner;
      const copy = clone(outer);
      copy.function = inner;
      return copy;
    },
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

const first = (args: unknown[]) => args[0];

/** A JSON string of arguments (the wire's) as the JSON it holds. */
function asJson(x: unknown): unknown {
  if (typeof x !== "string") return x;
  try {
    return JSON.parse(x) as unknown;
  } catch {
    return x;
  }
}

/**
 * The runner tool `value` is, or undefined for anything else. Besides the SDK runners' tools, a
 * framework's tool object: a LangChain tool (`tool()`, DynamicStructuredTool: its `func(input,
 * runManager, config)`), an OpenAI Agents SDK `tool()` (`invoke(runContext, inputJson, details)`)
 * and a Vercel AI SDK `tool()` (`execute(input, options)`, named by the config: its name is the
 * key it is given under in `tools`).
 */
export function runnerTool(value: unknown): RunnerTool | undefined {
  if (!isObj(value)) return undefined;
  if (typeof value.run === "function") return holder(value, "run", value.name);
  const f = value.function;
  if (value.type === "function" && isObj(f) && typeof f.function === "function")
    return holder(f, "function", f.name, undefined, value);
  if (typeof value.func === "function" && typeof value.invoke === "function" && "lc_namespace" in value)
    return holder(value, "func", value.name, first);
  if (value.type === "function" && typeof value.invoke === "function" && typeof value.name === "string")
    return holder(value, "invoke", value.name, (args) => asJson(args[1]));
  if (typeof value.execute === "function" && ("inputSchema" in value || "parameters" in value))
    return holder(value, "execute", undefined, first);
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
    return 'it is a zodFunction() tool, whose function sits where it cannot be wrapped; write it as { type: "function", function: { name, parameters, parse, function } }';
  }
  return `it is a ${typeof value}`;
}
