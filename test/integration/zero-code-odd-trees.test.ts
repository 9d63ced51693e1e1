/**
 * Process setups a real app has, under `blackbox record|replay -- <command>`: the agent
 * in a worker thread, behind a launcher that does not pass its exit code on, started in
 * a subfolder, with a CommonJS config. Each must give one honest verdict: a replay that
 * diverged or was never checked fails, a thread is refused like a second process, and
 * the tools the config names are recorded wherever the agent runs.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import {
  blackboxCli,
  DONE_LINE,
  queueTrip,
  readCassette,
  REGISTER,
  requireBuild,
  tempDir,
  toolNames,
} from "./zeroCodeHelpers.js";

let fake: FakeProvider;
const tmp = tempDir();
const project = join(tmp.dir, "zero-code");
const trip = join(tmp.dir, "trip.json");
const bookings = join(project, "bookings.log");
const KEY = "sk-ant-real-looking-key-123456";

// The example agent with a turn limit (TURNS) and, with HANG_AFTER_FIRST, a pause after
// its first round that tells a parent thread "first" and waits (to be terminated, or for "go").
const LOOP = (agent: string) =>
  agent.replace(
    "turn < 8; turn++) {",
    `turn < Number(process.env.TURNS ?? 8); turn++) {
  if (turn === 1 && process.env.HANG_AFTER_FIRST) {
    const { parentPort } = await import("node:worker_threads");
    parentPort.postMessage("first");
    await new Promise((go) => { const t = setInterval(() => {}, 1000); parentPort.once("message", () => { clearInterval(t); go(); }); });
  }`,
  );

// A launcher that runs loop.mjs in a worker thread and never looks at how it ended.
const IN_WORKER = `import { Worker } from "node:worker_threads";
const w = new Worker(new URL("./loop.mjs", import.meta.url));
w.on("message", () => { if (process.env.TERMINATE) w.terminate(); else if (process.env.INTERRUPT) process.kill(process.pid, "SIGINT"); else w.postMessage("go"); });
w.on("error", (e) => console.error("worker failed:", e.message));
`;

// Two worker threads running the agent at once: the second starts after the first made its calls of round 1.
const TWO_WORKERS = `import { Worker } from "node:worker_threads";
const url = new URL("./loop.mjs", import.meta.url);
const a = new Worker(url, { env: { ...process.env, HANG_AFTER_FIRST: "1" } });
a.on("message", () => {
  const b = new Worker(url);
  b.on("error", (e) => console.error("second worker failed:", e.message.split(". ")[0]));
  b.on("exit", () => a.postMessage("go"));
});
`;

beforeAll(async () => {
  requireBuild();
  fake = await startFakeProvider();
  cpSync(join(ROOT, "examples", "zero-code"), project, { recursive: true, filter: (f) => !f.endsWith("bookings.log") });
  writeFileSync(join(project, "loop.mjs"), LOOP(readFileSync(join(project, "agent.mjs"), "utf8")));
  writeFileSync(join(project, "in-worker.mjs"), IN_WORKER);
  writeFileSync(join(project, "two-workers.mjs"), TWO_WORKERS);
  queueTrip(fake);
  const r = await blackbox(["record", "-o", trip, "--", "node", "loop.mjs"], { ANTHROPIC_API_KEY: KEY });
  expect(r.stderr).toMatch(DONE_LINE);
  expect(r.code).toBe(0);
  rmSync(bookings, { force: true });
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

const blackbox = (args: string[], env: Record<string, string | undefined> = {}, offline = false, cwd = project) =>
  blackboxCli(fake, cwd, args, env, offline);

async function drain(): Promise<void> {
  while (fake.pending > 0) await fetch(`${fake.url}/drain`, { method: "POST" });
}

test("a diverged replay fails even when the launcher drops the agent's exit code (sh -c '...; true')", async () => {
  const r = await blackbox(
    ["replay", trip, "--", "sh", "-c", "node loop.mjs; echo launcher done"],
    { TURNS: "1" },
    true,
  );
  expect(r.stdout).toContain("launcher done");
  expect(r.stderr).toMatch(
    /^blackbox: Replay diverged at step \d+ \(model_input\): the agent finished after 1 model call\(s\), but the recording made 3/,
  );
  expect(r.code).toBe(1);
});

test("a replay in a worker thread: passes when whole, fails when it diverged (a worker's exit code never reaches the process)", async () => {
  const ok = await blackbox(["replay", trip, "--", "node", "in-worker.mjs"], {}, true);
  expect(ok.stderr).toMatch(DONE_LINE);
  expect(ok.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(ok.code).toBe(0);
  expect(existsSync(bookings)).toBe(false);

  const short = await blackbox(["replay", trip, "--", "node", "in-worker.mjs"], { TURNS: "1" }, true);
  expect(short.stderr).toMatch(
    /^blackbox: Replay diverged at step \d+ \(model_input\): the agent finished after 1 model call\(s\), but the recording made 3/,
  );
  expect(short.code).toBe(1);
});

test("a worker thread terminated after its first calls: the replay is not passed unchecked, the record says what happened", async () => {
  const replay = await blackbox(
    ["replay", trip, "--", "node", "in-worker.mjs"],
    { HANG_AFTER_FIRST: "1", TERMINATE: "1" },
    true,
  );
  expect(replay.stderr).toMatch(
    /^blackbox: the replay was not checked: process \d+ made model or tool calls but ended before its end-of-run check/,
  );
  expect(replay.stderr).toContain("worker thread");
  expect(replay.code).toBe(1);

  queueTrip(fake);
  const out = join(tmp.dir, "terminated.json");
  const rec = await blackbox(["record", "-o", out, "--", "node", "in-worker.mjs"], {
    ANTHROPIC_API_KEY: KEY,
    HANG_AFTER_FIRST: "1",
    TERMINATE: "1",
  });
  expect(rec.stderr).toMatch(
    /^blackbox: no cassette was written to .*terminated\.json: process \d+ made model or tool calls but ended before it could write the cassette/,
  );
  expect(rec.stderr).not.toContain("made no model call");
  expect(rec.code).toBe(1);
  expect(existsSync(out)).toBe(false);
  rmSync(bookings, { force: true });
  await drain();
});

test("a worker thread cut short by Ctrl-C: the record names the thread, and does not offer Ctrl-C as the way to end it", async () => {
  // Ctrl-C lets a main thread write its cassette, never a worker thread's: the process ends first.
  queueTrip(fake);
  const out = join(tmp.dir, "interrupted.json");
  const rec = await blackbox(["record", "-o", out, "--", "node", "in-worker.mjs"], {
    ANTHROPIC_API_KEY: KEY,
    HANG_AFTER_FIRST: "1",
    INTERRUPT: "1",
  });
  expect(rec.stderr).toMatch(
    /^blackbox: no cassette was written to .*interrupted\.json: the command was killed \(exit code 130, signal 2\); process \d+ made model or tool calls but ended before it could write the cassette: it made them in its worker thread \d+/,
  );
  expect(rec.stderr).toContain("a signal such as Ctrl-C");
  expect(rec.stderr).not.toContain("or on Ctrl-C");
  expect(rec.code).toBe(130);
  expect(existsSync(out)).toBe(false);
  rmSync(bookings, { force: true });
  await drain();
});

test("the bare hook: a worker thread's diverged replay fails its process, a terminated one is not passed unchecked", async () => {
  const env = { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: trip, ANTHROPIC_API_KEY: "placeholder-key-not-sent" };
  const hooked = (more: Record<string, string>) =>
    runProcess(process.execPath, ["--import", REGISTER, "in-worker.mjs"], {
      cwd: project,
      env: { ...env, ...more },
      offline: true,
    });
  const ok = await hooked({});
  expect(ok.stderr).toBe("");
  expect(ok.code).toBe(0);
  const short = await hooked({ TURNS: "1" });
  expect(short.stderr).toMatch(
    /^blackbox: Replay diverged at step \d+ \(model_input\): the agent finished after 1 model call\(s\), but the recording made 3/,
  );
  expect(short.code).toBe(1);
  const cut = await hooked({ HANG_AFTER_FIRST: "1", TERMINATE: "1" });
  expect(cut.stderr).toMatch(
    /^blackbox: the replay was not checked: process \d+ made model or tool calls but ended before its end-of-run check/,
  );
  expect(cut.code).toBe(1);
});

test("two worker threads of one process making calls under one cassette: the second is refused, the first's cassette stays whole", async () => {
  queueTrip(fake);
  queueTrip(fake);
  const before = fake.requests.length;
  const out = join(tmp.dir, "threads.json");
  const r = await blackbox(["record", "-o", out, "--", "node", "two-workers.mjs"], { ANTHROPIC_API_KEY: KEY });
  expect(r.stderr).toContain(`blackbox: two threads of process`);
  expect(r.stderr).toContain("second worker failed: 400 [blackbox] two threads of process");
  expect(r.stderr).not.toContain("no longer holds its claim");
  expect(fake.requests.length - before).toBe(3); // the second thread's call never left
  const trace = readCassette(out);
  expect(toolNames(trace)).toEqual(["get_weather", "book_hotel"]);
  expect(trace.steps.at(-1)!.payload).toMatchObject({ event: "run_completed", status: "success" });
  expect(r.code).not.toBe(0);
  rmSync(bookings, { force: true });
  await drain();
});

/** `blackbox record -- sh -c "cd app && node agent.mjs"` from `root`, then its replay offline: both clean, the tools recorded, no booking in the replay. */
async function recordAndReplayInApp(root: string, name: string): Promise<void> {
  queueTrip(fake);
  const out = join(root, `${name}.json`);
  const rec = await blackbox(
    ["record", "-o", out, "--", "sh", "-c", "cd app && node agent.mjs"],
    { ANTHROPIC_API_KEY: KEY },
    false,
    root,
  );
  expect(rec.stderr).toMatch(DONE_LINE);
  expect(rec.code).toBe(0);
  expect(toolNames(readCassette(out))).toEqual(["get_weather", "book_hotel"]);
  rmSync(join(root, "app", "bookings.log"));

  const replay = await blackbox(["replay", out, "--", "sh", "-c", "cd app && node agent.mjs"], {}, true, root);
  expect(replay.stderr).toMatch(DONE_LINE);
  expect(replay.code).toBe(0);
  expect(existsSync(join(root, "app", "bookings.log"))).toBe(false);
}

