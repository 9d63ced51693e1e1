/**
 * The AI SDK's MCP client (`@ai-sdk/mcp` 1.x: `createMCPClient`, where ai 5's
 * `experimental_createMCPClient` moved; ai 6 has none). It is a client of its own, not the MCP SDK's
 * `Client` (mcp.ts), with its own transports (its stdio and HTTP ones, or an MCP SDK
 * transport handed to it), so it is patched on its own class, `DefaultMCPClient`, with the
 * steps mcp.ts writes:
 *
 * - `init()` (what `createMCPClient` awaits): `mcp:initialize`, its input the client's
 *   info, its result what the server said of itself;
 * - `listTools()` (what `tools()` pages through) and the resource and prompt calls:
 *   `mcp:<method>`, their input the server's name and the request's params;
 * - `callTool()`: a tool step under the model's name for the tool (mcpNames.ts). The tools
 *   `tools()` returns call it inside the AI SDK tool's `execute`, which the AI SDK patch
 *   records (aiSdk.ts): there it is part of that call, and a replay answers the whole call.
 * - an `elicitation/create` request the client has a handler for fails the run by name
 *   (mcpRequests.ts).
 *
 * In a replay an answered `init()` never starts the agent's transport (no process, no
 * socket): the client gets the recorded server info and sits on an OfflineTransport; a call
 * whose `run` does run (a fork past its fork point) first runs the SDK's own `init()` on the
 * agent's transport. `blackbox replay --mcp-live` also makes init and the list calls live and
 * compares them (mcpDrift.ts).
 */
import type { AnyFn } from "../../session/types.js";
import { replaceProperty } from "../patch.js";
import { drifted, resultChanges } from "./mcpDrift.js";
import { modelName } from "./mcpNames.js";
import { OfflineTransport } from "./mcpOffline.js";
import { serverRequest } from "./mcpRequests.js";
import type { FrameworkHost, FrameworkTarget } from "./types.js";

const INITIALIZE = "mcp:initialize";

/** DefaultMCPClient as the patch reads it (its fields are the package's own). */
interface AiSdkMcpClient {
  transport: Transport;
  clientInfo?: unknown;
  serverCapabilities?: unknown;
  _serverInfo?: { name?: unknown };
  _serverInstructions?: unknown;
  isClosed?: boolean;
  elicitationRequestHandler?: unknown;
}

interface Transport {
  onclose?: unknown;
  onerror?: unknown;
  onmessage?: unknown;
  close?(): Promise<void>;
}

/** The methods answered from the cassette besides init and callTool: their MCP method, and the params a call sends. */
const LISTS: Readonly<Record<string, [string, (arg: Record<string, unknown>) => unknown]>> = {
  listTools: ["tools/list", (a) => a.params],
  listResourcesInternal: ["resources/list", (a) => a.params],
  readResourceInternal: ["resources/read", (a) => ({ uri: a.uri })],
  listResourceTemplatesInternal: ["resources/templates/list", () => undefined],
  listPromptsInternal: ["prompts/list", (a) => a.params],
  getPromptInternal: ["prompts/get", (a) => ({ name: a.name, arguments: a.args })],
};

const ANSWERED = ["init", "callTool", "listTools", "listResources", "readResource", "listPrompts", "getPrompt"];

function serverName(client: AiSdkMcpClient): string {
  const name = client._serverInfo?.name;
  return typeof name === "string" ? name : "";
}

/** What the server said of itself at init, as the step records it. */
function saysNow(client: AiSdkMcpClient): Record<string, unknown> {
  const out: Record<string, unknown> = { serverInfo: client._serverInfo, capabilities: client.serverCapabilities };
  if (client._serverInstructions !== undefined) out.instructions = client._serverInstructions;
  return out;
}

/** Each client's callTool calls in flight, for the message of a server's request. */
const calling = new WeakMap<object, string[]>();

/** The agent's transport of a client initialized from the cassette, or its real init under way. */
const kept = new WeakMap<object, Transport | Promise<void>>();

/** A call that runs on a client initialized from the cassette: the SDK's init on the agent's transport first. */
function goLive(client: AiSdkMcpClient, sdkInit: AnyFn): Promise<void> {
  const held = kept.get(client);
  if (held === undefined || held instanceof Promise) return held ?? Promise.resolve();
  const connecting = (async () => {
    client.transport = held;
    await sdkInit.call(client);
  })();
  kept.set(client, connecting);
  return connecting;
}

/** Whether `value` is the AI SDK's MCP client (what `createMCPClient()` resolves to), by its shape. */
export function isAiSdkMcpClient(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return ["init", "tools", "listTools", "callTool", "onElicitationRequest"].every((m) => typeof v[m] === "function");
}

/**
 * `bb.tools()` given the AI SDK's MCP client: by then `createMCPClient()` has connected it (its
 * server started), so no proxy could answer its connection in a replay; the register hook can.
 */
export function aiSdkClientRefusal(key: string): TypeError {
  return new TypeError(
    `bb.tools(): "${key}" is the AI SDK's MCP client (@ai-sdk/mcp createMCPClient()), which bb.tools() cannot record: createMCPClient() connected it (and started its server) before bb.tools() was given it, so a replay could not answer its connection. Run the agent under the register hook (blackbox record -- <command>, or node --import @ardaulas/blackbox/register), which records its connection and tool list and replays them with no server (docs/tools.md#the-ai-sdks-mcp-client); or hand bb.tools() an MCP SDK Client before connecting it`,
  );
}

