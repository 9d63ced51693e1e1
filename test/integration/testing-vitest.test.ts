// useCassette() in a user's vitest suite: test/fixtures/vitest-project (its own vitest 4.1.12,
// the package under test copied into its node_modules as npm would install it), run as
// `npx vitest run` in a child process, the real @anthropic-ai/sdk against the fake provider;
// replays under unshare -n with CI=1. The runs build on each other (the cassettes recorded
// first are replayed, changed, re-recorded), so the tests of this file run in order.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, runProcess, type ChildResult } from "../helpers/child.js";
import { installFixture } from "../helpers/fixtureInstall.js";
import { anthropicMessage, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { readCassette, requireBuild, tempDir } from "./zeroCodeHelpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "vitest-project");
const PROJECT_FILES = [
  "package.json",
  "vitest.config.ts",
  "vitest.plugin.config.ts",
  "agent.ts",
  "agent.test.ts",
  "capture.test.ts",
];
/** What `npm install @ardaulas/blackbox` puts in node_modules (package.json "files"). */
const PACKAGE_FILES = ["package.json", "dist", "bin", "register.mjs"];

const tmp = tempDir();
const project = join(tmp.dir, "project");
const cassettes = join(project, "__cassettes__", "agent.test.ts");
const trip = join(cassettes, "trip books Lisbon.json");
const toolLog = join(tmp.dir, "tools.log");
let fake: FakeProvider;

beforeAll(async () => {
  requireBuild();
  installFixture(FIXTURE);
  // the package under test, a copy in the project's node_modules: its `import "vitest"` is the project's vitest
  const pkg = join(FIXTURE, "node_modules", "@ardaulas", "blackbox");
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(pkg, { recursive: true });
  for (const f of PACKAGE_FILES) cpSync(join(ROOT, f), join(pkg, f), { recursive: true });
  mkdirSync(project);
  for (const f of PROJECT_FILES) cpSync(join(FIXTURE, f), join(project, f));
  symlinkSync(join(FIXTURE, "node_modules"), join(project, "node_modules"));
  fake = await startFakeProvider();
}, 200_000);
afterAll(async () => {
  await fake?.close();
  tmp.cleanup();
});

/** `npx vitest run <args>` in the project, as a user types it; a key and the fake provider's URL, no CI unless given. */
function vitest(args: string[], env: Record<string, string | undefined> = {}, offline = false): Promise<ChildResult> {
  return runProcess("npx", ["vitest", "run", ...args], {
    cwd: project,
    offline,
    timeoutMs: 60_000,
    env: {
      ANTHROPIC_BASE_URL: fake.anthropicUrl,
      ANTHROPIC_API_KEY: "sk-test-fixture-key",
      OPENAI_API_KEY: undefined,
      CI: undefined,
      BLACKBOX_RECORD: undefined,
      VITEST: undefined,
      VITEST_WORKER_ID: undefined,
      VITEST_POOL_ID: undefined,
      NODE_OPTIONS: undefined,
      TOOL_LOG: toolLog,
      NO_UPDATE_NOTIFIER: "1",
      npm_config_update_notifier: "false",
      ...env,
    },
  });
}

const out = (r: ChildResult) => r.stdout + r.stderr;

/** The replies of the trip test (a weather call, the answer), then the stray client test's and the two concurrent ones'. */
function queueTrip(city = "Lisbon"): void {
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city } }] }) },
    { json: anthropicMessage({ text: `Sunny in ${city}.` }) },
  );
}

test("the missing cassettes are recorded (one per test, named after it); then they replay offline under CI", async () => {
  queueTrip();
  fake.enqueue(
    { json: anthropicMessage({ text: "Hi there" }) },
    { json: anthropicMessage({ text: "Hi" }) },
    { json: anthropicMessage({ text: "Hi" }) },
  );
  const recorded = await vitest([]);
  expect(out(recorded)).toContain("4 passed");
  expect(recorded.code).toBe(0);
  expect(fake.requests.length).toBe(5);
  expect(readFileSync(toolLog, "utf8")).toBe("get_weather Lisbon\n");
  for (const name of ["trip books Lisbon", "a stray client", "concurrent one", "concurrent two"]) {
    const trace = readCassette(join(cassettes, `${name}.json`));
    expect(trace.steps.at(-1)!.type).toBe("metadata");
  }
  // the concurrent tests, run at once, each recorded its own conversation into its own cassette
  for (const [name, prompt] of [
    ["concurrent one", "One?"],
    ["concurrent two", "Two?"],
  ]) {
    const input = readCassette(join(cassettes, `${name}.json`)).steps[0]!.payload as { messages: unknown[] };
    expect(input.messages).toEqual([{ role: "user", content: prompt }]);
  }
  expect(readCassette(trip).steps.map((s) => s.type)).toEqual([
    "model_input",
    "model_output",
    "tool_call",
    "tool_result",
    "model_input",
    "model_output",
    "metadata",
  ]);

  rmSync(toolLog);
  const replayed = await vitest([], { CI: "1", ANTHROPIC_API_KEY: undefined }, true);
  expect(out(replayed)).toContain("4 passed");
  expect(replayed.code).toBe(0);
  expect(existsSync(toolLog)).toBe(false);
  expect(fake.requests.length).toBe(5);
});

