/**
 * The openai SDK's `runTools()` (`beta.chat.completions` in 4.x): `AbstractChatCompletionRunner.prototype._runTools(client,
 * params, ...)` calls each function tool of `params.tools` as
 * `function(parsedOrRawArguments, runner, toolContext)`. The patch gives it the same tools
 * with their functions recorded: under the tool's name (the one the model calls) with the
 * model's arguments (parsed, or the raw JSON string read as JSON); the runner and context
 * are never recorded. A `zodFunction()` tool is first written as the plain function tool
 * the SDK itself turns it into. In a replay the recorded result is what the runner gets.
 */
import type { AnyFn } from "../../session/types.js";
import { replaceProperty } from "../patch.js";
import { modelArguments } from "./args.js";
import type { FrameworkHost, FrameworkTarget } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null;

/** A zodFunction() tool as the plain function tool runTools() makes of it. */
function plainTool(tool: Obj): Obj {
  if (tool.$brand !== "auto-parseable-tool" || typeof tool.$callback !== "function" || !isObj(tool.function))
    return tool;
  const f = tool.function;
  const fn = { function: tool.$callback, name: f.name, description: f.description ?? "", parameters: f.parameters };
  return { type: "function", function: { ...fn, parse: tool.$parseRaw, strict: true } };
}

function recordedTool(tool: unknown, host: FrameworkHost): unknown {
  if (!isObj(tool) || tool.type !== "function") return tool;
  const plain = plainTool(tool);
  const f = plain.function;
  if (!isObj(f) || typeof f.function !== "function") return tool;
  const run = f.function as AnyFn;
  const name = typeof f.name === "string" && f.name ? f.name : run.name;
  const recorded = function (this: unknown, args: unknown, ...rest: unknown[]) {
    return host.record(name, modelArguments(args), () => run.call(this, args, ...rest));
  };
  Object.defineProperty(recorded, "name", { value: run.name });
  return { ...plain, function: { ...f, name, function: recorded } };
}

export const openaiRunTools: FrameworkTarget = {
  framework: "the openai SDK's runTools()",
  package: "openai",
  // 7.x calls its tools as 6.x does (`fn.function(parsed, runner, toolContext)`); it runs on Node 22 and later only
  versions: ">=4.0.0 <8.0.0",
  files: [
    { path: "lib/AbstractChatCompletionRunner.mjs", format: "esm", read: ["AbstractChatCompletionRunner"] },
    { path: "lib/AbstractChatCompletionRunner.js", format: "cjs", read: ["AbstractChatCompletionRunner"] },
  ],
  patch(_file, names, host) {
    const proto = (names.AbstractChatCompletionRunner as { prototype?: Obj }).prototype;
    const original = proto?._runTools;
    if (!proto || typeof original !== "function") throw new Error("_runTools is no function");
    const runTools = function (this: unknown, client: unknown, params: unknown, ...rest: unknown[]) {
      if (!isObj(params) || !Array.isArray(params.tools)) return original.call(this, client, params, ...rest);
      const tools = params.tools.map((t: unknown) => recordedTool(t, host));
      return original.call(this, client, { ...params, tools }, ...rest);
    };
    return { undo: replaceProperty(proto, "_runTools", runTools) };
  },
};
