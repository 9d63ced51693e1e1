/**
 * How a run ends, as a user types it: `blackbox record|replay|fork -- <command>` against
 * the fake provider, and the bare hook. Signals reach the agent behind a wrapper
 * (`sh -c`), SIGHUP still leaves a cassette, a process whose run is over never writes
 * over a newer cassette, the CLI adds no guess when the hook already said what went
 * wrong, and a replay whose command makes no call fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import { anthropicMessage, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { BIN, DONE_LINE, readCassette, REGISTER, requireBuild, tempDir, toolNames } from "./zeroCodeHelpers.js";

let fake: FakeProvider;
const tmp = tempDir();
const project = join(tmp.dir, "zero-code");
const trip = join(tmp.dir, "trip.json");
const KEY = "sk-ant-real-looking-key-123456";

// One model call, then it waits for go.txt (not in a wrapped tool), then a side effect.
// SLOW_TAG=b names its files agentb.pid, gob.txt, effectb.txt.
const SLOW_AGENT = `import Anthropic from "@anthropic-ai/sdk";
import { existsSync, writeFileSync } from "node:fs";
const tag = process.env.SLOW_TAG ?? "";
writeFileSync("agent" + tag + ".pid", String(process.pid));
const reply = await new Anthropic().messages.create({ model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
console.log("first reply:", reply.content[0].text);
while (!existsSync("go" + tag + ".txt")) await new Promise((r) => setTimeout(r, 50));
writeFileSync("effect" + tag + ".txt", "the agent went on");
console.log("agent done");
`;

beforeAll(async () => {
  requireBuild();
  fake = await startFakeProvider();
  cpSync(join(ROOT, "examples", "zero-code"), project, { recursive: true, filter: (f) => !f.endsWith("bookings.log") });
  writeFileSync(join(project, "slow.mjs"), SLOW_AGENT);
  queueTrip();
  const r = await blackbox(["record", "-o", trip, "--", "node", "agent.mjs"], { ANTHROPIC_API_KEY: KEY });
  expect(r.code).toBe(0);
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

const baseEnv = (): Record<string, string | undefined> => ({
  ANTHROPIC_BASE_URL: fake.anthropicUrl,
  ANTHROPIC_API_KEY: undefined,
  OPENAI_API_KEY: undefined,
});

function blackbox(args: string[], env: Record<string, string | undefined> = {}, offline = false) {
  return runProcess(process.execPath, [BIN, ...args], { cwd: project, offline, env: { ...baseEnv(), ...env } });
}

function queueTrip(): void {
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }) },
    { json: anthropicMessage({ toolCalls: [{ name: "book_hotel", input: { city: "Lisbon", nights: 2 } }] }) },
    { json: anthropicMessage({ text: "Booked Lisbon for 2 nights." }) },
  );
}

interface Started {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  /** The CLI process itself has exited (its pipes may still be held by a process it left). */
  exited: Promise<number | null>;
  /** Every holder of its stdout/stderr is gone. */
  closed: Promise<void>;
}

