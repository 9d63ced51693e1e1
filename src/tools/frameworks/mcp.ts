/**
 * The MCP TypeScript SDK (@modelcontextprotocol/sdk 1.x): an agent reaches an MCP server's
 * tools through its `Client` (client/index.js), whatever the transport (stdio, Streamable
 * HTTP, SSE). The patch makes each of the client's requests below a tool step (on
 * Client.prototype, under the register hook; `recordedClient` the same on one client, for
 * bb.tools() in a process without it):
 *
 * - `callTool(params)`: under the name the model called the tool by (`params.name`, or the
 *   model's name for it where the agent renamed the tool: a server prefix) with its
 *   `arguments` alone, or `{ server, arguments }` where two connected servers listed a tool
 *   of that name (mcpNames.ts); the result is the SDK's (content blocks,
 *   `structuredContent`, `isError`). An `isError` result of one text block is recorded as a
 *   tool error whose message is that text, and a replay gives the agent the same
 *   `{ content, isError: true }` back (not a throw); a callTool that throws (a protocol
 *   error, a timeout) is a tool error too, its message after THREW.
 * - `connect(transport)`: the step `mcp:initialize`, its input the client's own info (what
 *   the client tells the server), its result what the server said of itself
 *   (`serverInfo`, `capabilities`, `instructions`).
 * - `listTools`, `listPrompts`, `listResources`, `listResourceTemplates`, `readResource`,
 *   `getPrompt`: the step `mcp:<method>` (`mcp:tools/list`), its input the server's name
 *   and the request's params.
 *
 * - `_onrequest(request)`: where the SDK dispatches a request the server sends the client;
 *   one the client has a handler for fails the run (mcpRequests.ts).
 *
 * `mcp:` names cannot be a model's tool name (Anthropic's and OpenAI's allow no colon).
 * Everything goes through `host.record`, which in a replay answers without calling `run`:
 * a connect whose `run` did not run was answered from the cassette, and the client is then
 * connected to an OfflineTransport (mcpOffline.ts) instead of the agent's, which is never
 * started (no process spawned, no socket), with the recorded server info set. The agent's
 * transport is kept: a call whose `run` does run on such a client (a fork going on past its
 * fork point) first connects it for real (the server started, a real `initialize`), so a
 * server is started only if the continued run calls it. In a replay with `mcpLive`
 * (mcpDrift.ts) connect and the list calls are also made live, and compared.
 */
import { isBlackboxError } from "../../errors.js";
import type { AnyFn } from "../../session/types.js";
import { replaceProperty } from "../patch.js";
import { drifted, resultChanges } from "./mcpDrift.js";
import { OfflineTransport } from "./mcpOffline.js";
import { listedTools, modelName, stepInput } from "./mcpNames.js";
import { handled, type McpProtocol, serverRequest } from "./mcpRequests.js";
import type { FrameworkHost, FrameworkTarget } from "./types.js";

/** The step of `connect()`. */
export const INITIALIZE = "mcp:initialize";
/** The step of `listTools()`. */
const TOOLS_LIST = "mcp:tools/list";
/** The message of a recorded callTool that threw begins with this (an isError result's is the tool's text). */
export const THREW = "MCP callTool threw: ";

/** The client's methods answered from the cassette besides connect and callTool: their MCP method. */
const LISTS: Readonly<Record<string, string>> = {
  listTools: "tools/list",
  listPrompts: "prompts/list",
  listResources: "resources/list",
  listResourceTemplates: "resources/templates/list",
  readResource: "resources/read",
  getPrompt: "prompts/get",
};

/** The SDK's Client as the patch reads it (its fields are the SDK's own, private in its types). */
interface McpClient extends McpProtocol {
  readonly transport?: unknown;
  onclose?: unknown;
  _clientInfo?: unknown;
  _serverCapabilities?: unknown;
  _serverVersion?: unknown;
  _instructions?: unknown;
  getServerVersion?(): { name?: unknown } | undefined;
  getServerCapabilities?(): unknown;
  getInstructions?(): unknown;
}

/** Each client's calls in flight (a step's name: `get_weather`, `mcp:tools/list`), for the message of a server's request. */
const inFlight = new WeakMap<object, string[]>();

async function during<T>(client: object, step: string, call: () => Promise<T>): Promise<T> {
  const steps = inFlight.get(client) ?? [];
  inFlight.set(client, steps);
  steps.push(step);
  try {
    return await call();
  } finally {
    steps.splice(steps.lastIndexOf(step), 1);
  }
}

/** The agent's transport of a client connected from the cassette (with connect's other arguments), or its real connect under way. */
const kept = new WeakMap<object, { transport: unknown; rest: unknown[] } | Promise<void>>();

/**
 * A call that runs on a client connected from the cassette: the agent's own transport
 * connected first, by the SDK's connect (unrecorded: part of the call that needed it), the
 * stand-in closed without the agent's `onclose` hearing of it.
 */
