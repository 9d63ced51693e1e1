/**
 * Mastra (@mastra/core 1.x): an Agent runs its tools in a loop of its own, not through the
 * AI SDK's `executeToolCall` (Mastra does not depend on `ai`). Each run, `Agent.prototype.convertTools`
 * turns every tool it has (its `tools`, toolsets, client tools, memory, sub-agents, workflows)
 * into one object keyed by the name the model calls (the key in the agent's `tools`, not a
 * `createTool()`'s `id`), and ends with `this.wrapToolsWithHooks(tools, hooks)`; the loop's
 * tool-call step then calls `tools[toolName].execute(args, options)`, with `args` the model's
 * arguments and `options` Mastra's own (the tool call id, messages, run ids, tracing, the
 * abort signal). The patch hands `wrapToolsWithHooks` those tools with each `execute` the
 * recorded call: under its key, with `args` alone; `options` is never recorded. The agent's
 * beforeToolCall / afterToolCall hooks wrap it and still run in a replay, where the recorded
 * result is the tool's output.
 *
 * Mastra's code is in chunks whose file names carry a hash that changes between releases;
 * the patched file is the stable entry `@mastra/core/agent` (dist/agent/index.*), which
 * hands over the Agent class (an import binding in the ES module; `exports.Agent` in the
 * CommonJS one).
 */
import type { AnyFn } from "../../session/types.js";
import { replaceProperty } from "../patch.js";
import type { FrameworkTarget } from "./types.js";

type Tools = Record<string, { execute?: unknown } | undefined>;
type WrapToolsWithHooks = (tools: Tools, ...rest: unknown[]) => unknown;

export const mastra: FrameworkTarget = {
  framework: "Mastra's Agent",
  package: "@mastra/core",
  versions: ">=1.71.0 <2.0.0",
  files: [
    { path: "dist/agent/index.js", format: "esm", read: ["Agent"] },
    { path: "dist/agent/index.cjs", format: "cjs", read: ["exports"] },
  ],
  patch(file, names, host) {
    const Agent = (file.format === "cjs" ? (names.exports as { Agent?: unknown }).Agent : names.Agent) as
      { prototype?: Record<string, unknown> } | undefined;
    const proto = Agent?.prototype;
    const original = proto?.wrapToolsWithHooks;
    if (!proto || typeof original !== "function") throw new Error("Agent.prototype.wrapToolsWithHooks is no function");
    // a sub-agent or a workflow given to the agent as a tool is a run of its own, not one call: its model calls
    // and its tools are recorded as they happen (a model call inside a recorded tool call is refused), so the
    // tools those methods make are left as they are
    const delegates = new WeakSet<object>();
    const undos: Array<() => void> = [];
    for (const method of ["listAgentTools", "listWorkflowTools"]) {
      const list = proto[method];
      if (typeof list !== "function") continue;
      const listed = async function (this: unknown, ...args: unknown[]) {
        const made = (await (list as AnyFn).apply(this, args)) as Tools | null | undefined;
        if (made && typeof made === "object")
          for (const t of Object.values(made)) if (t && typeof t === "object") delegates.add(t);
        return made;
      };
      undos.push(replaceProperty(proto, method, listed));
    }
    const wrapToolsWithHooks: WrapToolsWithHooks = function (this: unknown, tools, ...rest) {
      if (tools === null || typeof tools !== "object") return (original as AnyFn).call(this, tools, ...rest);
      const recorded: Tools = {};
      for (const [name, tool] of Object.entries(tools)) {
        const execute = tool?.execute;
        if (typeof execute !== "function" || delegates.has(tool!)) {
          recorded[name] = tool;
          continue;
        }
        // a copy of the tool (as Mastra's own wrappers copy one: every own property, symbols too) with its execute recorded
        recorded[name] = Object.create(Object.getPrototypeOf(tool), {
          ...Object.getOwnPropertyDescriptors(tool),
          execute: {
            configurable: true,
            enumerable: true,
            writable: true,
            value: (args: unknown, options: unknown) =>
              host.record(name, args, () => (execute as AnyFn).call(tool, args, options)),
          },
        }) as Tools[string];
      }
      return (original as AnyFn).call(this, recorded, ...rest);
    };
    undos.push(replaceProperty(proto, "wrapToolsWithHooks", wrapToolsWithHooks));
    return { undo: () => undos.reverse().forEach((u) => u()) };
  },
};