/** The CLI started in the background, with NO_COLOR, in the project folder. */
function startCli(args: string[], env: Record<string, string | undefined> = {}): Started {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: "1", ...baseEnv(), ...env }))
    if (v !== undefined) full[k] = v;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: project, env: full, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (d) => (out.stdout += d));
  child.stderr!.on("data", (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return { child, out, exited, closed };
}

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The process is there and not a zombie (an orphan here is re-parented to an init that does not reap). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

function resetSlow(): void {
  for (const tag of ["", "b"])
    for (const f of [`agent${tag}.pid`, `go${tag}.txt`, `effect${tag}.txt`]) rmSync(join(project, f), { force: true });
}

function agentPid(tag = ""): number {
  return Number(readFileSync(join(project, `agent${tag}.pid`), "utf8"));
}

function killLeftover(): void {
  for (const tag of ["", "b"])
    if (existsSync(join(project, `agent${tag}.pid`)) && alive(agentPid(tag))) process.kill(agentPid(tag), "SIGKILL");
}

test("SIGTERM to blackbox behind `sh -c` reaches the agent: it stops, and its cassette says so", async () => {
  resetSlow();
  fake.enqueue({ json: anthropicMessage({ text: "hello" }) });
  const out = join(tmp.dir, "term.json");
  const cli = startCli(["record", "-o", out, "--", "sh", "-c", "node slow.mjs; echo wrapper went on"], {
    ANTHROPIC_API_KEY: KEY,
  });
  try {
    await until("the first reply", () => cli.out.stdout.includes("first reply: hello"));
    const pid = agentPid();
    cli.child.kill("SIGTERM");
    const code = await cli.exited;
    // Had the agent been left running, this would let it finish its side effect.
    writeFileSync(join(project, "go.txt"), "");
    await new Promise((r) => setTimeout(r, 600));
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(project, "effect.txt"))).toBe(false);
    expect(code).toBe(143);
    await cli.closed;
    expect(cli.out.stdout).not.toContain("wrapper went on");
    expect(cli.out.stderr).toBe("");
    const trace = readCassette(out);
    expect(trace.steps.at(-1)!.payload).toEqual({
      event: "run_failed",
      status: "error",
      reason: "process_exit",
      exitCode: 143,
    });
  } finally {
    killLeftover();
  }
});

