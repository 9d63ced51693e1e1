/**
 * As a user types it: `blackbox record -- npm start` in the example project against the
 * fake provider, then `unshare -n blackbox replay <cassette> -- npm start` with no
 * network, and a fork of the recorded agent. npm's own process loads the hook too: the
 * tree must give exactly one cassette.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT } from "../helpers/child.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { BIN, blackboxCli, queueTrip, readCassette, requireBuild, tempDir, toolNames } from "./zeroCodeHelpers.js";

let fake: FakeProvider;
const tmp = tempDir();
const project = join(tmp.dir, "zero-code");
const cassette = join(tmp.dir, "trip.json");
const bookings = join(project, "bookings.log");

beforeAll(async () => {
  requireBuild();
  fake = await startFakeProvider();
  cpSync(join(ROOT, "examples", "zero-code"), project, { recursive: true, filter: (f) => !f.endsWith("bookings.log") });
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

const blackbox = (args: string[], env: Record<string, string | undefined> = {}, offline = false) =>
  blackboxCli(fake, project, args, env, offline);

test("blackbox record -- npm start writes exactly one verified cassette of the agent's run", async () => {
  queueTrip(fake);
  const r = await blackbox(["record", "-o", cassette, "--", "npm", "start"], {
    ANTHROPIC_API_KEY: "sk-ant-real-looking-key-123456",
  });
  // one line at the end, where the cassette went and what it holds (stdout stays the agent's)
  expect(r.stderr).toBe(`blackbox: recorded ${cassette}: 3 model calls, 2 tool calls, ended: success\n`);
  expect(r.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(r.code).toBe(0);
  expect(existsSync(bookings)).toBe(true);
  const trace = readCassette(cassette);
  expect(toolNames(trace)).toEqual(["get_weather", "book_hotel"]);
  expect(trace.id).toBe("trip");
  expect(trace.steps.filter((s) => s.type === "model_input")).toHaveLength(3);
  expect(readdirSync(tmp.dir).sort()).toEqual(["trip.json", "zero-code"]);
  expect(JSON.stringify(trace)).not.toContain("sk-ant-real-looking-key");
});

test("a hooked parent process that makes no call leaves the one cassette to its child", async () => {
  queueTrip(fake);
  const out = join(tmp.dir, "tree.json");
  const parent = "require('node:child_process').execFileSync(process.execPath, ['agent.mjs'], { stdio: 'inherit' })";
  const r = await blackbox(["record", "-o", out, "--", process.execPath, "-e", parent], {
    ANTHROPIC_API_KEY: "sk-ant-real-looking-key-123456",
  });
  expect(r.stderr).toBe(`blackbox: recorded ${out}: 3 model calls, 2 tool calls, ended: success\n`);
  expect(r.code).toBe(0);
  expect(toolNames(readCassette(out))).toEqual(["get_weather", "book_hotel"]);
  rmSync(out);
  rmSync(bookings, { force: true });
});

test("two processes of one run that both make calls: the second is refused, the first's cassette stays whole", async () => {
  queueTrip(fake);
  queueTrip(fake);
  const out = join(tmp.dir, "twice.json");
  const r = await blackbox(["record", "-o", out, "--", "sh", "-c", "node agent.mjs && node agent.mjs"], {
    ANTHROPIC_API_KEY: "sk-ant-real-looking-key-123456",
  });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("another process of this run already made model or tool calls under one cassette");
  const trace = readCassette(out);
  expect(toolNames(trace)).toEqual(["get_weather", "book_hotel"]);
  expect(trace.steps.at(-1)!.payload).toMatchObject({ event: "run_completed", status: "success" });
  rmSync(out);
  rmSync(bookings, { force: true });
  while (fake.pending > 0) await fetch(`${fake.url}/drain`, { method: "POST" });
});

test("unshare -n blackbox replay <cassette> -- npm start: same answer, no network, no booking", async () => {
  rmSync(bookings, { force: true });
  const before = fake.requests.length;
  const r = await blackbox(["replay", cassette, "--", "npm", "start"], {}, true);
  expect(r.stderr).toBe(`blackbox: replayed ${cassette} as recorded: 3 model calls, 2 tool calls, ended: success\n`);
  expect(r.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(r.code).toBe(0);
  expect(existsSync(bookings)).toBe(false);
  expect(fake.requests.length).toBe(before);
});

test("the config's redact rules keep a value out of the cassette, the closing line counts it, and the replay compares through them", async () => {
  const config = join(project, "blackbox.redacting.config.mjs");
  writeFileSync(
    config,
    'export default { tools: [{ module: "./tools.mjs", exports: ["get_weather", "book_hotel"] }], redact: { values: ["Lisbon"] } };\n',
  );
  const out = join(tmp.dir, "redacted.json");
  queueTrip(fake);
  const r = await blackbox(["record", "-o", out, "--config", config, "--", "npm", "start"], {
    ANTHROPIC_API_KEY: "sk-ant-real-looking-key-123456",
  });
  expect(r.stderr).toBe(
    `blackbox: recorded ${out}: 3 model calls, 2 tool calls, ended: success, 1 value redacted (1 SECRET)\n`,
  );
  expect(readFileSync(out, "utf8")).not.toContain("Lisbon");
  expect(readCassette(out).steps[1]!.payload).toMatchObject({ calls: [{ toolInput: { city: "<SECRET_1>" } }] });
  rmSync(bookings, { force: true });
  const replayed = await blackbox(["replay", out, "--", "npm", "start"], { BLACKBOX_CONFIG: config }, true);
  // the agent is handed what the cassette holds
  expect(replayed.stdout).toContain("Booked <SECRET_1> for 2 nights.");
  expect(replayed.code).toBe(0);
  expect(existsSync(bookings)).toBe(false);
  rmSync(out);
  rmSync(config);
});

test("the cassette committed in examples/zero-code replays as the README says: offline, no key, no booking", async () => {
  rmSync(bookings, { force: true });
  const r = await blackbox(["replay", "runs/trip.json", "--", "npm", "start"], { ANTHROPIC_BASE_URL: undefined }, true);
  // a path under the folder blackbox runs in is shown as the user typed it
  expect(r.stderr).toBe("blackbox: replayed runs/trip.json as recorded: 3 model calls, 2 tool calls, ended: success\n");
  expect(r.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(r.code).toBe(0);
  expect(existsSync(bookings)).toBe(false);
});

test("a replay that diverges exits non-zero with a report", async () => {
  writeFileSync(
    join(project, "agent.mjs"),
    readFileSync(join(project, "agent.mjs"), "utf8").replace("book 2 nights", "book 3 nights"),
  );
  try {
    const r = await blackbox(["replay", cassette, "--", "npm", "start"], {}, true);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/diverge/i);
    expect(existsSync(bookings)).toBe(false);
  } finally {
    cpSync(join(ROOT, "examples", "zero-code", "agent.mjs"), join(project, "agent.mjs"));
  }
});

test("blackbox fork --at <tool_result> --set ... --script -- npm start continues offline from the new result", async () => {
  const trace = readCassette(cassette);
  const at = trace.steps.findIndex((s) => s.type === "tool_result");
  const script = join(tmp.dir, "script.json");
  writeFileSync(
    script,
    JSON.stringify([
      {
        type: "tool_calls",
        calls: [{ toolCallId: "call-9", toolName: "book_hotel", toolInput: { city: "Lisbon", nights: 2 } }],
      },
      { type: "final_answer", text: "Rainy, booked anyway." },
    ]),
  );
  const out = join(tmp.dir, "fork.json");
  const r = await blackbox(
    [
      "fork",
      cassette,
      "--at",
      String(at),
      "--set",
      '{"city":"Lisbon","forecast":"rain"}',
      "--script",
      script,
      "-o",
      out,
      "--",
      "npm",
      "start",
    ],
    {},
    true,
  );
  expect(r.stderr).toBe(`blackbox: forked ${cassette} into ${out}: 3 model calls, 2 tool calls, ended: success\n`);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Rainy, booked anyway.");
  const child = readCassette(out);
  expect(child.parentId).toBe("trip");
  expect(child.steps[at]!.payload).toMatchObject({ result: { forecast: "rain" } });
  rmSync(out);
});

test("a command that makes no model call writes nothing and says so", async () => {
  const out = join(tmp.dir, "none.json");
  const r = await blackbox(["record", "-o", out, "--", process.execPath, "-e", "console.log('no agent here')"]);
  expect(r.stdout).toContain("no agent here");
  expect(r.stderr).toMatch(/^blackbox: no cassette was written to .*none\.json: the command made no model call/);
  expect(r.code).toBe(1);
  expect(existsSync(out)).toBe(false);
});

test("the child's exit code comes back, and usage errors exit 2", async () => {
  const failing = await blackbox(["replay", cassette, "--", process.execPath, "-e", "process.exit(7)"]);
  expect(failing.code).toBe(7);
  const missing = await blackbox(["record", "-o", join(tmp.dir, "x.json"), "--", "no-such-command-xyz"]);
  expect(missing.stderr).toContain('blackbox: cannot run "no-such-command-xyz" (command not found)');
  expect(missing.code).toBe(127);
  const noCommand = await blackbox(["record"]);
  expect(noCommand.stderr).toContain("record needs a command after --");
  expect(noCommand.code).toBe(2);
  const badSet = await blackbox(["fork", cassette, "--at", "3", "--set", "sunny", "--", "npm", "start"]);
  expect(badSet.stderr).toContain("--set is not valid JSON");
  expect(badSet.code).toBe(2);
});

test("a tampered cassette is refused before the command runs", async () => {
  const tampered = join(tmp.dir, "tampered.json");
  writeFileSync(
    tampered,
    readFileSync(cassette, "utf8").replace("Booked Lisbon for 2 nights.", "Booked Paris for 2 nights."),
  );
  const r = await blackbox(["replay", tampered, "--", process.execPath, "-e", "console.log('ran')"]);
  expect(r.stdout).not.toContain("ran");
  expect(r.stderr).toContain(`blackbox: the cassette ${tampered} fails verify, so the command was not run`);
  expect(r.code).toBe(1);
  rmSync(tampered);
});

test("SIGTERM to blackbox reaches the command, and its exit code comes back", async () => {
  const script =
    'process.on("SIGTERM", () => { console.log("child got SIGTERM"); process.exit(5); }); console.log("ready"); setInterval(() => {}, 1000);';
  const child = spawn(process.execPath, [BIN, "replay", cassette, "--", process.execPath, "-e", script], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let sent = false;
  child.stdout.on("data", (d) => {
    stdout += d;
    // one SIGTERM: a second one (at the next chunk, "child got SIGTERM") could land after the
    // command ended, when blackbox no longer forwards signals, and end blackbox itself
    if (stdout.includes("ready") && !sent) sent = child.kill("SIGTERM");
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  expect(stdout).toContain("child got SIGTERM");
  expect(code).toBe(5);
});
