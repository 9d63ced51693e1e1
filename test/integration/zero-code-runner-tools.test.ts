/**
 * A config may name an SDK tool runner's tool object where it names a function: the
 * Anthropic SDK's betaTool() for toolRunner(), the openai SDK's runTools() function tool.
 * The hook wraps the object's function in place (src/tools/runnerTools.ts), so the runner
 * calls the wrapped one: each call is a tool step under the tool's own name, and a replay
 * returns the recorded result without running it (its side effect, a line in a log file,
 * absent). ESM and CommonJS tool modules, and a list of tools the module builds from the
 * object, which holds the wrapped tool too.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicMessage, openaiCompletion, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { hookedNode, readCassette, requireBuild, tempDir, toolNames } from "./zeroCodeHelpers.js";

const tmp = tempDir();
let fake: FakeProvider;
beforeAll(async () => {
  requireBuild();
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

const SCHEMA = '{ type: "object", properties: { city: { type: "string" } }, required: ["city"] }';

/** A project whose tools module (`tools.mjs` or `tools.cjs`) exports the tool objects, never a function. */
function project(name: string, files: Record<string, string>): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const ANTHROPIC_TOOLS_ESM = `import { appendFileSync } from "node:fs";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
export const weatherTool = betaTool({
  name: "get_weather",
  description: "Weekend forecast for a city.",
  inputSchema: ${SCHEMA},
  run: async ({ city }) => { appendFileSync("side-effects.log", "weather " + city + "\\n"); return "sunny in " + city; },
});
export const tools = [weatherTool];
`;

const ANTHROPIC_AGENT = `import Anthropic from "@anthropic-ai/sdk";
import { tools } from "./tools.mjs";
const client = new Anthropic({ maxRetries: 0 });
const runner = client.beta.messages.toolRunner({ model: "claude-sonnet-4-6", max_tokens: 200, messages: [{ role: "user", content: "Weather in Lisbon?" }], tools });
const final = await runner.runUntilDone();
console.log("answer:", final.content.map((b) => (b.type === "text" ? b.text : "")).join(""));
`;

/** The Anthropic agent's project with `entry` as its config's one tools entry; `replies`: its two replies queued (a weather call, the answer). */
function anthropicProject(name: string, entry: string, replies = true): string {
  if (replies)
    fake.enqueue(
      { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }) },
      { json: anthropicMessage({ text: "Sunny." }) },
    );
  return project(name, {
    "package.json": '{ "type": "module" }',
    "tools.mjs": ANTHROPIC_TOOLS_ESM,
    "agent.mjs": ANTHROPIC_AGENT,
    "blackbox.config.mjs": `export default { tools: [${entry}] };\n`,
  });
}

const OPENAI_TOOLS_CJS = `const { appendFileSync } = require("node:fs");
exports.hotelTool = {
  type: "function",
  function: {
    name: "book_hotel",
    description: "Book a hotel in a city.",
    parameters: ${SCHEMA},
    parse: JSON.parse,
    function: async ({ city }) => { appendFileSync("side-effects.log", "hotel " + city + "\\n"); return "booked in " + city; },
  },
};
`;

const OPENAI_AGENT = `import OpenAI from "openai";
import { hotelTool } from "./tools.cjs";
const client = new OpenAI({ maxRetries: 0 });
const runner = client.chat.completions.runTools({ model: "gpt-4.1", messages: [{ role: "user", content: "Book Lisbon." }], tools: [hotelTool] });
console.log("answer:", await runner.finalContent());
`;

const env = (mode: "record" | "replay", cassette: string) => ({
  ANTHROPIC_BASE_URL: fake.anthropicUrl,
  OPENAI_BASE_URL: fake.openaiUrl,
  ANTHROPIC_API_KEY: "sk-ant-runner-tools-0000",
  OPENAI_API_KEY: "sk-runner-tools-0000",
  BLACKBOX_MODE: mode,
  ...(mode === "record" ? { BLACKBOX_OUT: cassette } : { BLACKBOX_CASSETTE: cassette }),
});

