/**
 * `bb.tools()` / `bb.tool()`: a tool function wrapped so that each call is a recorded tool
 * step (record), the recorded result (replay), or a fork's. The wrapper keeps the
 * function's parameters and always returns a Promise; in mode off it just runs the tool.
 */
import { CALL_FROM } from "../globals.js";
import { checkToolName } from "./options.js";
import { whyNoToolWrapped } from "./unseen.js";
import type { AnyFn, Mode, WrappedTool, WrappedTools } from "./types.js";

/** What a wrapped tool calls: the engine (the order of calls checked, then the mode answers). */
interface ToolHost {
  readonly mode: Mode;
  writerLoading(): Promise<void> | undefined;
  startTool(name: string, args: unknown[], run: () => unknown): Promise<unknown>;
}

/** How an ESM tool wrapper calls a wrapped tool: `wrapped[CALL_FROM](this, args, itself)`. */
type CallFrom = (self: unknown, args: unknown[], entry: AnyFn) => Promise<unknown>;

export function wrapTools<T extends Record<string, AnyFn>>(host: ToolHost, tools: T): WrappedTools<T> {
  const out = {} as Record<string, AnyFn>;
  for (const [name, fn] of Object.entries(tools)) {
    if (typeof fn !== "function")
      throw new TypeError(
        `bb.tools(): "${name}" is not a function or a tool object; pass { name: function } or a framework's tool (an AI SDK tool(), a LangChain tool, an Agents SDK tool(), betaZodTool())`,
      );
    out[name] = wrapTool(host, name, fn, "bb.tools()");
  }
  return out as WrappedTools<T>;
}

export function wrapTool<F extends AnyFn>(host: ToolHost, name: string, fn: F, where: string): WrappedTool<F> {
  if (typeof fn !== "function") throw new TypeError(`bb.tool("${name}", fn): fn is not a function`);
  // mode off records nothing, so no name can spoil a cassette: an app that runs without
  // Blackbox (production) must not fail on a tool name that only a recording would store
  if (host.mode !== "off") checkToolName(name, where);
  const wrapped = async function (this: unknown, ...args: unknown[]) {
    return call(host, name, args, () => fn.apply(this, args), wrapped);
  };
  Object.defineProperty(wrapped, "name", { value: fn.name || name });
  // the ESM tool wrappers call in through this, naming their own function as the agent's entry
  const from: CallFrom = (self, args, entry) => call(host, name, args, () => fn.apply(self, args), entry);
  Object.defineProperty(wrapped, CALL_FROM, { value: from });
  return wrapped as WrappedTool<F>;
}

/** `entry`: the function the agent called; a refusal's stack starts at the agent's call of it. */
async function call(host: ToolHost, name: string, args: unknown[], run: () => unknown, entry: AnyFn): Promise<unknown> {
  if (host.mode === "off") return run();
  const loading = host.writerLoading();
  if (loading) await loading;
  try {
    return host.startTool(name, args, run); // the tool's own rejection passes untouched
  } catch (err) {
    // ours (a refusal, arguments with no JSON form): the agent's frames
    if (err instanceof Error) Error.captureStackTrace(err, entry);
    throw err;
  }
}

/**
 * The tools a session (or a run) wrapped, counted: with none, a replay says why no tool is wrapped (no config was
 * found) instead of blaming the agent.
 */
export class ToolWraps {
  private count = 0;

  constructor(
    private readonly host: ToolHost,
    private readonly config: () => { file: string | undefined; cwd: string } | undefined,
  ) {}

  tools<T extends Record<string, AnyFn>>(tools: T): WrappedTools<T> {
    const wrapped = wrapTools(this.host, tools);
    this.count += Object.keys(tools).length;
    return wrapped;
  }

  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F> {
    const wrapped = wrapTool(this.host, name, fn, "bb.tool()");
    this.count++;
    return wrapped;
  }

  /** Why no tool is wrapped, when none is; else undefined. */
  unwrapped(): string | undefined {
    return this.count > 0 ? undefined : whyNoToolWrapped(this.config());
  }
}