test("BLACKBOX_RECORD=all re-records; an unchanged conversation leaves its cassette byte-identical, a changed one keeps the steps before the change", async () => {
  const before = readFileSync(trip, "utf8");
  queueTrip();
  // the command a divergence names (the next test pins its words), as printed
  const same = await vitest(["agent.test.ts", "-t", "trip books Lisbon"], { BLACKBOX_RECORD: "all" });
  expect(out(same)).toContain("1 passed");
  expect(fake.requests.length).toBe(7); // it did record: both calls went to the provider
  expect(readFileSync(trip, "utf8")).toBe(before);

  // the model now answers with another city at step 1: step 0 (the prompt) stays as it was
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Porto" } }] }) },
    { json: anthropicMessage({ text: "Sunny in Porto." }) },
  );
  const changed = await vitest(["-t", "books Lisbon"], { BLACKBOX_RECORD: "all", EXPECT: "Porto" });
  expect(out(changed)).toContain("1 passed");
  const old = JSON.parse(before) as { createdAt: number; steps: unknown[] };
  const now = readCassette(trip);
  expect(now.createdAt).toBe(old.createdAt);
  expect(now.steps[0]).toEqual(old.steps[0]);
  expect(now.steps[1]).not.toEqual(old.steps[1]);
  // the file's text, too, is the same up to the changed step
  const text = readFileSync(trip, "utf8");
  const firstDiff = [...text].findIndex((c, i) => c !== before[i]);
  expect(text.slice(0, firstDiff)).toContain('"index": 1');
  writeFileSync(trip, before); // back to the Lisbon cassette for the next tests
});

test("a changed prompt fails the test, naming the cassette, the changed value and the command that updates it", async () => {
  const r = await vitest(["-t", "books Lisbon"], { CI: "1", TRIP_CITY: "Porto" }, true);
  expect(r.code).toBe(1);
  const text = out(r);
  expect(text).toContain("Replay diverged at step 0 (model_input)");
  expect(text).toContain('"Is it sunny in Porto?"');
  expect(text).toContain(`Cassette: ${trip}`);
  expect(text).toContain('re-record it: BLACKBOX_RECORD=all npx vitest run agent.test.ts -t "trip books Lisbon"');
  expect(text).not.toContain("blackbox record --");
});

test("a stray client (built without bb.fetch) in a replaying test fails it, and nothing reaches the provider", async () => {
  const seen = fake.requests.length;
  const r = await vitest(["-t", "stray"], { STRAY: "1" }); // online: the fake provider is there to be reached
  expect(r.code).toBe(1);
  expect(out(r)).toContain("did not go through the cassette of the test replaying");
  expect(out(r)).toContain("Pass fetch: bb.fetch to every client the test makes");
  expect(fake.requests.length).toBe(seen);
});

test("a replaying test that passes but leaves a recorded call unmade fails, naming the cassette", async () => {
  const r = await vitest(["-t", "stray"], { CI: "1", SKIP_AGENT: "1" }, true);
  expect(r.code).toBe(1);
  expect(out(r)).toContain("the agent finished after 0 model call(s), but the recording made 1");
  expect(out(r)).toContain(`Cassette: ${join(cassettes, "a stray client.json")}`);
});

test("a failing test in record mode writes nothing, and says so", async () => {
  const before = readFileSync(trip, "utf8");
  queueTrip("Porto");
  const over = await vitest(["-t", "books Lisbon"], { BLACKBOX_RECORD: "all", TRIP_CITY: "Porto", EXPECT: "Rain" });
  expect(over.code).toBe(1);
  expect(out(over)).toContain(`the test failed, so its recording was not written: ${trip} is left as it was`);
  expect(readFileSync(trip, "utf8")).toBe(before);

  rmSync(trip);
  queueTrip();
  const fresh = await vitest(["-t", "books Lisbon"], { EXPECT: "Rain" });
  expect(fresh.code).toBe(1);
  expect(out(fresh)).toContain(`there is still no cassette at ${trip}`);
  expect(existsSync(trip)).toBe(false);
});

