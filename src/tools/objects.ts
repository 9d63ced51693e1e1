/**
 * A framework's tool object (an AI SDK `tool()`, a LangChain tool, an Agents SDK `tool()`,
 * an Anthropic `betaZodTool()`, an openai `runTools()` function tool), recorded with the
 * model's arguments alone: the config wraps one in place (src/tools/index.ts); `bb.tools()`
 * given one returns a copy whose function is recorded, so the session handed to the
 * framework records its tools in a process without the register hook, and a tool object
 * shared by several sessions (one per test) is never tied to one of them. An MCP SDK
 * `Client` given to it comes back as a proxy of itself whose connect, callTool and list
 * calls this session records as the register hook's patch does (frameworks/mcp.ts). Light:
 * the public session loads it.
 */
import type { BlackboxError } from "../errors.js";
import { WRAPPED_TOOL } from "../globals.js";
import type { AnyFn, Session } from "../session/types.js";
import { toolCallsOf } from "../trace/payloads.js";
import type { ModelOutput } from "../trace/types.js";
import { isMcpClient, recordedClient } from "./frameworks/mcp.js";
import { aiSdkClientRefusal, isAiSdkMcpClient } from "./frameworks/mcpAiSdk.js";
import { insideFrameworkTool, runAsFrameworkTool } from "./frameworks/scope.js";
import type { FrameworkHost } from "./frameworks/types.js";
import { runnerTool, runnerToolName } from "./runnerTools.js";

type ToolSession = Pick<Session, "tool">;

/**
 * A framework tool object's function, recorded with the model's arguments alone: each call is one
 * recorded call of them, which runs `fn` with all the framework gave it. Inside a framework tool call
 * Blackbox records already (the register hook's patches, src/tools/frameworks/), it just runs.
 */
export function modelArgumentsOnly(
  session: ToolSession,
  name: string,
  fn: AnyFn,
  modelArguments: (args: unknown[]) => unknown,
): AnyFn {
  const own = function (this: unknown, ...args: unknown[]) {
    const self = this;
    if (insideFrameworkTool()) return (async () => fn.apply(self, args))();
    return (session.tool(name, () => fn.apply(self, args)) as AnyFn)(modelArguments(args));
  };
  Object.defineProperty(own, "name", { value: fn.name });
  Object.defineProperty(own, WRAPPED_TOOL, { value: fn });
  return own;
}

/** The runner's own arguments after the first (a tool context, the runner) are never recorded. */
const first = (args: unknown[]) => args[0];

/** What `bb.tools()` records through: the session's tool, tools, fail, mcpLive and the model's latest output. */
export interface ToolsSession {
  tool: Session["tool"];
  tools(tools: Record<string, AnyFn>): object;
  fail(err: BlackboxError): void;
  readonly mcpLive: string | undefined;
  readonly lastOutput: ModelOutput | undefined;
}

/**
 * The session as a framework patch's host (install.ts builds the register hook's the same way): a call
 * inside a framework tool call Blackbox records already (the hook's) is part of that call, and just runs.
 */
function sessionHost(session: ToolsSession): FrameworkHost {
  return {
    record: (name, input, run) =>
      insideFrameworkTool()
        ? Promise.resolve().then(run)
        : runAsFrameworkTool(() => (session.tool(name, () => run()) as AnyFn)(input) as Promise<unknown>),
    fail: (err) => session.fail(err),
    get mcpLive() {
      return session.mcpLive;
    },
    modelToolCalls: () => toolCallsOf(session.lastOutput ?? null),
  };
}

/**
 * `bb.tools()`: functions wrapped by the session, tool objects as recorded copies (under the tool's own
 * name, the one the model calls, else the key: an AI SDK tool's name is its key in `tools`), an MCP
 * client as a recorded proxy of itself.
 */
export function sessionTools(session: ToolsSession, tools: Record<string, unknown>): object {
  if (tools === null || typeof tools !== "object") return session.tools(tools as Record<string, AnyFn>);
  const functions: Record<string, AnyFn> = {};
  const copies: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tools)) {
    if (isAiSdkMcpClient(value)) throw aiSdkClientRefusal(key);
    if (isMcpClient(value)) {
      copies[key] = recordedClient(value, sessionHost(session));
      continue;
    }
    const tool = typeof value === "function" ? undefined : runnerTool(value);
    if (!tool)
      functions[key] = value as AnyFn; // a function, or what session.tools() refuses with its message
    else
      copies[key] = tool.copy(
        modelArgumentsOnly(session, runnerToolName({ name: key }, tool), tool.fn, tool.modelArguments ?? first),
      );
  }
  const wrapped = session.tools(functions) as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(tools).map((key) => [key, Object.hasOwn(copies, key) ? copies[key] : wrapped[key]]),
  );
}
