/**
 * The frameworks' MCP clients, as their docs use them, over stdio to our weather server
 * (test/fixtures/sdk-versions/mcp/weather-server.mjs), recorded with no config and no code
 * change and replayed under unshare -n with the server script deleted:
 *
 * - LangChain's MCP adapters (mcp-langchain: MultiServerMCPClient with the server's name as a
 *   tool prefix, createReactAgent, ChatAnthropic) go through the MCP SDK's Client: connect and
 *   listTools are the client's steps (src/tools/frameworks/mcp.ts), each tool call is
 *   LangChain's tool step under the model's name, its callTool inside it.
 * - The AI SDK's MCP client (mcp-ai-sdk: @ai-sdk/mcp's createMCPClient, generateText) is a
 *   client of its own, not the SDK's Client (see the test's words).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Trace } from "../../src/trace/types.js";
import { pathToFileURL } from "node:url";
import { ROOT, runProcess } from "../helpers/child.js";
import { anthropicMessage } from "../helpers/fakeProvider.js";
import {
  BIN,
  blackboxCli,
  hookedNode,
  readCassette,
  SDK_APPS,
  toolNames,
  useZeroCodeFixture,
} from "./zeroCodeHelpers.js";

const QUESTION = "What is the weather in Lisbon?";
const fx = useZeroCodeFixture("mcp-langchain", "mcp-ai-sdk");

/** A copy of the weather server inside `app` (so it resolves that app's SDK), deleted to prove a replay never starts it. */
function serverCopy(app: string, name: string): { script: string; remove: () => void } {
  const dir = join(app, `.blackbox-tmp-mcp-${name}`);
  mkdirSync(dir, { recursive: true });
  const script = join(dir, "weather-server.mjs");
  copyFileSync(join(SDK_APPS, "mcp", "weather-server.mjs"), script);
  return { script, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The AI SDK's base URL holds the /v1 the official SDK (LangChain's) adds itself. */
function agentEnv(app: string, extra: Record<string, string>): Record<string, string | undefined> {
  const base = app === "mcp-ai-sdk" ? `${fx.fake.url}/v1` : fx.fake.anthropicUrl;
  return { ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: "sk-ant-mcp-0000", ...extra };
}

interface Recorded {
  app: string;
  cassette: string;
  trace: Trace;
  stdout: string;
  stderr: string;
  code: number | null;
  env: Record<string, string | undefined>;
  log: string;
}

/** `node agent.mjs` of `app` recorded under the hook, the model asking for `tool` (Lisbon) then answering. */
async function record(appName: string, tool: string): Promise<Recorded> {
  const app = join(SDK_APPS, appName);
  const server = serverCopy(app, "record");
  const log = join(fx.dir, `${appName}.log`);
  const cassette = join(fx.dir, `${appName}.json`);
  const env = agentEnv(appName, { MCP_SERVER: server.script });
  fx.fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: tool, input: { city: "Lisbon" } }] }) },
    { json: anthropicMessage({ text: "Sunny in Lisbon." }) },
  );
  try {
    const r = await hookedNode(app, ["agent.mjs", QUESTION], {
      ...env,
      TOOL_LOG: log,
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: cassette,
    });
    const trace = existsSync(cassette) ? readCassette(cassette) : (undefined as unknown as Trace);
    return { app, cassette, trace, stdout: r.stdout, stderr: r.stderr, code: r.code, env, log };
  } finally {
    server.remove();
  }
}

/** The recording replayed under unshare -n, its server script gone. */
function replay(rec: Recorded) {
  rmSync(rec.log, { force: true });
  return hookedNode(
    rec.app,
    ["agent.mjs", QUESTION],
    {
      ...rec.env,
      TOOL_LOG: rec.log,
      BLACKBOX_MODE: "replay",
      BLACKBOX_CASSETTE: rec.cassette,
      BLACKBOX_STRICT_TOOLS: "1",
    },
    true,
  );
}

function payloads(trace: Trace, type: "tool_call" | "tool_result"): Array<Record<string, unknown>> {
  return trace.steps.filter((s) => s.type === type).map((s) => s.payload as Record<string, unknown>);
}