test("the agent started in a subfolder (cd app && node ...) still uses the config of the folder blackbox runs in", async () => {
  const root = join(tmp.dir, "mono");
  mkdirSync(join(root, "app"), { recursive: true });
  for (const f of ["agent.mjs", "tools.mjs"]) cpSync(join(project, f), join(root, "app", f));
  writeFileSync(
    join(root, "blackbox.config.mjs"),
    `export default { tools: [{ module: "./app/tools.mjs", exports: ["get_weather", "book_hotel"] }] };\n`,
  );
  await recordAndReplayInApp(root, "mono");
});

test("a package in a subfolder with a config of its own keeps it: the config of the folder blackbox runs in is only the default", async () => {
  // A monorepo: the root's config names another package's tools; the agent's package has its own.
  const root = join(tmp.dir, "mono2");
  mkdirSync(join(root, "app"), { recursive: true });
  mkdirSync(join(root, "lint"), { recursive: true });
  for (const f of ["agent.mjs", "tools.mjs", "blackbox.config.ts"]) cpSync(join(project, f), join(root, "app", f));
  writeFileSync(join(root, "lint", "rules.mjs"), "export function check() { return true; }\n");
  writeFileSync(
    join(root, "blackbox.config.mjs"),
    `export default { tools: [{ module: "./lint/rules.mjs", exports: ["check"] }] };\n`,
  );
  await recordAndReplayInApp(root, "mono2");
});