test("a missing cassette under CI fails the test with the command that records it; without a key, recording says so first", async () => {
  const seen = fake.requests.length;
  const ci = await vitest(["-t", "books Lisbon"], { CI: "1" }, true);
  expect(ci.code).toBe(1);
  expect(out(ci)).toContain(
    `no cassette at ${trip}, and BLACKBOX_RECORD=none, the default when CI is set never records one. Record it where an API key is set: BLACKBOX_RECORD=missing npx vitest run agent.test.ts -t "trip books Lisbon"`,
  );
  const keyless = await vitest(["-t", "books Lisbon"], { ANTHROPIC_API_KEY: undefined });
  expect(keyless.code).toBe(1);
  expect(out(keyless)).toContain(`recording ${trip} needs an API key`);
  expect(fake.requests.length).toBe(seen);
});

test("with blackboxPlugin() in vitest.config.ts, an agent that builds its own client (no bb.fetch) is recorded, then replayed offline", async () => {
  const cassette = join(project, "__cassettes__", "capture.test.ts", "an agent that builds its own client.json");
  const config = ["--config", "vitest.plugin.config.ts"];
  queueTrip();
  const seen = fake.requests.length;
  rmSync(toolLog, { force: true });
  const recorded = await vitest(config);
  expect(out(recorded)).toContain("1 passed");
  expect(fake.requests.length).toBe(seen + 2);
  expect(readFileSync(toolLog, "utf8")).toBe("get_weather Lisbon\n");
  expect(readCassette(cassette).steps.map((s) => s.type)).toEqual([
    "model_input",
    "model_output",
    "tool_call",
    "tool_result",
    "model_input",
    "model_output",
    "metadata",
  ]);

  rmSync(toolLog);
  const replayed = await vitest(config, { CI: "1", ANTHROPIC_API_KEY: undefined }, true);
  expect(out(replayed)).toContain("1 passed");
  expect(existsSync(toolLog)).toBe(false);
  expect(fake.requests.length).toBe(seen + 2);
});

test("a test whose agent fans out three sub-agents at once records a run (the folder of the cassette's name), then replays it offline", async () => {
  // the sub-agents ask at once: a provider that answers each request from what it holds, in any order
  const fanout = await startFakeProvider({
    respond: (req) => {
      const body = req.body as { messages: Array<{ role: string; content: unknown }> };
      const city = /sunny in (\w+)/.exec(JSON.stringify(body.messages[0]!.content))![1]!;
      const done = body.messages.length > 1;
      return {
        json: anthropicMessage(
          done ? { text: `Sunny in ${city}.` } : { toolCalls: [{ name: "get_weather", input: { city } }] },
        ),
        delayMs: Math.floor(Math.random() * 20),
      };
    },
  });
  try {
    writeFileSync(
      join(project, "fanout.test.ts"),
      `import Anthropic from "@anthropic-ai/sdk";
import { expect, test } from "vitest";
import { useCassette } from "@ardaulas/blackbox/vitest";
import { runAgent, tools } from "./agent.js";

test("three sub-agents", async () => {
  const bb = useCassette();
  const wrapped = bb.tools(tools);
  const answers = await Promise.all(
    ["Lisbon", "Porto", "Faro"].map((city) => runAgent(new Anthropic({ fetch: bb.fetch, maxRetries: 0 }), wrapped, \`Is it sunny in \${city}?\`)),
  );
  expect(answers).toEqual(["Sunny in Lisbon.", "Sunny in Porto.", "Sunny in Faro."]);
});
`,
    );
    writeFileSync(
      join(project, "vitest.fanout.config.ts"),
      'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({ test: { include: ["fanout.test.ts"] } });\n',
    );
    const config = ["--config", "vitest.fanout.config.ts"];
    const folder = join(project, "__cassettes__", "fanout.test.ts", "three sub-agents");
    rmSync(toolLog, { force: true });
    const recorded = await vitest(config, { ANTHROPIC_BASE_URL: fanout.anthropicUrl });
    expect(out(recorded)).toContain("1 passed");
    expect(existsSync(`${folder}.json`)).toBe(false);
    expect(existsSync(join(folder, "run.json"))).toBe(true);
    expect(readFileSync(toolLog, "utf8").trim().split("\n").sort()).toEqual([
      "get_weather Faro",
      "get_weather Lisbon",
      "get_weather Porto",
    ]);
    for (const n of ["01", "02", "03"])
      expect(readCassette(join(folder, `conversation-${n}.json`)).steps).toHaveLength(7);

    rmSync(toolLog);
    const seen = fanout.requests.length;
    const replayed = await vitest(
      config,
      { CI: "1", ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: fanout.anthropicUrl },
      true,
    );
    expect(out(replayed)).toContain("1 passed");
    expect(existsSync(toolLog)).toBe(false);
    expect(fanout.requests.length).toBe(seen);
  } finally {
    await fanout.close();
    rmSync(join(project, "fanout.test.ts"), { force: true });
    rmSync(join(project, "vitest.fanout.config.ts"), { force: true });
  }
});