/** What both clients' recordings hold: the server's initialize and tool list, the tool call the model's, verified. */
async function expectRecorded(rec: Recorded, tool: string, clientInfo: unknown, listInput: unknown): Promise<void> {
  expect(rec.stderr).toBe("");
  expect(rec.code).toBe(0);
  expect(readFileSync(rec.log, "utf8")).toBe("get_weather Lisbon\n");
  expect(toolNames(rec.trace)).toEqual(["mcp:initialize", "mcp:tools/list", tool]);
  const calls = payloads(rec.trace, "tool_call");
  expect(calls.map((c) => c.toolInput)).toEqual([{ clientInfo }, listInput, { city: "Lisbon" }]);
  const asked = rec.trace.steps.find((s) => s.type === "model_output")!.payload as {
    calls: Array<{ toolCallId: string }>;
  };
  expect(calls[2]!.toolCallId).toBe(asked.calls[0]!.toolCallId);
  const [init, list] = payloads(rec.trace, "tool_result");
  expect(init!.result).toMatchObject({ serverInfo: { name: "weather", version: "1.2.3" } });
  expect((list!.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(["get_weather"]);
  const verified = await runProcess(process.execPath, [BIN, "verify", rec.cassette], { cwd: fx.dir });
  expect(verified.stderr).toBe("");
  expect(verified.code).toBe(0);
}

/** The replay: nothing sent, no server (its script deleted), the tool never run, the same output. */
async function expectReplayed(rec: Recorded): Promise<void> {
  const seen = fx.fake.requests.length;
  const r = await replay(rec);
  expect(r.stderr).toBe("");
  expect(r.stdout).toBe(rec.stdout);
  expect(r.code).toBe(0);
  expect(existsSync(rec.log)).toBe(false);
  expect(fx.fake.requests.length).toBe(seen);
}

describe("LangChain's MCP adapters (MultiServerMCPClient, createReactAgent)", () => {
  let rec: Recorded;

  it("records the SDK Client's connect and listTools, and the tool call under the adapters' prefixed name", async () => {
    rec = await record("mcp-langchain", "weather__get_weather");
    expect(rec.stdout).toMatch(
      /^tools: weather__get_weather\nai: \ntool: .*Sunny in Lisbon, [\d.]+ C.*\nai: Sunny in Lisbon\.\n$/,
    );
    await expectRecorded(
      rec,
      "weather__get_weather",
      { name: "@langchain/mcp-adapters", version: "1.1.4" },
      {
        server: "weather",
        params: {},
      },
    );
  }, 90_000);

  it("replays offline with the server script deleted: no server starts, the tool never runs, the same output", async () => {
    await expectReplayed(rec);
  }, 90_000);
});

describe("the AI SDK's MCP client (@ai-sdk/mcp createMCPClient, generateText)", () => {
  let rec: Recorded;

  it("records its init and listTools (a client of its own, patched on its class), and the AI SDK tool call", async () => {
    rec = await record("mcp-ai-sdk", "get_weather");
    expect(rec.stdout).toMatch(/^tools: get_weather\n\[get_weather: Sunny in Lisbon, [\d.]+ C\]\nSunny in Lisbon\.\n$/);
    await expectRecorded(
      rec,
      "get_weather",
      { name: "ai-sdk-mcp-client", version: expect.any(String) },
      {
        server: "weather",
      },
    );
  }, 90_000);

  it("replays offline with the server script deleted: no server starts, the tool never runs, the same output", async () => {
    await expectReplayed(rec);
  }, 90_000);
});

describe("the AI SDK's MCP client, forked live and replayed with --mcp-live", () => {
  const set = JSON.stringify({ content: [{ type: "text", text: "Snow in Lisbon, -2 C" }] });

  it("a live fork past Lisbon's result starts the agent's own server for the Porto call, and only then", async () => {
    const rec = await record("mcp-ai-sdk", "get_weather");
    const lisbon = rec.trace.steps.findIndex(
      (s) => s.type === "tool_result" && (s.payload as { toolName: string }).toolName === "get_weather",
    );
    const server = serverCopy(rec.app, "fork-server");
    fx.fake.enqueue(
      { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Porto" } }] }) },
      { json: anthropicMessage({ text: "Snow in Lisbon, sun in Porto." }) },
    );
    rmSync(rec.log, { force: true });
    const out = join(fx.dir, "ai-sdk-fork-child.json");
    try {
      const r = await blackboxCli(
        fx.fake,
        rec.app,
        ["fork", rec.cassette, "--at", String(lisbon), "--set", set, "--live", "-o", out, "--"].concat([
          process.execPath,
          "agent.mjs",
          QUESTION,
        ]),
        { ...rec.env, MCP_SERVER: server.script, TOOL_LOG: rec.log },
      );
      expect(r.stderr).toMatch(/^blackbox: forked .* into .*ai-sdk-fork-child\.json: .* ended: success\n$/);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /^tools: get_weather\n\[get_weather: Snow in Lisbon, -2 C\]\n\[get_weather: Sunny in Porto, [\d.]+ C\]\nSnow in Lisbon, sun in Porto\.\n$/,
      );
      // the server ran the one call made after the fork point
      expect(readFileSync(rec.log, "utf8")).toBe("get_weather Porto\n");
      expect(toolNames(readCassette(out))).toEqual(["mcp:initialize", "mcp:tools/list", "get_weather", "get_weather"]);
    } finally {
      server.remove();
    }
  }, 90_000);

  it("blackbox replay --mcp-live: a readOnlyHint that flipped on the live server fails the replay by name", async () => {
    const rec = await record("mcp-ai-sdk", "get_weather");
    const server = serverCopy(rec.app, "drift-server");
    rmSync(rec.log, { force: true });
    const seen = fx.fake.requests.length;
    try {
      const r = await blackboxCli(
        fx.fake,
        rec.app,
        ["replay", rec.cassette, "--mcp-live", "--", process.execPath, "agent.mjs", QUESTION],
        { ...rec.env, MCP_SERVER: server.script, TOOL_LOG: rec.log, WEATHER_WRITES: "1" },
        true,
      );
      expect(r.stderr).toContain(
        `the MCP server "weather" answers mcp:tools/list differently from ${rec.cassette} (blackbox replay --mcp-live): "get_weather" annotation readOnlyHint true is now false.`,
      );
      expect(r.code).toBe(1);
      expect(fx.fake.requests.length).toBe(seen);
      expect(existsSync(rec.log)).toBe(false);
    } finally {
      server.remove();
    }
  }, 90_000);
});

describe("the AI SDK's MCP client: a server's request to the client", () => {
  it("an elicitation/create the client handles fails the recording by name, and no cassette is written", async () => {
    const app = join(SDK_APPS, "mcp-ai-sdk");
    const server = serverCopy(app, "elicit");
    const log = join(fx.dir, "elicit.log");
    const cassette = join(fx.dir, "elicit.json");
    fx.fake.enqueue(
      { json: anthropicMessage({ toolCalls: [{ name: "choose_city", input: {} }] }) },
      { json: anthropicMessage({ text: "Porto it is." }) },
    );
    try {
      const r = await hookedNode(app, ["agent.mjs", QUESTION], {
        ...agentEnv("mcp-ai-sdk", { MCP_SERVER: server.script }),
        WEATHER_ELICIT: "1",
        AGENT_ELICIT: "1",
        TOOL_LOG: log,
        BLACKBOX_MODE: "record",
        BLACKBOX_OUT: cassette,
      });
      // the agent ran as it does without Blackbox: its handler answered the server
      expect(r.stdout).toContain("[choose_city: Chosen: Porto]\n");
      expect(readFileSync(log, "utf8")).toBe("choose_city\n");
      expect(r.stderr).toContain(
        `the MCP server "weather" sent the client a "elicitation/create" request during the client's callTool "choose_city", and the client handled it`,
      );
      expect(r.stderr).toContain(`No cassette was written to ${cassette}`);
      expect(r.code).not.toBe(0);
      expect(existsSync(cassette)).toBe(false);
    } finally {
      server.remove();
    }
  }, 90_000);
});

describe("the AI SDK's MCP client in code, without the register hook", () => {
  it("bb.tools() given it refuses by name, saying to run under the hook", async () => {
    const app = join(SDK_APPS, "mcp-ai-sdk");
    const server = serverCopy(app, "in-code");
    const cassette = join(fx.dir, "in-code.json");
    try {
      const r = await runProcess(process.execPath, ["in-code.mjs"], {
        cwd: app,
        env: {
          MCP_SERVER: server.script,
          BLACKBOX_OUT: cassette,
          BLACKBOX_PKG: pathToFileURL(join(ROOT, "dist", "index.js")).href,
        },
      });
      expect(r.stdout).toBe(
        `refused: bb.tools(): "mcp" is the AI SDK's MCP client (@ai-sdk/mcp createMCPClient()), which bb.tools() cannot record: createMCPClient() connected it (and started its server) before bb.tools() was given it, so a replay could not answer its connection. Run the agent under the register hook (blackbox record -- <command>, or node --import @ardaulas/blackbox/register), which records its connection and tool list and replays them with no server (docs/tools.md#the-ai-sdks-mcp-client); or hand bb.tools() an MCP SDK Client before connecting it\n`,
      );
      expect(r.code).toBe(0);
      expect(existsSync(cassette)).toBe(false);
    } finally {
      server.remove();
    }
  }, 90_000);
});
