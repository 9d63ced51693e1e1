/**
 * The OpenAI Agents SDK (@openai/agents, its core package @openai/agents-core): the runner
 * calls every function tool (`tool({ name, parameters, execute })`) through
 * `invokeFunctionTool({ tool, runContext, input, details })` of dist/tool, with `input` the
 * model's JSON arguments. The patch records that call under the tool's name with those
 * arguments (as JSON); the run context and details (the call id, the signal) are never
 * recorded. In a replay the recorded output is what the runner gets.
 */
import type { AnyFn } from "../../session/types.js";
import { modelArguments } from "./args.js";
import type { FrameworkTarget } from "./types.js";

type InvokeFunctionTool = (args: { tool?: { name?: unknown }; input?: unknown }) => unknown;

export const agentsSdk: FrameworkTarget = {
  framework: "the OpenAI Agents SDK",
  package: "@openai/agents-core",
  usedAs: ["@openai/agents"],
  versions: ">=0.20.0 <0.21.0",
  files: [
    { path: "dist/tool.mjs", format: "esm", replace: ["invokeFunctionTool"] },
    { path: "dist/tool.js", format: "cjs", replace: ["invokeFunctionTool"] },
  ],
  patch(_file, names, host) {
    const original = names.invokeFunctionTool as InvokeFunctionTool;
    const invokeFunctionTool: InvokeFunctionTool = function (this: unknown, args) {
      const name = args?.tool?.name;
      if (typeof name !== "string") return original.call(this, args);
      return host.record(name, modelArguments(args.input), () => original.call(this, args));
    };
    return { replace: { invokeFunctionTool: invokeFunctionTool as AnyFn }, undo() {} };
  },
};
