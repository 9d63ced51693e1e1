// useCassette() in a user's Jest suite: test/fixtures/jest-project (its own jest 30.5.2 in its
// default config: CommonJS test files, babel-jest; the package under test copied into its
// node_modules as npm would install it, so `require("@ardaulas/blackbox/jest")` takes the
// export's CommonJS build), run as `npx jest` in a child process, the real @anthropic-ai/sdk
// against the fake provider; replays under unshare -n with CI=1. The runs build on each other
// (the cassettes recorded first are replayed, changed, re-recorded), so the tests of this
// file run in order.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, runProcess, type ChildResult } from "../helpers/child.js";
import { installFixture } from "../helpers/fixtureInstall.js";
import { anthropicMessage, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { readCassette, requireBuild, tempDir } from "./zeroCodeHelpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "jest-project");
const PROJECT_FILES = ["package.json", "agent.js", "agent.test.js"];
/** The ESM-mode project: its files, and the agent as agent.cjs beside them. */
const ESM_FILES = ["package.json", "agent.test.js"];
/** What `npm install @ardaulas/blackbox` puts in node_modules (package.json "files"). */
const PACKAGE_FILES = ["package.json", "dist", "bin", "register.mjs"];

const tmp = tempDir();
const project = join(tmp.dir, "project");
const cassettes = join(project, "__cassettes__", "agent.test.js");
const trip = join(cassettes, "trip books Lisbon.json");
const esmProject = join(tmp.dir, "esm");
const toolLog = join(tmp.dir, "tools.log");
let fake: FakeProvider;

beforeAll(async () => {
  requireBuild();
  installFixture(FIXTURE);
  const pkg = join(FIXTURE, "node_modules", "@ardaulas", "blackbox");
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(pkg, { recursive: true });
  for (const f of PACKAGE_FILES) cpSync(join(ROOT, f), join(pkg, f), { recursive: true });
  mkdirSync(project);
  for (const f of PROJECT_FILES) cpSync(join(FIXTURE, f), join(project, f));
  symlinkSync(join(FIXTURE, "node_modules"), join(project, "node_modules"));
  mkdirSync(esmProject);
  for (const f of ESM_FILES) cpSync(join(FIXTURE, "esm", f), join(esmProject, f));
  cpSync(join(FIXTURE, "agent.js"), join(esmProject, "agent.cjs"));
  symlinkSync(join(FIXTURE, "node_modules"), join(esmProject, "node_modules"));
  fake = await startFakeProvider();
}, 200_000);
afterAll(async () => {
  await fake?.close();
  tmp.cleanup();
});

/** `npx jest <args>` in the project, as a user types it; a key and the fake provider's URL, no CI unless given. */
function jest(
  args: string[],
  env: Record<string, string | undefined> = {},
  offline = false,
  cwd = project,
): Promise<ChildResult> {
  return runProcess("npx", ["jest", ...args], {
    cwd,
    offline,
    timeoutMs: 90_000,
    env: {
      ANTHROPIC_BASE_URL: fake.anthropicUrl,
      ANTHROPIC_API_KEY: "sk-test-fixture-key",
      OPENAI_API_KEY: undefined,
      CI: undefined,
      BLACKBOX_RECORD: undefined,
      VITEST: undefined,
      VITEST_WORKER_ID: undefined,
      VITEST_POOL_ID: undefined,
      JEST_WORKER_ID: undefined,
      NODE_ENV: undefined,
      NODE_OPTIONS: undefined,
      TOOL_LOG: toolLog,
      NO_UPDATE_NOTIFIER: "1",
      npm_config_update_notifier: "false",
      ...env,
    },
  });
}

const out = (r: ChildResult) => r.stdout + r.stderr;

/** The replies of the trip test: a weather call, the answer. */
function queueTrip(city = "Lisbon"): void {
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city } }] }) },
    { json: anthropicMessage({ text: `Sunny in ${city}.` }) },
  );
}

test("the missing cassettes are recorded (one per test, named after it, test.concurrent too); then they replay offline under CI", async () => {
  queueTrip();
  fake.enqueue(
    { json: anthropicMessage({ text: "Hi there" }) },
    { json: anthropicMessage({ text: "Hi" }) },
    { json: anthropicMessage({ text: "Hi" }) },
  );
  const recorded = await jest([]);
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
  const replayed = await jest([], { CI: "1", ANTHROPIC_API_KEY: undefined }, true);
  expect(out(replayed)).toContain("4 passed");
  expect(replayed.code).toBe(0);
  expect(existsSync(toolLog)).toBe(false);
  expect(fake.requests.length).toBe(5);
}, 200_000);

test("BLACKBOX_RECORD=all re-records; an unchanged conversation leaves its cassette byte-identical, a changed one keeps the steps before the change", async () => {
  const before = readFileSync(trip, "utf8");
  queueTrip();
  // the command a divergence names (the next test pins its words), as printed
  const same = await jest(["agent.test.js", "-t", "trip books Lisbon"], { BLACKBOX_RECORD: "all" });
  expect(out(same)).toContain("1 passed");
  expect(fake.requests.length).toBe(7); // it did record: both calls went to the provider
  expect(readFileSync(trip, "utf8")).toBe(before);

  // the model now answers with another city at step 1: step 0 (the prompt) stays as it was
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Porto" } }] }) },
    { json: anthropicMessage({ text: "Sunny in Porto." }) },
  );
  const changed = await jest(["-t", "books Lisbon"], { BLACKBOX_RECORD: "all", EXPECT: "Porto" });
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
}, 200_000);

