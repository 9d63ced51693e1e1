/**
 * Nothing runs unseen: an agent that runs its tools by hand, in a plain SDK loop with no
 * framework and no config, recorded with `blackbox record` as a user types it. The
 * closing line and `blackbox show` name the tools the model asked for that ran outside
 * Blackbox's view; a replay warns before it starts that they run for real (and they do);
 * --strict-tools (or BLACKBOX_STRICT_TOOLS=1) makes the record write no cassette and the
 * replay refused before the agent starts.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { expect, test } from "vitest";
import { openaiCompletion } from "../helpers/fakeProvider.js";
import { blackboxCli, hookedNode, readCassette, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const ctx = useZeroCodeFixture();

// a tool loop as the openai SDK's README writes it: the agent runs get_weather itself
const AGENT = `
import OpenAI from "openai";
import { appendFileSync } from "node:fs";
function get_weather({ city }) {
  appendFileSync(process.env.TOOL_LOG, "get_weather " + city + "\\n");
  return "sunny in " + city;
}
const client = new OpenAI();
const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
const messages = [{ role: "user", content: "Weather in Lisbon and Porto?" }];
for (;;) {
  const r = await client.chat.completions.create({ model: "gpt-4o", messages, tools });
  const m = r.choices[0].message;
  messages.push(m);
  if (!m.tool_calls?.length) { console.log(m.content); break; }
  for (const c of m.tool_calls)
    messages.push({ role: "tool", tool_call_id: c.id, content: get_weather(JSON.parse(c.function.arguments)) });
}
`;

function setup(name: string): { agent: string; cassette: string; log: string } {
  const agent = join(ctx.dir, "agent.mjs");
  writeFileSync(agent, AGENT);
  const cassette = join(ctx.dir, `${name}.json`);
  const log = join(ctx.dir, `${name}.log`);
  rmSync(log, { force: true });
  ctx.fake.enqueue(
    {
      json: openaiCompletion({
        toolCalls: [
          { name: "get_weather", input: { city: "Lisbon" } },
          { name: "get_weather", input: { city: "Porto" } },
        ],
      }),
    },
    { json: openaiCompletion({ text: "Sunny in both." }) },
  );
  return { agent, cassette, log };
}

const env = (log: string, more: Record<string, string> = {}) => ({
  OPENAI_BASE_URL: ctx.fake.openaiUrl,
  OPENAI_API_KEY: "sk-test-unseen-0000000000",
  TOOL_LOG: log,
  ...more,
});

const capture =
  /Capture it: in blackbox\.config\.ts, tools: \[\{ module: "\.\/<its file>\.js", export: "get_weather" \}\] \(add name: "get_weather" when the function is exported under another name\), or in code, const tools = bb\.tools\(\{ get_weather \}\); then record again$/;
/name the module and export in blackbox\.config\.ts \(tools: \[\{ module: "\.\/tools\.js", export: "get_weather" \}\]/;

test("the closing line and show name the tools that ran unrecorded; a replay warns, then runs them for real", async () => {
  const { agent, cassette, log } = setup("unseen");
  const rec = await blackboxCli(ctx.fake, ctx.dir, ["record", "-o", cassette, "--", "node", agent], env(log));
  expect(rec.code).toBe(0);
  expect(rec.stdout).toBe("Sunny in both.\n");
  const [done, warning, ...rest] = rec.stderr.split("\n");
  expect(done).toBe(`blackbox: recorded ${basename(cassette)}: 2 model calls, 0 tool calls, ended: success`);
  expect(warning).toContain(
    `blackbox: warning: the model asked for 2 tool calls that ran outside Blackbox's view and are not in the cassette: "get_weather" (2 calls).`,
  );
  expect(warning).toMatch(capture);
  expect(warning).toContain("bb.tools({ get_weather })");
  expect(rest).toEqual([""]);
  expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\nget_weather Porto\n");
  readCassette(cassette); // written, and it verifies

  const show = await blackboxCli(ctx.fake, ctx.dir, ["show", cassette]);
  expect(show.code).toBe(0);
  expect(show.stdout).toContain(`warning: the model asked for 2 tool calls that ran outside Blackbox's view`);
  expect(show.stdout).toContain(`"get_weather" (2 calls)`);
  const json = await blackboxCli(ctx.fake, ctx.dir, ["show", "--json", cassette]);
  expect(JSON.parse(json.stdout).unrecordedTools).toEqual([{ name: "get_weather", calls: 2 }]);

  rmSync(log);
  const replay = await blackboxCli(ctx.fake, ctx.dir, ["replay", cassette, "--", "node", agent], env(log), true);
  expect(replay.code).toBe(0);
  const lines = replay.stderr.split("\n");
  expect(lines[0]).toContain(
    `blackbox: warning: ${basename(cassette)}: the model asked for 2 tool calls that ran outside`,
  );
  expect(lines[0]).toContain("A replay runs that tool for real");
  expect(lines[1]).toBe(
    `blackbox: replayed ${basename(cassette)} as recorded: 2 model calls, 0 tool calls, ended: success`,
  );
  // what the warning said: the tool ran again
  expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\nget_weather Porto\n");
});

test("--strict-tools: the record writes no cassette and fails", async () => {
  const { agent, cassette, log } = setup("strict");
  const rec = await blackboxCli(
    ctx.fake,
    ctx.dir,
    ["record", "--strict-tools", "-o", cassette, "--", "node", agent],
    env(log),
  );
  expect(rec.code).not.toBe(0);
  expect(rec.stderr).toContain(
    `blackbox: strict tools (--strict-tools, strictTools, BLACKBOX_STRICT_TOOLS=1): the model asked for 2 tool calls that ran outside Blackbox's view`,
  );
  expect(rec.stderr).toContain(`No cassette was written to ${cassette}.`);
  expect(rec.stderr).not.toContain("blackbox: recorded");
  expect(existsSync(cassette)).toBe(false);
});

test("BLACKBOX_STRICT_TOOLS=1 is --strict-tools", async () => {
  const { agent, cassette, log } = setup("strict-env");
  const rec = await blackboxCli(
    ctx.fake,
    ctx.dir,
    ["record", "-o", cassette, "--", "node", agent],
    env(log, { BLACKBOX_STRICT_TOOLS: "1" }),
  );
  expect(rec.code).not.toBe(0);
  expect(rec.stderr).toContain(`No cassette was written to ${cassette}.`);
  expect(existsSync(cassette)).toBe(false);
});

test("--strict-tools: a replay of a cassette whose tools ran unrecorded is refused before the agent starts", async () => {
  const { agent, cassette, log } = setup("strict-replay");
  const rec = await blackboxCli(ctx.fake, ctx.dir, ["record", "-o", cassette, "--", "node", agent], env(log));
  expect(rec.code).toBe(0);
  rmSync(log);
  for (const [args, more] of [
    [["replay", "--strict-tools", cassette, "--", "node", agent], {}],
    [["replay", cassette, "--", "node", agent], { BLACKBOX_STRICT_TOOLS: "1" }],
  ] as const) {
    const replay = await blackboxCli(ctx.fake, ctx.dir, [...args], env(log, more), true);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toBe(
      `blackbox: strict tools (--strict-tools, strictTools, BLACKBOX_STRICT_TOOLS=1): the replay was refused before the agent started, since ${basename(cassette)}: ${replay.stderr.split(`${basename(cassette)}: `)[1]!.trimEnd()}\n`,
    );
    expect(replay.stderr).toContain(`"get_weather" (2 calls)`);
    expect(replay.stdout).toBe("");
    expect(existsSync(log)).toBe(false); // the agent never ran
  }
});

test("a replay whose recording has tool steps but that found no config says so, not that the agent skipped the tool", async () => {
  const project = join(ctx.dir, "project");
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "blackbox.config.mjs"),
    `export default { tools: [{ module: "./tools.mjs", exports: ["get_weather"] }] };\n`,
  );
  writeFileSync(
    join(project, "tools.mjs"),
    `import { appendFileSync } from "node:fs";
export function get_weather({ city }) { appendFileSync(process.env.TOOL_LOG, "get_weather " + city + "\\n"); return "sunny in " + city; }
`,
  );
  writeFileSync(
    join(project, "agent.mjs"),
    AGENT.replace(/function get_weather[^]*?\n}\n/, "")
      .replace('import { appendFileSync } from "node:fs";', 'import { get_weather } from "./tools.mjs";')
      .replace("content: get_weather(", "content: await get_weather("),
  );
  const { cassette, log } = setup("configured");
  const rec = await blackboxCli(ctx.fake, project, ["record", "-o", cassette, "--", "node", "agent.mjs"], env(log));
  expect(rec.stderr).toBe(`blackbox: recorded ${cassette}: 2 model calls, 2 tool calls, ended: success\n`);
  rmSync(log);
  // replayed from another folder: no blackbox.config.* there, so get_weather is not wrapped
  const replay = await blackboxCli(
    ctx.fake,
    ctx.dir,
    ["replay", cassette, "--", "node", join(project, "agent.mjs")],
    env(log),
    true,
  );
  expect(replay.code).not.toBe(0);
  expect(replay.stderr).toContain(
    `Replay diverged at step 2 (tool_call): the recording ran the wrapped tool "get_weather" here, but this replay wraps no tool: no blackbox.config.* was found (in ${ctx.dir}, nor where blackbox was started), so the tools it names were not wrapped and the agent ran them itself. Replay from the folder that holds the recording's config, or name it: BLACKBOX_CONFIG=<file>`,
  );
  expect(replay.stderr).not.toContain("without calling it");
  // the hook's line comes first (the agent's own uncaught SDK error follows it)
  expect(replay.stderr).toMatch(/^blackbox: Replay diverged at step 2/);
  // from the project's folder it replays, and get_weather does not run
  const again = await blackboxCli(ctx.fake, project, ["replay", cassette, "--", "node", "agent.mjs"], env(log), true);
  expect(again.stderr).toBe(
    `blackbox: replayed ${cassette} as recorded: 2 model calls, 2 tool calls, ended: success\n`,
  );
  expect(again.code).toBe(0);
});

test("the bare hook (node --import, no blackbox command) says it too: when the cassette is written, and before a replay", async () => {
  const { agent, cassette, log } = setup("bare");
  const rec = await hookedNode(ctx.dir, [agent], env(log, { BLACKBOX_MODE: "record", BLACKBOX_OUT: cassette }));
  expect(rec.code).toBe(0);
  expect(rec.stderr).toMatch(
    /^blackbox: warning: .*bare\.json: the model asked for 2 tool calls that ran outside Blackbox's view and are not in the cassette: "get_weather" \(2 calls\)\.[^\n]*\n$/,
  );
  rmSync(log);
  const replay = await hookedNode(
    ctx.dir,
    [agent],
    env(log, { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette }),
    true,
  );
  expect(replay.stderr).toMatch(
    /^blackbox: warning: .*bare\.json: the model asked for 2 tool calls[^\n]*A replay runs that tool for real[^\n]*\n$/,
  );
  expect(replay.stdout).toBe("Sunny in both.\n");
  expect(replay.code).toBe(0);
  const strict = await hookedNode(
    ctx.dir,
    [agent],
    env(log, { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette, BLACKBOX_STRICT_TOOLS: "1" }),
    true,
  );
  expect(strict.stderr).toMatch(/^blackbox: strict tools .*: the replay was refused before the agent started, since /);
  expect(strict.stdout).toBe("");
  expect(strict.code).toBe(2);
});
