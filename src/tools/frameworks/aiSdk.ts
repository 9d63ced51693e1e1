/**
 * The Vercel AI SDK (ai 6): generateText, streamText and the agent classes built on them run
 * each tool call through `executeToolCall({ toolCall, tools, ... })`, a module-level function
 * of ai's bundle, which calls `tools[toolName].execute(input, options)`. The patch hands it a
 * stand-in for that one tool whose execute is the recorded call: under the name the model
 * called (`toolCall.toolName`, the key in `tools`), with `input` alone; `options` (the
 * runner's: toolCallId, messages, abortSignal) is never recorded. Tools made with `tool()`
 * and plain objects alike. In a replay the recorded result is the tool's output.
 */
import type { AnyFn } from "../../session/types.js";
import type { FrameworkTarget } from "./types.js";

type Tool = { execute?: unknown };
interface ToolCallArgs {
  toolCall?: { toolName?: unknown };
  tools?: Record<string, Tool | undefined>;
  [key: string]: unknown;
}
type ExecuteToolCall = (args: ToolCallArgs) => unknown;

export const aiSdk: FrameworkTarget = {
  framework: "the Vercel AI SDK",
  package: "ai",
  versions: ">=6.0.0 <7.0.0",
  files: [
    { path: "dist/index.mjs", format: "esm", replace: ["executeToolCall"] },
    { path: "dist/index.js", format: "cjs", replace: ["executeToolCall"] },
  ],
  patch(_file, names, host) {
    const original = names.executeToolCall as ExecuteToolCall;
    const executeToolCall: ExecuteToolCall = function (this: unknown, args) {
      const name = args?.toolCall?.toolName;
      const tool = typeof name === "string" ? args.tools?.[name] : undefined;
      const execute = tool?.execute;
      if (typeof name !== "string" || typeof execute !== "function") {
        return original.call(this, args);
      }
      const standIn = Object.create(tool!, {
        execute: {
          value: (input: unknown, options: unknown) =>
            host.record(name, input, () => (execute as AnyFn).call(tool, input, options)),
        },
      }) as Tool;
      return original.call(this, { ...args, tools: { ...args.tools, [name]: standIn } });
    };
    return { replace: { executeToolCall: executeToolCall as AnyFn }, undo() {} };
  },
};
