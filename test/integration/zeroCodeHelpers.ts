/** Shared by the zero-code tests: temp folders, the hooked node, and cassette reading. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";
import { join } from "node:path";
import { verifyTrace } from "../../src/trace/verify.js";
import type { Trace } from "../../src/trace/types.js";
import { installFixture } from "../helpers/fixtureInstall.js";
import { ROOT, runProcess, type ChildOptions, type ChildResult } from "../helpers/child.js";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiResponse,
  openaiResponseSSE,
  openaiSSE,
  startFakeProvider,
  type FakeProvider,
} from "../helpers/fakeProvider.js";

export const REGISTER = join(ROOT, "register.mjs");
export const BIN = join(ROOT, "bin", "blackbox.mjs");
export const FIXTURES = join(ROOT, "test", "fixtures", "zero-code");
/** All a successful `blackbox record|replay|fork -- <command>` prints on stderr: its one closing line (zero-code-cli.test.ts pins its words). */
export const DONE_LINE = /^blackbox: (recorded|replayed|forked) [^\n]*\n$/;

// A load hook (off-thread) that prints every module URL the process loads (pass it with
// --import before the hook). It writes synchronously: on Node 24 an async stderr write
// from the hooks thread to a pipe can be lost when the process exits.
export const MODULE_LOGGER = `data:text/javascript,${encodeURIComponent(
  `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent("import { writeSync } from 'node:fs'; export async function load(url, context, next) { if (!url.startsWith('node:')) writeSync(2, 'LOADED ' + url + '\\\\n'); return next(url, context); }"));`,
)}`;

/** The module URLs MODULE_LOGGER printed to a process's stderr. */
export function loadedModules(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("LOADED "))
    .map((l) => l.slice(7));
}

export function requireBuild(): void {
  if (!existsSync(join(ROOT, "dist", "register.js")))
    throw new Error("dist/ is missing: run `npm run build` before these tests (npm test does)");
}

/** A temp folder inside the repo (gitignored), so node_modules resolve from it. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(ROOT, ".blackbox-tmp-zc-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `node --import register.mjs <args>` in `cwd`. */
export function hookedNode(
  cwd: string,
  args: string[],
  env: ChildOptions["env"],
  offline = false,
): Promise<ChildResult> {
  return runProcess(process.execPath, ["--import", REGISTER, ...args], { cwd, env, offline });
}

/** `blackbox <args>` as a user types it, in `cwd`, against the fake provider, with no real key in the environment. */
export function blackboxCli(
  fake: FakeProvider,
  cwd: string,
  args: string[],
  env: ChildOptions["env"] = {},
  offline = false,
): Promise<ChildResult> {
  return runProcess(process.execPath, [BIN, ...args], {
    cwd,
    offline,
    env: { ANTHROPIC_BASE_URL: fake.anthropicUrl, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, ...env },
  });
}

/** The example trip agent's three replies: get_weather, book_hotel, the answer. */
export function queueTrip(fake: FakeProvider): void {
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }) },
    { json: anthropicMessage({ toolCalls: [{ name: "book_hotel", input: { city: "Lisbon", nights: 2 } }] }) },
    { json: anthropicMessage({ text: "Booked Lisbon for 2 nights." }) },
  );
}

export function readCassette(file: string): Trace {
  const trace = JSON.parse(readFileSync(file, "utf8")) as Trace;
  const verdict = verifyTrace(trace);
  if (!verdict.ok) throw new Error(`${file} fails verify: ${JSON.stringify(verdict.problems)}`);
  return trace;
}

export function toolNames(trace: Trace): string[] {
  return trace.steps.filter((s) => s.type === "tool_call").map((s) => (s.payload as { toolName: string }).toolName);
}

/** Queue a weather call, a note call and a final answer, in one wire format. */
export function queueRun(
  fake: FakeProvider,
  wire: "anthropic" | "openai",
  names: [string, string],
  answer: string,
): void {
  const make = wire === "anthropic" ? anthropicMessage : openaiCompletion;
  fake.enqueue(
    { json: make({ toolCalls: [{ name: names[0], input: { city: "Lisbon" } }] }) },
    { json: make({ toolCalls: [{ name: names[1], input: { text: "it is sunny" } }] }) },
    { json: make({ text: answer }) },
  );
}

