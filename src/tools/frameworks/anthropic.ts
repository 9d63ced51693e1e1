/**
 * The Anthropic SDK's `toolRunner()` (and its session tool runner): every tool it runs
 * (`betaZodTool`, `betaTool`, a plain `{ name, run }` object) goes through
 * `runRunnableTool(tool, rawInput, context)` of lib/tools/BetaRunnableTool, which parses the
 * input, runs the tool and turns a throw into an error result. The patch records the tool's
 * own run under the tool's name with the model's raw input; `context` (the runner's) is
 * never recorded. In a replay the recorded result is what the runner gets.
 */
import type { AnyFn } from "../../session/types.js";
import type { FrameworkTarget } from "./types.js";

type Runnable = { name?: unknown; run?: unknown; parse?: unknown };
type RunRunnableTool = (tool: Runnable, rawInput: unknown, context: unknown) => Promise<unknown>;

export const anthropicToolRunner: FrameworkTarget = {
  framework: "the Anthropic SDK's toolRunner()",
  package: "@anthropic-ai/sdk",
  versions: ">=1.14.0 <2.0.0",
  files: [
    { path: "lib/tools/BetaRunnableTool.mjs", format: "esm", replace: ["runRunnableTool"] },
    { path: "lib/tools/BetaRunnableTool.js", format: "cjs", replace: ["runRunnableTool"] },
  ],
  patch(_file, names, host) {
    const original = names.runRunnableTool as RunRunnableTool;
    const runRunnableTool: RunRunnableTool = function (this: unknown, tool, rawInput, context) {
      const { run, parse, name } = tool ?? {};
      if (typeof run !== "function" || typeof name !== "string") {
        return original.call(this, tool, rawInput, context);
      }
      const invoke = () => {
        const input = typeof parse === "function" ? (parse as AnyFn).call(tool, rawInput) : rawInput;
        return (run as AnyFn).call(tool, input, context);
      };
      // the runner parses and runs through this stand-in: its run is the recorded call
      const standIn = Object.create(tool, {
        parse: { value: undefined },
        run: { value: () => host.record(name, rawInput, invoke) },
      }) as Runnable;
      return original.call(this, standIn, rawInput, context);
    };
    return { replace: { runRunnableTool: runRunnableTool as AnyFn }, undo() {} };
  },
};