test("a blackbox.config.cjs in the folder is used (not silently skipped, running the tools in replay)", async () => {
  const dir = join(tmp.dir, "cjs");
  mkdirSync(dir, { recursive: true });
  for (const f of ["agent.mjs", "tools.mjs"]) cpSync(join(project, f), join(dir, f));
  writeFileSync(join(dir, "package.json"), `{ "private": true, "type": "module" }\n`);
  writeFileSync(
    join(dir, "blackbox.config.cjs"),
    `module.exports = { tools: [{ module: "./tools.mjs", exports: ["get_weather", "book_hotel"] }] };\n`,
  );
  queueTrip(fake);
  const out = join(dir, "cjs.json");
  const rec = await blackbox(["record", "-o", out, "--", "node", "agent.mjs"], { ANTHROPIC_API_KEY: KEY }, false, dir);
  expect(rec.stderr).toMatch(DONE_LINE);
  expect(toolNames(readCassette(out))).toEqual(["get_weather", "book_hotel"]);
  rmSync(join(dir, "bookings.log"));
  const replay = await blackbox(["replay", out, "--", "node", "agent.mjs"], {}, true, dir);
  expect(replay.code).toBe(0);
  expect(existsSync(join(dir, "bookings.log"))).toBe(false);
});

test("process.exit() inside a tool: the replay's divergence says the recording ended with that call in flight", async () => {
  const dir = join(tmp.dir, "exits");
  mkdirSync(dir, { recursive: true });
  cpSync(join(project, "agent.mjs"), join(dir, "agent.mjs"));
  const tools = readFileSync(join(project, "tools.mjs"), "utf8");
  writeFileSync(join(dir, "tools.mjs"), tools.replace(/(appendFileSync\(file, [^;]*;)/, "$1\n  process.exit(0);"));
  writeFileSync(join(dir, "package.json"), `{ "private": true, "type": "module" }\n`);
  writeFileSync(
    join(dir, "blackbox.config.mjs"),
    `export default { tools: [{ module: "./tools.mjs", exports: ["get_weather", "book_hotel"] }] };\n`,
  );
  queueTrip(fake);
  const out = join(dir, "exits.json");
  const rec = await blackbox(["record", "-o", out, "--", "node", "agent.mjs"], { ANTHROPIC_API_KEY: KEY }, false, dir);
  expect(rec.code).toBe(0);
  expect(readCassette(out).steps.at(-1)!.payload).toMatchObject({ reason: "calls_in_flight", exitCode: 0 });
  await drain();
  rmSync(join(dir, "bookings.log"));
  const replay = await blackbox(["replay", out, "--", "node", "agent.mjs"], {}, true, dir);
  expect(replay.stderr).toContain(
    `the agent called the wrapped tool "book_hotel", which the recording did not run here: the recording ends here because its process exited (code 0) while a call was still running`,
  );
  expect(replay.code).toBe(1);
  expect(existsSync(join(dir, "bookings.log"))).toBe(false);
});