/** The one line the bare hook prints when no process of its tree made a call in record mode. */
export function noCassetteNotice(out: string): string {
  return `blackbox: no cassette was written to ${out}: no process made a model or tool call through Blackbox\n`;
}

/** The apps of other SDK versions and SDKs, each in a folder of its own with its lock file (installed by the tests that use them). */
export const SDK_APPS = join(ROOT, "test", "fixtures", "sdk-versions");

/**
 * For a zero-code test file: the build checked, a fake provider and a temp folder inside
 * the repo (so the SDKs resolve from it), started before its tests and removed after;
 * `apps`: SDK_APPS folders to `npm ci` first where not installed yet (once, across workers). Read `fake` inside
 * tests, not at load.
 */
export function useZeroCodeFixture(...apps: string[]): { readonly fake: FakeProvider; readonly dir: string } {
  const tmp = tempDir();
  const env = { dir: tmp.dir } as { fake: FakeProvider; dir: string };
  beforeAll(async () => {
    requireBuild();
    for (const app of apps) installFixture(join(SDK_APPS, app));
    env.fake = await startFakeProvider();
  }, 200_000);
  afterAll(async () => {
    await env.fake?.close();
    tmp.cleanup();
  });
  return env;
}

/**
 * A framework app's two-step weather run (a get_weather call for Lisbon, then "Sunny in
 * Lisbon."; queued on `fake` in `provider`'s wire format, streamed or not): recorded, then
 * replayed under unshare -n. The app's tool appends `get_weather <city>` to $TOOL_LOG: it
 * ran once in record, not in the replay, which prints the same and sends nothing.
 */
export async function twoStepRecordedAndReplayed(o: {
  fake: FakeProvider;
  /** The wire format queued: Anthropic's, chat completions' or the Responses API's. */
  provider: "anthropic" | "openai" | "responses";
  streamed: boolean;
  cwd: string;
  args: string[];
  env: Record<string, string | undefined>;
  dir: string;
  name: string;
  stdout: string;
}): Promise<void> {
  type Content = Parameters<typeof anthropicMessage>[0];
  const wire: Record<typeof o.provider, [(c: Content) => object, (c: Content) => string[]]> = {
    anthropic: [anthropicMessage, anthropicSSE],
    openai: [openaiCompletion, openaiSSE],
    responses: [openaiResponse, openaiResponseSSE],
  };
  const [json, sse] = wire[o.provider];
  const reply = (c: Content) => (o.streamed ? { sse: sse(c) } : { json: json(c) });
  o.fake.enqueue(
    reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    reply({ text: "Sunny in Lisbon." }),
  );
  const cassette = join(o.dir, `${o.name}.json`);
  const log = join(o.dir, `${o.name}.log`);
  const seen = o.fake.requests.length;
  const recorded = await hookedNode(o.cwd, o.args, {
    ...o.env,
    TOOL_LOG: log,
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: cassette,
  });
  expect(recorded.stderr).toBe("");
  expect(recorded.stdout).toBe(o.stdout);
  expect(recorded.code).toBe(0);
  expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\n");
  expect(o.fake.requests.length).toBe(seen + 2);
  const trace = readCassette(cassette);
  expect(trace.steps.map((s) => s.type)).toEqual([
    "model_input",
    "model_output",
    "tool_call",
    "tool_result",
    "model_input",
    "model_output",
    "metadata",
  ]);
  expect(toolNames(trace)).toEqual(["get_weather"]);

  rmSync(log);
  const replayed = await hookedNode(
    o.cwd,
    o.args,
    { ...o.env, TOOL_LOG: log, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette },
    true,
  );
  expect(replayed.stderr).toBe("");
  expect(replayed.stdout).toBe(recorded.stdout);
  expect(replayed.code).toBe(0);
  expect(existsSync(log)).toBe(false);
  expect(o.fake.requests.length).toBe(seen + 2);
}