function goLive(client: McpClient, sdkConnect: AnyFn): Promise<void> {
  const held = kept.get(client);
  if (held === undefined || held instanceof Promise) return held ?? Promise.resolve();
  const connecting = (async () => {
    if (client.transport instanceof OfflineTransport) {
      const onclose = client.onclose;
      client.onclose = undefined;
      try {
        await client.transport.close();
      } finally {
        client.onclose = onclose;
      }
    }
    await sdkConnect.call(client, held.transport, ...held.rest);
  })();
  kept.set(client, connecting);
  return connecting;
}

/** What the server said of itself at connect, as the step records it. */
interface ServerSaid {
  serverInfo?: unknown;
  capabilities?: unknown;
  instructions?: unknown;
}

type CallToolResult = { content?: unknown; isError?: unknown; [key: string]: unknown };

/** An isError result a tool error step gives back exactly: one text block, nothing else. */
function errorText(result: CallToolResult): string | undefined {
  if (result?.isError !== true || Object.keys(result).some((k) => k !== "content" && k !== "isError")) return;
  const content = result.content as Array<Record<string, unknown>> | undefined;
  if (!Array.isArray(content) || content.length !== 1) return;
  const block = content[0]!;
  if (block.type !== "text" || typeof block.text !== "string" || Object.keys(block).length !== 2) return;
  return block.text;
}

/** Thrown through host.record in a recording: the step is a tool error, the agent gets `result`. */
class ToolErrorResult extends Error {
  constructor(
    text: string,
    readonly result: CallToolResult,
  ) {
    super(text);
  }
}

/** Thrown through host.record in a recording: the step is a tool error, the agent gets `original`. */
class CallToolThrew extends Error {
  constructor(readonly original: unknown) {
    super(THREW + (original instanceof Error ? original.message : String(original)));
  }
}

/** The recorded error a replay throws (session/replayer.ts: a plain Error of the recorded message). */
function replayedError(err: unknown, ran: boolean): err is Error {
  return !ran && err instanceof Error && err.constructor === Error && !isBlackboxError(err);
}

function serverName(client: McpClient): string {
  const name = client.getServerVersion?.()?.name;
  return typeof name === "string" ? name : "";
}

export const mcp: FrameworkTarget = {
  framework: "the MCP TypeScript SDK's Client",
  package: "@modelcontextprotocol/sdk",
  versions: ">=1.32.0 <2.0.0",
  files: [
    { path: "dist/esm/client/index.js", format: "esm", read: ["Client"] },
    { path: "dist/cjs/client/index.js", format: "cjs", read: ["Client"] },
  ],
  patch(_file, names, host) {
    const proto = (names.Client as { prototype?: Record<string, unknown> }).prototype;
    if (!proto) throw new Error("Client has no prototype");
    const methods = clientMethods(proto, Object.getPrototypeOf(proto) as Record<string, unknown> | null, host);
    const undos = Object.entries(methods).map(([m, fn]) => replaceProperty(proto, m, fn));
    return { undo: () => undos.reverse().forEach((u) => u()) };
  },
};

/** The client's methods replaced (the patch's on Client.prototype, bb.tools()'s on one client). */
const REPLACED = ["connect", "callTool", ...Object.keys(LISTS), "_onrequest"];

/**
 * The replacements of a client's methods, recording through `host`: `client` holds the SDK's
 * own (Client.prototype, or one client: the methods it would run), `protocol` the SDK
 * Protocol's (its connect, which a replay connects the OfflineTransport with).
 */
function clientMethods(
  client: Readonly<Record<string, unknown>>,
  protocol: Readonly<Record<string, unknown>> | null,
  host: FrameworkHost,
): Record<string, AnyFn> {
  const originals: Record<string, AnyFn> = {};
  for (const m of REPLACED) {
    if (typeof client[m] !== "function") throw new Error(`Client.prototype.${m} is no function`);
    originals[m] = client[m] as AnyFn;
  }
  const protocolConnect = protocol?.connect;
  if (typeof protocolConnect !== "function") throw new Error("the Client's Protocol has no connect");
  const answered = ["connect", "callTool", ...Object.keys(LISTS)];
  const sdkConnect = originals.connect!;
  return {
    connect: connect(host, sdkConnect, protocolConnect as AnyFn, answered),
    callTool: callTool(host, originals.callTool!, sdkConnect),
    ...Object.fromEntries(
      Object.entries(LISTS).map(([m, method]) => [m, listed(host, `mcp:${method}`, originals[m]!, sdkConnect)]),
    ),
    _onrequest: serverRequests(host, originals._onrequest!),
  };
}

/** Whether `value` is an MCP SDK Client, by its shape. */
export function isMcpClient(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return ["callTool", "connect", "listTools", "getServerVersion"].every((m) => typeof v[m] === "function");
}

/**
 * `bb.tools()`'s MCP client, for a process without the register hook: a proxy of `client`
 * whose connect, callTool and list calls are recorded through `host` as the patch records
 * them. Every call runs with the proxy as `this`, and the proxy reads and writes the
 * client's own fields, so the state connect sets (the transport, the server's info) is the
 * client's; nothing of the client itself is changed.
 */