test("SIGHUP to blackbox after the first call: a run_failed cassette and exit code 129", async () => {
  resetSlow();
  fake.enqueue({ json: anthropicMessage({ text: "hello" }) });
  const out = join(tmp.dir, "hup.json");
  const cli = startCli(["record", "-o", out, "--", "node", "slow.mjs"], { ANTHROPIC_API_KEY: KEY });
  try {
    await until("the first reply", () => cli.out.stdout.includes("first reply: hello"));
    cli.child.kill("SIGHUP");
    expect(await cli.exited).toBe(129);
    await cli.closed;
    expect(cli.out.stderr).toBe("");
    const trace = readCassette(out);
    expect(trace.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
    expect(trace.steps.at(-1)!.payload).toEqual({
      event: "run_failed",
      status: "error",
      reason: "process_exit",
      exitCode: 129,
    });
  } finally {
    killLeftover();
  }
});

test("an agent left running by a killed blackbox never writes over the newer cassette of the next run", async () => {
  resetSlow();
  fake.enqueue({ json: anthropicMessage({ text: "hello" }) });
  const out = join(tmp.dir, "shared.json");
  const first = startCli(["record", "-o", out, "--", "sh", "-c", "node slow.mjs; true"], { ANTHROPIC_API_KEY: KEY });
  try {
    await until("the first reply", () => first.out.stdout.includes("first reply: hello"));
    const pid = agentPid();
    first.child.kill("SIGKILL"); // nothing can be passed on: the agent is left running, holding its claim
    await first.exited;
    expect(alive(pid)).toBe(true);

    queueTrip();
    const second = await blackbox(["record", "-o", out, "--", "node", "agent.mjs"], { ANTHROPIC_API_KEY: KEY });
    expect(second.stderr).toMatch(DONE_LINE);
    expect(second.code).toBe(0);
    const newer = readFileSync(out, "utf8");

    writeFileSync(join(project, "go.txt"), ""); // the stale agent goes on and ends
    await until("the stale agent's end", () => !alive(pid));
    await first.closed;
    expect(first.out.stdout).toContain("agent done");
    expect(first.out.stderr).toContain(
      `blackbox: not writing the cassette ${out}: process ${pid} no longer holds its claim on it`,
    );
    expect(first.out.stderr).toContain("the file there is left as it is");
    expect(readFileSync(out, "utf8")).toBe(newer);
    expect(toolNames(readCassette(out))).toEqual(["get_weather", "book_hotel"]);
  } finally {
    killLeftover();
    rmSync(join(project, "bookings.log"), { force: true });
  }
});

test("a stale agent that ends while the next run's agent records leaves that run's claim alone", async () => {
  resetSlow();
  fake.enqueue({ json: anthropicMessage({ text: "hello" }) });
  const out = join(tmp.dir, "overlap.json");
  const first = startCli(["record", "-o", out, "--", "sh", "-c", "node slow.mjs; true"], { ANTHROPIC_API_KEY: KEY });
  try {
    await until("the first reply", () => first.out.stdout.includes("first reply: hello"));
    const stale = agentPid();
    first.child.kill("SIGKILL");
    await first.exited;

    fake.enqueue({ json: anthropicMessage({ text: "hello from b" }) });
    const second = startCli(["record", "-o", out, "--", "node", "slow.mjs"], { ANTHROPIC_API_KEY: KEY, SLOW_TAG: "b" });
    await until("the second run's first reply", () => second.out.stdout.includes("first reply: hello from b"));

    writeFileSync(join(project, "go.txt"), ""); // the stale agent ends first: refused, and the lock is not its to release
    await until("the stale agent's end", () => !alive(stale));
    await first.closed;
    expect(first.out.stderr).toContain("no longer holds its claim");

    writeFileSync(join(project, "gob.txt"), "");
    expect(await second.exited).toBe(0);
    await second.closed;
    expect(second.out.stderr).toMatch(DONE_LINE);
    const trace = readCassette(out);
    expect(trace.steps.at(-1)!.payload).toEqual({ event: "run_completed", status: "success", result: "hello from b" });
  } finally {
    killLeftover();
  }
});

test("a bad config: the hook's one line, and nothing guessed after it", async () => {
  const config = join(project, "bad.config.mjs");
  writeFileSync(
    config,
    'export default { tools: [{ module: "./tools.mjs", exports: ["get_weather"] }, { module: "./tools.mjs", exports: ["nope"] }] };\n',
  );
  const out = join(tmp.dir, "bad.json");
  const r = await blackbox(["record", "-o", out, "--config", config, "--", "node", "agent.mjs"], {
    ANTHROPIC_API_KEY: KEY,
  });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^blackbox: .*bad\.config\.mjs: tools\[1\]: .*"nope"/);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).not.toContain("no cassette was written");
  expect(existsSync(out)).toBe(false);

  // A cassette already at the path is kept, and the CLI says so in one short line.
  writeFileSync(out, readFileSync(trip, "utf8"));
  const again = await blackbox(["record", "-o", out, "--config", config, "--", "node", "agent.mjs"], {
    ANTHROPIC_API_KEY: KEY,
  });
  expect(again.code).toBe(2);
  expect(again.stderr).not.toContain("no cassette was written");
  expect(again.stderr.trim().split("\n")[1]).toBe(`blackbox: the cassette already at ${out} was left as it was`);
  expect(readFileSync(out, "utf8")).toBe(readFileSync(trip, "utf8"));
});

test("a refused fork point: the hook's reason, not the SIGKILL guess", async () => {
  const steps = readCassette(trip).steps;
  const call = steps.findIndex((s) => s.type === "tool_call");
  writeFileSync(join(tmp.dir, "none.json"), "[]"); // a script that exists (a missing one is a usage error before anything runs)
  for (const at of [String(call), "99"]) {
    const out = join(tmp.dir, `fork-${at}.json`);
    const r = await blackbox(
      [
        "fork",
        trip,
        "--at",
        at,
        "--set",
        '"rain"',
        "--script",
        join(tmp.dir, "none.json"),
        "-o",
        out,
        "--",
        "npm",
        "start",
      ],
      {},
      true,
    );
    expect(r.code).not.toBe(0); // npm's own code for a script that exited 2
    expect(r.stderr).toContain(
      at === "99" ? "cannot fork at step 99" : `cannot fork a recorded agent at step ${call}: it is a tool_call`,
    );
    expect(r.stderr).not.toContain("no cassette was written");
    expect(r.stderr).not.toContain("SIGKILL");
  }
});