export const mcpAiSdk: FrameworkTarget = {
  framework: "the AI SDK's MCP client",
  package: "@ai-sdk/mcp",
  versions: ">=1.0.102 <2.0.0",
  files: [
    { path: "dist/index.mjs", format: "esm", read: ["DefaultMCPClient"] },
    { path: "dist/index.js", format: "cjs", read: ["DefaultMCPClient"] },
  ],
  patch(_file, names, host) {
    const proto = (names.DefaultMCPClient as { prototype?: Record<string, unknown> }).prototype;
    if (!proto) throw new Error("DefaultMCPClient has no prototype");
    const originals: Record<string, AnyFn> = {};
    for (const m of ["init", "callTool", "onRequestMessage", ...Object.keys(LISTS)]) {
      if (typeof proto[m] !== "function") throw new Error(`DefaultMCPClient.prototype.${m} is no function`);
      originals[m] = proto[m] as AnyFn;
    }
    const sdkInit = originals.init!;
    const methods: Record<string, AnyFn> = {
      init: init(host, sdkInit),
      callTool: callTool(host, originals.callTool!, sdkInit),
      onRequestMessage: requests(host, originals.onRequestMessage!),
      ...Object.fromEntries(
        Object.entries(LISTS).map(([m, [method, params]]) => [
          m,
          listed(host, `mcp:${method}`, params, originals[m]!, sdkInit),
        ]),
      ),
    };
    const undos = Object.entries(methods).map(([m, fn]) => replaceProperty(proto, m, fn));
    return { undo: () => undos.reverse().forEach((u) => u()) };
  },
};

function init(host: FrameworkHost, original: AnyFn): AnyFn {
  return async function (this: AiSdkMcpClient, ...args: unknown[]) {
    let ran = false;
    const said = (await host.record(INITIALIZE, { clientInfo: this.clientInfo ?? null }, async () => {
      ran = true;
      await original.apply(this, args);
      return saysNow(this);
    })) as Record<string, unknown> | null;
    if (ran) return this;
    const cassette = host.mcpLive;
    if (cassette !== undefined) {
      // the live server's initialize, compared; the agent is given the recorded answer
      await original.apply(this, args);
      const changes = resultChanges(INITIALIZE, said, saysNow(this));
      if (changes.length) host.fail(drifted(cassette, serverName(this), INITIALIZE, changes));
    } else {
      // answered from the cassette: the agent's transport is never started
      const agents = this.transport;
      const offline = new OfflineTransport(String((said?.serverInfo as { name?: unknown })?.name ?? ""), ANSWERED);
      Object.assign(offline, { onclose: agents.onclose, onerror: agents.onerror, onmessage: agents.onmessage });
      kept.set(this, agents);
      this.transport = offline as unknown as Transport;
      this.isClosed = false;
    }
    this._serverInfo = said?.serverInfo as AiSdkMcpClient["_serverInfo"];
    this.serverCapabilities = said?.capabilities ?? {};
    this._serverInstructions = said?.instructions;
    return this;
  };
}

function callTool(host: FrameworkHost, original: AnyFn, sdkInit: AnyFn): AnyFn {
  return function (this: AiSdkMcpClient, call: { name?: unknown; args?: unknown } | undefined, ...rest: unknown[]) {
    const name = call?.name;
    if (typeof name !== "string") return original.call(this, call, ...rest);
    const step = modelName(host.modelToolCalls(), name, serverName(this), call!.args);
    const inFlight = calling.get(this) ?? [];
    calling.set(this, inFlight);
    inFlight.push(`callTool "${name}"`);
    return host
      .record(step, call!.args ?? {}, async () => {
        await goLive(this, sdkInit);
        return original.call(this, call, ...rest);
      })
      .finally(() => inFlight.splice(inFlight.lastIndexOf(`callTool "${name}"`), 1));
  };
}

function listed(
  host: FrameworkHost,
  step: string,
  paramsOf: (arg: Record<string, unknown>) => unknown,
  original: AnyFn,
  sdkInit: AnyFn,
): AnyFn {
  return async function (this: AiSdkMcpClient, arg: Record<string, unknown> | undefined, ...rest: unknown[]) {
    const server = serverName(this);
    const params = paramsOf(arg ?? {});
    const input = params === undefined ? { server } : { server, params };
    let ran = false;
    const result = await host.record(step, input, async () => {
      ran = true;
      await goLive(this, sdkInit);
      return original.call(this, arg, ...rest);
    });
    const cassette = host.mcpLive;
    if (!ran && cassette !== undefined && !(this.transport instanceof OfflineTransport)) {
      const changes = resultChanges(step, result, await original.call(this, arg, ...rest));
      if (changes.length) host.fail(drifted(cassette, server, step, changes));
    }
    return result;
  };
}

/**
 * An `elicitation/create` the server sends a client with a handler for it (the one request the
 * client answers itself besides ping): refused by name (mcpRequests.ts). Any other is answered
 * "Unsupported" by the package, which the server's recorded answer reflects.
 */
function requests(host: FrameworkHost, original: AnyFn): AnyFn {
  return function (this: AiSdkMcpClient, request: { method?: unknown } | undefined, ...rest: unknown[]) {
    const method = request?.method;
    if (method === "elicitation/create" && this.elicitationRequestHandler !== undefined)
      host.fail(serverRequest(serverName(this), method, calling.get(this)?.at(-1)));
    return original.call(this, request, ...rest);
  };
}