/** Record the agent against the fake, then replay it offline: the same answer, the tool run once (in record only). */
async function recordThenReplay(dir: string, agent: string, expected: { answer: string; tool: string; log: string }) {
  const cassette = join(dir, "run.json");
  const log = join(dir, "side-effects.log");
  const seen = fake.requests.length;
  const recorded = await hookedNode(dir, [agent], env("record", cassette));
  expect(recorded.stderr).toBe("");
  expect(recorded.stdout).toBe(`answer: ${expected.answer}\n`);
  expect(recorded.code).toBe(0);
  expect(readFileSync(log, "utf8")).toBe(expected.log);
  expect(fake.requests.length).toBe(seen + 2);

  const trace = readCassette(cassette);
  expect(toolNames(trace)).toEqual([expected.tool]); // the tool's own name, not the export's
  const output = trace.steps.find((s) => s.type === "model_output")!.payload as {
    calls: Array<{ toolCallId: string }>;
  };
  const call = trace.steps.find((s) => s.type === "tool_call")!.payload as { toolCallId: string; toolInput: unknown };
  expect(call.toolCallId).toBe(output.calls[0]!.toolCallId); // the model's call, answered by the wrapped tool
  expect(call.toolInput).toEqual({ city: "Lisbon" }); // the runner's context left out

  rmSync(log);
  const replayed = await hookedNode(dir, [agent], env("replay", cassette), true);
  expect(replayed.stderr).toBe("");
  expect(replayed.stdout).toBe(recorded.stdout);
  expect(replayed.code).toBe(0);
  expect(existsSync(log)).toBe(false); // the tool did not run
  expect(fake.requests.length).toBe(seen + 2);
}

/** A project whose config names `exportName` of its `tools.mjs` (`source`), and an agent that imports that module. */
function oneToolProject(name: string, exportName: string, source: string): string {
  return project(name, {
    "package.json": '{ "type": "module" }',
    "tools.mjs": source,
    "agent.mjs": 'import * as tools from "./tools.mjs";\nconsole.log("agent ran", Object.keys(tools).length);\n',
    "blackbox.config.mjs": `export default { tools: [{ module: "./tools.mjs", exports: [${JSON.stringify(exportName)}] }] };\n`,
  });
}

/** The agent under the hook, refused before it runs (exit 2, nothing of its own printed): the stderr. */
async function refusedAtLoad(dir: string): Promise<string> {
  const r = await hookedNode(dir, ["agent.mjs"], env("record", join(dir, "run.json")));
  expect(r.stdout).toBe("");
  expect(r.code).toBe(2);
  expect(existsSync(join(dir, "run.json"))).toBe(false);
  return r.stderr;
}