test("an output path that cannot be written: the hook's error after the run, nothing guessed", async () => {
  writeFileSync(join(tmp.dir, "plainfile"), "");
  const out = join(tmp.dir, "plainfile", "run.json");
  queueTrip();
  const r = await blackbox(["record", "-o", out, "--", "node", "agent.mjs"], { ANTHROPIC_API_KEY: KEY });
  expect(r.code).toBe(1);
  expect(r.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(r.stderr).toMatch(/^blackbox: .*plainfile/);
  expect(r.stderr).not.toContain("no cassette was written");
  rmSync(join(project, "bookings.log"), { force: true });
});

test("a write refused because the API key would be in the cassette (the default redaction off): the hook's reason, the old cassette kept and said so", async () => {
  const leaky = `import Anthropic from "@anthropic-ai/sdk";
await new Anthropic().messages.create({ model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "my key is " + process.env.ANTHROPIC_API_KEY }] });
`;
  writeFileSync(join(project, "leaky.mjs"), leaky);
  const out = join(tmp.dir, "leak.json");
  writeFileSync(out, readFileSync(trip, "utf8"));
  fake.enqueue({ json: anthropicMessage({ text: "noted" }) });
  // with the default rules on, the key would be written as <ANTHROPIC_KEY_1> (docs/secrets.md)
  const config = join(tmp.dir, "no-redaction.config.mjs");
  writeFileSync(config, "export default { redact: { defaults: false } };\n");
  const r = await blackbox(["record", "-o", out, "--config", config, "--", "node", "leaky.mjs"], {
    ANTHROPIC_API_KEY: KEY,
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`blackbox: refusing to write ${out}: the cassette would contain the API key`);
  expect(r.stderr).not.toContain("no cassette was written");
  expect(r.stderr.trim().split("\n").at(-1)).toBe(`blackbox: the cassette already at ${out} was left as it was`);
  expect(readFileSync(out, "utf8")).toBe(readFileSync(trip, "utf8"));
});

test("blackbox replay -- <a command that makes no call> fails with a divergence", async () => {
  const r = await blackbox(["replay", trip, "--", process.execPath, "-e", "console.log(1)"], {}, true);
  expect(r.stdout).toBe("1\n");
  expect(r.stderr).toMatch(
    /^blackbox: Replay diverged at step 0 \(model_input\): the command made no model or tool call through Blackbox, but the recording has 3 model call\(s\) and 2 tool call\(s\)/,
  );
  expect(r.code).toBe(1);
});

test("the bare hook: a replay that makes no call fails; one whose child agent makes the calls passes", async () => {
  const env = { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: trip, ANTHROPIC_API_KEY: "placeholder-key-not-sent" };
  const none = await runProcess(process.execPath, ["--import", REGISTER, "-e", "0"], {
    cwd: project,
    env,
    offline: true,
  });
  expect(none.stderr).toMatch(
    /^blackbox: Replay diverged at step 0 \(model_input\): the process \(and any process it started\) made no model or tool call/,
  );
  expect(none.code).toBe(1);

  const parent = "require('node:child_process').execFileSync(process.execPath, ['agent.mjs'], { stdio: 'inherit' })";
  const tree = await runProcess(process.execPath, ["-e", parent], {
    cwd: project,
    env: { ...env, NODE_OPTIONS: `--import ${REGISTER}` },
    offline: true,
  });
  expect(tree.stderr).toBe("");
  expect(tree.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(tree.code).toBe(0);
  expect(existsSync(join(project, "bookings.log"))).toBe(false);

  const npm = await runProcess("npm", ["start"], {
    cwd: project,
    env: { ...env, NODE_OPTIONS: `--import ${REGISTER}` },
    offline: true,
  });
  expect(npm.stderr).toBe("");
  expect(npm.code).toBe(0);

  // and in record mode the child's cassette is the one, with no notice
  queueTrip();
  const out = join(tmp.dir, "bare-tree.json");
  const rec = await runProcess(process.execPath, ["-e", parent], {
    cwd: project,
    env: {
      ...baseEnv(),
      ANTHROPIC_API_KEY: KEY,
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: out,
      NODE_OPTIONS: `--import ${REGISTER}`,
    },
  });
  expect(rec.stderr).toBe("");
  expect(rec.code).toBe(0);
  expect(toolNames(readCassette(out))).toEqual(["get_weather", "book_hotel"]);
  rmSync(join(project, "bookings.log"), { force: true });
});

test("NODE_OPTIONS set by hand: a hooked step that makes no call (a build before the agent) does not fail the run", async () => {
  const env = {
    BLACKBOX_MODE: "replay",
    BLACKBOX_CASSETTE: trip,
    ANTHROPIC_API_KEY: "placeholder-key-not-sent",
    NODE_OPTIONS: `--import ${REGISTER}`,
  };
  const r = await runProcess("sh", ["-c", `${process.execPath} -e 0 && ${process.execPath} agent.mjs`], {
    cwd: project,
    env,
    offline: true,
  });
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(r.code).toBe(0);
});

test("an app's own loader named register.mjs on the command line does not make a process the run's root", async () => {
  writeFileSync(join(project, "register.mjs"), "// the app's own loader\n");
  try {
    const env = {
      BLACKBOX_MODE: "replay",
      BLACKBOX_CASSETTE: trip,
      ANTHROPIC_API_KEY: "placeholder-key-not-sent",
      NODE_OPTIONS: `--import ${REGISTER}`,
    };
    const own = `${process.execPath} --import ./register.mjs`;
    const r = await runProcess("sh", ["-c", `${own} -e 0 && ${own} agent.mjs`], { cwd: project, env, offline: true });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("Booked Lisbon for 2 nights.");
    expect(r.code).toBe(0);
  } finally {
    rmSync(join(project, "register.mjs"), { force: true });
  }
});

test("a command that changes TMPDIR, or runs the agent in a pid namespace of its own, still replays", async () => {
  const other = join(tmp.dir, "other-tmp");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(other, { recursive: true });
  const tmpdirRun = await blackbox(
    ["replay", trip, "--", "env", `TMPDIR=${other}`, process.execPath, "agent.mjs"],
    {},
    true,
  );
  expect(tmpdirRun.stderr).toMatch(DONE_LINE);
  expect(tmpdirRun.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(tmpdirRun.code).toBe(0);
  const pidns = await blackbox(
    ["replay", trip, "--", "unshare", "-p", "-f", "--mount-proc", process.execPath, "agent.mjs"],
    {},
    true,
  );
  expect(pidns.stderr).toMatch(DONE_LINE);
  expect(pidns.stdout).toContain("Booked Lisbon for 2 nights.");
  expect(pidns.code).toBe(0);
  expect(existsSync(join(project, "bookings.log"))).toBe(false);
});

test("a recording with no calls, replayed by a command that makes none, passes", async () => {
  const empty = join(tmp.dir, "empty.json");
  const make = `import(${JSON.stringify(join(ROOT, "dist", "index.js"))}).then(async (m) => { const bb = m.blackbox({ mode: "record", out: ${JSON.stringify(empty)} }); await bb.finish({ result: "nothing to do" }); })`;
  const made = await runProcess(process.execPath, ["-e", make], { cwd: project });
  expect(made.stderr).toBe("");
  expect(readCassette(empty).steps.map((s) => s.type)).toEqual(["metadata"]);
  const cli = await blackbox(["replay", empty, "--", process.execPath, "-e", "0"], {}, true);
  expect(cli.stderr).toBe("");
  expect(cli.code).toBe(0);
  const bare = await runProcess(process.execPath, ["--import", REGISTER, "-e", "0"], {
    cwd: project,
    env: { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: empty },
    offline: true,
  });
  expect(bare.stderr).toBe("");
  expect(bare.code).toBe(0);
});
