/**
 * LangChain.js 1.x: every tool call goes through `StructuredTool.prototype.call` of
 * @langchain/core/tools (`tool()`, DynamicStructuredTool, DynamicTool and Tool call it
 * through `super.call`; `invoke`, LangGraph's ToolNode, createReactAgent and createAgent
 * call it), which parses the input, runs `this._call(parsed, runManager, config)` between
 * the callbacks, and formats the output (a ToolMessage with the provider's tool call id).
 * The patch runs it on a stand-in for the tool whose `_call` is the recorded call: under the
 * tool's name with the model's arguments (a tool call's `args`, else the input as given); the
 * run manager and config are never recorded. In a replay the recorded output is what
 * `_call` returns: parsing, callbacks and formatting still run.
 */
import type { AnyFn } from "../../session/types.js";
import { replaceProperty } from "../patch.js";
import type { FrameworkTarget } from "./types.js";

interface LangChainTool {
  name?: unknown;
  _call?: unknown;
}

/** A ToolCall as LangChain passes one (`{ type: "tool_call", id, name, args }`): its args are the model's. */
function modelArguments(arg: unknown): unknown {
  const call = arg as { type?: unknown; args?: unknown } | null;
  return call !== null && typeof call === "object" && call.type === "tool_call" ? call.args : arg;
}

export const langchain: FrameworkTarget = {
  framework: "LangChain.js",
  package: "@langchain/core",
  versions: ">=1.0.0 <2.0.0",
  files: [
    { path: "dist/tools/index.js", format: "esm", read: ["StructuredTool"] },
    { path: "dist/tools/index.cjs", format: "cjs", read: ["StructuredTool"] },
  ],
  patch(_file, names, host) {
    const proto = (names.StructuredTool as { prototype?: Record<string, unknown> }).prototype;
    const original = proto?.call;
    if (!proto || typeof original !== "function") throw new Error("StructuredTool.prototype.call is no function");
    const call = function (this: LangChainTool, ...args: unknown[]) {
      const { name, _call: own } = this ?? {};
      if (typeof name !== "string" || typeof own !== "function") return original.apply(this, args);
      const input = modelArguments(args[0]);
      const tool = this;
      const standIn = Object.create(tool, {
        _call: {
          value: (...callArgs: unknown[]) => host.record(name, input, () => (own as AnyFn).apply(tool, callArgs)),
        },
      }) as LangChainTool;
      return original.apply(standIn, args);
    };
    return { undo: replaceProperty(proto, "call", call) };
  },
};