test("a changed prompt fails the test, naming the cassette, the changed value and the command that updates it", async () => {
  const r = await jest(["-t", "books Lisbon"], { CI: "1", TRIP_CITY: "Porto" }, true);
  expect(r.code).toBe(1);
  const text = out(r);
  expect(text).toContain("Replay diverged at step 0 (model_input)");
  expect(text).toContain('"Is it sunny in Porto?"');
  expect(text).toContain(`Cassette: ${trip}`);
  expect(text).toContain('re-record it: BLACKBOX_RECORD=all npx jest agent.test.js -t "trip books Lisbon"');
  expect(text).not.toContain("blackbox record --");
}, 200_000);

test("a stray client (built without bb.fetch) in a replaying test fails it, and nothing reaches the provider", async () => {
  const seen = fake.requests.length;
  const r = await jest(["-t", "stray"], { STRAY: "1" }); // online: the fake provider is there to be reached
  expect(r.code).toBe(1);
  expect(out(r)).toContain("did not go through the cassette of the test replaying");
  expect(out(r)).toContain("Pass fetch: bb.fetch to every client the test makes");
  expect(out(r)).toContain("1 failed");
  expect(fake.requests.length).toBe(seen);
}, 200_000);

test("a replaying test that passes but leaves a recorded call unmade fails, naming the cassette", async () => {
  const r = await jest(["-t", "stray"], { CI: "1", SKIP_AGENT: "1" }, true);
  expect(r.code).toBe(1);
  expect(out(r)).toContain("1 failed");
  expect(out(r)).toContain("the agent finished after 0 model call(s), but the recording made 1");
  expect(out(r)).toContain(`Cassette: ${join(cassettes, "a stray client.json")}`);
}, 200_000);

test("a failing test in record mode writes nothing, and says so", async () => {
  const before = readFileSync(trip, "utf8");
  queueTrip("Porto");
  const over = await jest(["-t", "books Lisbon"], { BLACKBOX_RECORD: "all", TRIP_CITY: "Porto", EXPECT: "Rain" });
  expect(over.code).toBe(1);
  expect(out(over)).toContain(`the test failed, so its recording was not written: ${trip} is left as it was`);
  expect(readFileSync(trip, "utf8")).toBe(before);

  rmSync(trip);
  queueTrip();
  const fresh = await jest(["-t", "books Lisbon"], { EXPECT: "Rain" });
  expect(fresh.code).toBe(1);
  expect(out(fresh)).toContain(`there is still no cassette at ${trip}`);
  expect(existsSync(trip)).toBe(false);
}, 200_000);

test("a missing cassette under CI fails the test with the command that records it; without a key, recording says so first", async () => {
  const seen = fake.requests.length;
  const ci = await jest(["-t", "books Lisbon"], { CI: "1" }, true);
  expect(ci.code).toBe(1);
  expect(out(ci)).toContain(
    `no cassette at ${trip}, and BLACKBOX_RECORD=none, the default when CI is set never records one. Record it where an API key is set: BLACKBOX_RECORD=missing npx jest agent.test.js -t "trip books Lisbon"`,
  );
  const keyless = await jest(["-t", "books Lisbon"], { ANTHROPIC_API_KEY: undefined });
  expect(keyless.code).toBe(1);
  expect(out(keyless)).toContain(`recording ${trip} needs an API key`);
  expect(fake.requests.length).toBe(seen);
}, 200_000);

test("useCassette() outside a test is refused, saying where to call it", async () => {
  const r = await jest([], { CI: "1", OUTSIDE: "1" }, true);
  expect(r.code).toBe(1);
  expect(out(r)).toContain(
    "useCassette() names its cassette after the test it is called in and ends with it: call it inside a test",
  );
}, 200_000);

test("in Jest's ESM mode, `import` of @ardaulas/blackbox/jest records, then replays offline with no tool run", async () => {
  const esm = { NODE_OPTIONS: "--experimental-vm-modules" };
  const cassette = join(esmProject, "__cassettes__", "agent.test.js", "trip books Lisbon.json");
  queueTrip();
  const seen = fake.requests.length;
  rmSync(toolLog, { force: true });
  const recorded = await jest([], esm, false, esmProject);
  expect(out(recorded)).toContain("1 passed");
  expect(fake.requests.length).toBe(seen + 2);
  expect(readFileSync(toolLog, "utf8")).toBe("get_weather Lisbon\n");
  expect(readCassette(cassette).steps.at(-1)!.type).toBe("metadata");

  rmSync(toolLog);
  const replayed = await jest([], { ...esm, CI: "1", ANTHROPIC_API_KEY: undefined }, true, esmProject);
  expect(out(replayed)).toContain("1 passed");
  expect(existsSync(toolLog)).toBe(false);
  expect(fake.requests.length).toBe(seen + 2);
}, 200_000);
