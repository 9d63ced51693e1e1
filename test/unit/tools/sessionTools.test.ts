/**
 * bb.tools() given a framework's tool objects (shaped as the frameworks make them; each
 * framework's real objects run in test/integration/tools-*.test.ts): a copy whose function
 * is recorded with the model's arguments alone, the caller's object left as it was.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { blackbox } from "../../../src/index.js";
import type { Trace } from "../../../src/trace/types.js";

const dir = mkdtempSync(join(tmpdir(), "bbx-session-tools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class LangChainLikeTool {
  lc_namespace = ["langchain", "tools"];
  name = "lookup";
  constructor(readonly func: (input: unknown, runManager?: unknown) => Promise<string>) {}
  invoke(input: unknown) {
    return this.func(input, { runId: "run-1" });
  }
}

describe("bb.tools() with tool objects", () => {
  it("records each under the model's name with the model's arguments; the originals stay unwrapped", async () => {
    const out = join(dir, "objects.json");
    const bb = blackbox({ mode: "record", out });
    const runs: unknown[][] = [];
    const aiSdk = {
      description: "d",
      inputSchema: {},
      execute: async (...args: unknown[]) => (runs.push(args), { sunny: true }),
    };
    const langchain = new LangChainLikeTool(async (...args) => (runs.push(args), "found"));
    const agents = {
      type: "function",
      name: "book",
      invoke: async (...args: unknown[]) => (runs.push(args), "booked"),
    };
    const inner = { name: "rate", parameters: {}, function: async (...args: unknown[]) => (runs.push(args), 4) };
    const openai = { type: "function", function: inner };
    const plain = async (city: string) => `${city}!`;
    const tools = bb.tools({ weather: aiSdk, lookup: langchain, agents, openai, plain });

    expect(Object.keys(tools)).toEqual(["weather", "lookup", "agents", "openai", "plain"]);
    expect(tools.weather).not.toBe(aiSdk);
    expect(tools.lookup).toBeInstanceOf(LangChainLikeTool);
    expect(tools.openai.function).not.toBe(inner);
    expect(tools.openai.function.name).toBe("rate");
    await tools.weather.execute({ city: "Lisbon" }, { toolCallId: "call_abc", messages: [] });
    await tools.lookup.invoke({ q: "x" });
    await tools.agents.invoke({ ctx: true }, '{"hotel":"H"}', { toolCall: { callId: "call_1" } });
    await tools.openai.function.function({ n: 1 }, { runner: true });
    await tools.plain("Porto");
    // the tools ran with everything the framework gave them
    expect(runs).toEqual([
      [{ city: "Lisbon" }, { toolCallId: "call_abc", messages: [] }],
      [{ q: "x" }, { runId: "run-1" }],
      [{ ctx: true }, '{"hotel":"H"}', { toolCall: { callId: "call_1" } }],
      [{ n: 1 }, { runner: true }],
    ]);
    // the caller's objects are not wrapped: another session can take them
    expect(aiSdk.execute).not.toBe(tools.weather.execute);
    expect(langchain.func).not.toBe(tools.lookup.func);
    await bb.finish();

    const trace = JSON.parse(readFileSync(out, "utf8")) as Trace;
    const calls = trace.steps.filter((s) => s.type === "tool_call").map((s) => s.payload as Record<string, unknown>);
    expect(calls.map((c) => [c.toolName, c.toolInput])).toEqual([
      ["weather", { city: "Lisbon" }],
      ["lookup", { q: "x" }],
      ["book", { hotel: "H" }],
      ["rate", { n: 1 }],
      ["plain", "Porto"],
    ]);
  });

  it("a copy's function runs on the tool object itself: private fields and its state are the original's", async () => {
    class Weather {
      readonly inputSchema = {};
      #calls = 0;
      async execute(input: { city: string }) {
        this.#calls++;
        return { city: input.city, calls: this.#calls };
      }
      get calls() {
        return this.#calls;
      }
    }
    const original = new Weather();
    const bb = blackbox({ mode: "off" });
    const { weather, constructor: ctor } = bb.tools({ weather: original, constructor: async () => "own" });
    expect(await weather.execute({ city: "Lisbon" })).toEqual({ city: "Lisbon", calls: 1 });
    expect(original.calls).toBe(1);
    // a key that Object.prototype has too is the caller's own
    expect(await ctor()).toBe("own");
  });

  it("refuses what is neither a function nor a tool object, naming the key", () => {
    const bb = blackbox({ mode: "off" });
    expect(() => bb.tools({ weather: { description: "no function" } })).toThrow(
      'bb.tools(): "weather" is not a function or a tool object; pass { name: function } or a framework\'s tool',
    );
  });

  it("an MCP client (shaped as the SDK's Client) comes back as a proxy recording connect, list and tool calls", async () => {
    class Protocol {
      _transport?: { start(): Promise<void> };
      async connect(transport: { start(): Promise<void> }) {
        this._transport = transport;
        await transport.start();
      }
      _onrequest() {}
    }
    const started: string[] = [];
    class Client extends Protocol {
      _clientInfo = { name: "c", version: "1" };
      _serverVersion?: { name: string };
      override async connect(transport: { start(): Promise<void> }) {
        await super.connect(transport);
        this._serverVersion = { name: "weather" };
      }
      getServerVersion = () => this._serverVersion;
      getServerCapabilities() {
        return { tools: {} };
      }
      getInstructions() {
        return undefined;
      }
      async callTool(p: { name: string; arguments: { city: string } }) {
        return { content: [{ type: "text", text: `sun in ${p.arguments.city}` }] };
      }
      async listTools() {
        return { tools: [{ name: "get_weather" }] };
      }
      async listPrompts() {}
      async listResources() {}
      async listResourceTemplates() {}
      async readResource() {}
      async getPrompt() {}
    }
    const transport = { start: async () => void started.push("started") };
    const run = async (bb: ReturnType<typeof blackbox>) => {
      const client = new Client();
      const { mcp } = bb.tools({ mcp: client });
      await mcp.connect(transport);
      const listed = await mcp.listTools();
      const called = await mcp.callTool({ name: "get_weather", arguments: { city: "Lisbon" } });
      await bb.finish();
      return { client, mcp, listed, called };
    };
    const out = join(dir, "mcp.json");
    const recorded = await run(blackbox({ mode: "record", out }));
    // the state connect set is the client's own; the client itself is unchanged
    expect(recorded.client._transport).toBe(transport);
    expect(recorded.mcp.getServerVersion()).toEqual({ name: "weather" });
    expect(Object.hasOwn(recorded.client, "connect")).toBe(false);
    expect(started).toEqual(["started"]);
    const trace = JSON.parse(readFileSync(out, "utf8")) as Trace;
    const calls = trace.steps.filter((s) => s.type === "tool_call").map((s) => s.payload);
    expect(calls).toMatchObject([
      { toolName: "mcp:initialize", toolInput: { clientInfo: { name: "c", version: "1" } } },
      { toolName: "mcp:tools/list", toolInput: { server: "weather" } },
      { toolName: "get_weather", toolInput: { city: "Lisbon" } },
    ]);
    const replayed = await run(blackbox({ mode: "replay", cassette: out }));
    // answered from the cassette: the transport never started, the server's info the recorded one
    expect(started).toEqual(["started"]);
    expect(replayed.mcp.getServerVersion()).toEqual({ name: "weather" });
    expect(replayed.listed).toEqual(recorded.listed);
    expect(replayed.called).toEqual(recorded.called);
  });
});