export function recordedClient<T extends object>(client: T, host: FrameworkHost): T {
  // the Protocol's methods: the prototype after the one holding callTool (Client.prototype)
  let owner: object | null = client;
  while (owner !== null && !Object.hasOwn(owner, "callTool")) owner = Object.getPrototypeOf(owner) as object | null;
  const protocol = owner && (Object.getPrototypeOf(owner) as Record<string, unknown> | null);
  const methods: Record<PropertyKey, AnyFn> = clientMethods(client as Record<string, unknown>, protocol, host);
  return new Proxy(client, {
    get: (target, prop, receiver) =>
      Object.hasOwn(methods, prop) ? methods[prop] : Reflect.get(target, prop, receiver),
  });
}

function connect(host: FrameworkHost, original: AnyFn, protocolConnect: AnyFn, answered: string[]): AnyFn {
  return async function (this: McpClient, transport: { sessionId?: unknown } | undefined, ...rest: unknown[]) {
    // a transport with a session already is a reconnect: the SDK sends no initialize
    if (transport?.sessionId !== undefined) return original.call(this, transport, ...rest);
    let ran = false;
    const saysNow = (): ServerSaid => {
      const out: ServerSaid = {
        serverInfo: this.getServerVersion?.(),
        capabilities: this.getServerCapabilities?.(),
      };
      const instructions = this.getInstructions?.();
      if (instructions !== undefined) out.instructions = instructions;
      return out;
    };
    const said = (await host.record(INITIALIZE, { clientInfo: this._clientInfo ?? null }, async () => {
      ran = true;
      await original.call(this, transport, ...rest);
      return saysNow();
    })) as ServerSaid | null;
    if (ran) return;
    const cassette = host.mcpLive;
    if (cassette !== undefined) {
      // the live server's initialize, compared; the agent is given the recorded answer
      await original.call(this, transport, ...rest);
      const changes = resultChanges(INITIALIZE, said, saysNow());
      if (changes.length) host.fail(drifted(cassette, serverName(this), INITIALIZE, changes));
      this._serverVersion = said?.serverInfo;
      this._serverCapabilities = said?.capabilities;
      this._instructions = said?.instructions;
      return;
    }
    // answered from the cassette: the agent's transport is never started
    this._serverVersion = said?.serverInfo;
    this._serverCapabilities = said?.capabilities;
    this._instructions = said?.instructions;
    kept.set(this, { transport, rest });
    await protocolConnect.call(this, new OfflineTransport(serverName(this), answered));
  };
}

function callTool(host: FrameworkHost, original: AnyFn, sdkConnect: AnyFn): AnyFn {
  return async function (this: McpClient, params: { name?: unknown; arguments?: unknown } | undefined, ...rest) {
    const name = params?.name;
    if (typeof name !== "string") return original.call(this, params, ...rest);
    const server = serverName(this);
    const step = modelName(host.modelToolCalls(), name, server, params!.arguments);
    let ran = false;
    try {
      return await during(this, `callTool "${name}"`, () =>
        host.record(step, stepInput(this, server, name, params!.arguments), async () => {
          ran = true;
          await goLive(this, sdkConnect);
          let result: CallToolResult;
          try {
            result = (await original.call(this, params, ...rest)) as CallToolResult;
          } catch (err) {
            throw new CallToolThrew(err);
          }
          const text = errorText(result);
          if (text !== undefined) throw new ToolErrorResult(text, result);
          return result;
        }),
      );
    } catch (err) {
      if (err instanceof ToolErrorResult) return err.result;
      if (err instanceof CallToolThrew) throw err.original;
      if (!replayedError(err, ran)) throw err;
      if (err.message.startsWith(THREW)) throw new Error(err.message.slice(THREW.length));
      return { content: [{ type: "text", text: err.message }], isError: true };
    }
  };
}

function listed(host: FrameworkHost, step: string, original: AnyFn, sdkConnect: AnyFn): AnyFn {
  return function (this: McpClient, params: unknown, ...rest: unknown[]) {
    const server = serverName(this);
    const input = params === undefined ? { server } : { server, params };
    let ran = false;
    return during(this, step, async () => {
      const result = await host.record(step, input, async () => {
        ran = true;
        await goLive(this, sdkConnect);
        return original.call(this, params, ...rest);
      });
      if (step === TOOLS_LIST)
        listedTools(this, server, result, (params as { cursor?: unknown })?.cursor !== undefined);
      const cassette = host.mcpLive;
      if (!ran && cassette !== undefined && !(this.transport instanceof OfflineTransport)) {
        const changes = resultChanges(step, result, await original.call(this, params, ...rest));
        if (changes.length) host.fail(drifted(cassette, server, step, changes));
      }
      return result;
    });
  };
}

/** A request the server sends the client: refused by name where the client would handle it (mcpRequests.ts). */
function serverRequests(host: FrameworkHost, original: AnyFn): AnyFn {
  return function (this: McpClient, request: { method?: unknown } | undefined, ...rest: unknown[]) {
    const method = request?.method;
    if (typeof method === "string" && handled(this, method))
      host.fail(serverRequest(serverName(this), method, inFlight.get(this)?.at(-1)));
    return original.call(this, request, ...rest);
  };
}