describe("a config naming a tool runner's tool object", () => {
  it("Anthropic toolRunner() with a betaTool() from an ESM module (the module's own list of tools): recorded under its name, replayed offline without running", async () => {
    const dir = anthropicProject("anthropic-esm", '{ module: "./tools.mjs", exports: ["weatherTool"] }');
    await recordThenReplay(dir, "agent.mjs", { answer: "Sunny.", tool: "get_weather", log: "weather Lisbon\n" });
  });

  it("openai runTools() with a function tool from a CommonJS module: recorded under its name, replayed offline without running", async () => {
    const dir = project("openai-cjs", {
      "tools.cjs": OPENAI_TOOLS_CJS,
      "agent.mjs": OPENAI_AGENT,
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.cjs", exports: ["hotelTool"] }] };\n',
    });
    fake.enqueue(
      { json: openaiCompletion({ toolCalls: [{ name: "book_hotel", input: { city: "Lisbon" } }] }) },
      { json: openaiCompletion({ text: "Booked." }) },
    );
    await recordThenReplay(dir, "agent.mjs", { answer: "Booked.", tool: "book_hotel", log: "hotel Lisbon\n" });
  });

  it("an entry naming a tool object by another name is refused (its steps would not answer the model's calls): exit 2 before the agent runs", async () => {
    const dir = anthropicProject("named", '{ module: "./tools.mjs", export: "weatherTool", name: "forecast" }', false);
    expect(await refusedAtLoad(dir)).toBe(
      `blackbox: ${join(dir, "blackbox.config.mjs")}: tools[0]: export "weatherTool" is a tool object named "get_weather", the name the model calls it by, which its steps are recorded under; drop "name" from the entry\n`,
    );
    const named = anthropicProject(
      "named-same",
      '{ module: "./tools.mjs", export: "weatherTool", name: "get_weather" }',
    );
    await recordThenReplay(named, "agent.mjs", { answer: "Sunny.", tool: "get_weather", log: "weather Lisbon\n" });
  });

  // a cassette must not hold a provider id: the config checks the export's name, the hook the tool's own when it loads
  it.each(["cjs", "mjs"] as const)(
    "a tool object whose own name looks like a provider id: one config line, exit 2, before the agent runs (%s)",
    async (kind) => {
      const tool =
        '{ type: "function", function: { name: "call_abc123DEF456ghi789", parameters: {}, parse: JSON.parse, function: async () => "ok" } }';
      const dir = project(`provider-id-${kind}`, {
        [`tools.${kind}`]: kind === "cjs" ? `exports.t1 = ${tool};\n` : `export const t1 = ${tool};\n`,
        "agent.mjs": `import * as t from "./tools.${kind}";\nconsole.log("agent ran", Object.keys(t).length);\n`,
        "blackbox.config.mjs": `export default { tools: [{ module: "./tools.${kind}", exports: ["t1"] }] };\n`,
      });
      expect(await refusedAtLoad(dir)).toBe(
        `blackbox: ${join(dir, "blackbox.config.mjs")}: tools[0]: tool name "call_abc123DEF456ghi789" (the tool object's own name) looks like a provider id (call_abc123DEF456ghi789), which a cassette must not contain; give the tool another name\n`,
      );
    },
  );

  it("openai zodFunction(): refused saying why (its function cannot be wrapped) and what to write instead", async () => {
    const dir = oneToolProject(
      "zod-function",
      "hotelTool",
      'import { z } from "zod";\nimport { zodFunction } from "openai/helpers/zod";\nexport const hotelTool = zodFunction({ name: "book_hotel", parameters: z.object({ city: z.string() }), function: async ({ city }) => "booked in " + city });\n',
    );
    expect(await refusedAtLoad(dir)).toContain(
      'has no function export "hotelTool" (it is a zodFunction() tool, whose function sits where it cannot be wrapped; write it as { type: "function", function: { name, parameters, parse, function } });',
    );
  });

  it("an export that is neither a function nor a tool object: one message naming both, exit 2 before the agent runs", async () => {
    const dir = oneToolProject(
      "neither",
      "weatherTool",
      'export const weatherTool = { name: "get_weather", description: "no run function" };\n',
    );
    expect(await refusedAtLoad(dir)).toBe(
      `blackbox: ${join(dir, "blackbox.config.mjs")}: tools[0]: ${join(dir, "tools.mjs")} has no function export "weatherTool" (it is a object); fix the export name (a function, or a tool object: betaTool(), betaZodTool(), a runTools() function tool, an AI SDK tool(), a LangChain tool, an Agents SDK tool())\n`,
    );
  });

  it("a frozen tool object, whose function cannot be replaced: the same message says so", async () => {
    const dir = project("frozen", {
      "tools.cjs": OPENAI_TOOLS_CJS.concat("Object.freeze(exports.hotelTool.function);\n"),
      "agent.mjs": OPENAI_AGENT,
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.cjs", exports: ["hotelTool"] }] };\n',
    });
    expect(await refusedAtLoad(dir)).toContain(
      'has no function export "hotelTool" (it is a tool object whose function cannot be replaced: it is frozen)',
    );
  });
});
