/**
 * The reproductions of hostile cassettes (a null among a model output's calls, 5 million
 * steps, a 1-million-character value, a file of `[`, a bidi override in a load error), each
 * run through the CLI as a child process the way a user types it. Memory is held to a
 * 256 MB heap (NODE_OPTIONS), so a command that grows with the hostile part of the file
 * dies here instead of passing. Needs `npm run build`.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { stepHash } from "../../src/trace/canonical.js";
import { runCli, type CliResult } from "../helpers/cli.js";

// not os.tmpdir()/bb-*: the secret scan reads what recordings wrote, and these are no recordings
const dir = mkdtempSync(join(tmpdir(), "hostile-repros-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASIC = "test/fixtures/basic.json";
const base = (): any => JSON.parse(readFileSync(BASIC, "utf8"));
const write = (name: string, value: unknown): string => {
  const file = join(dir, name);
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return file;
};
const SMALL_HEAP = { NO_COLOR: "1", NODE_OPTIONS: "--max-old-space-size=256" };
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function expectNoCrash(r: CliResult, what: string): void {
  expect(r.code, `${what} timed out or was killed:\n${r.stderr.slice(0, 2000)}`).not.toBeNull();
  expect(r.stderr, `${what} printed a stack trace`).not.toMatch(/\n\s+at .+:\d+:\d+|TypeError|FATAL ERROR|heap/);
}

describe("null-tool-call: a model_output whose calls list holds a null", () => {
  const t = base();
  t.steps[1].payload = {
    type: "tool_calls",
    calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Paris" } }, null],
  };
  const file = write("null-call.json", t);

  test("verify and verify --json report it as a schema problem, exit 1, no TypeError", async () => {
    const [text, json] = await Promise.all([
      runCli(["verify", file], { env: SMALL_HEAP }),
      runCli(["verify", file, "--json"], { env: SMALL_HEAP }),
    ]);
    for (const [r, what] of [
      [text, "verify"],
      [json, "verify --json"],
    ] as const) {
      expectNoCrash(r, what);
      expect(r.code, what).toBe(1);
    }
    expect(text.stdout).toContain("steps[1].payload.calls[1]: expected an object, got null");
    const out = JSON.parse(json.stdout) as { ok: boolean; results: Array<{ problems: Array<{ path: string }> }> };
    expect(out.ok).toBe(false);
    expect(out.results[0]!.problems.map((p) => p.path)).toContain("steps[1].payload.calls[1]");
  });

  test("show refuses it with the same problem (exit 2: not a cassette it can read)", async () => {
    const r = await runCli(["show", file], { env: SMALL_HEAP });
    expectNoCrash(r, "show");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("steps[1].payload.calls[1]: expected an object, got null");
  });
});

describe("many-bad-steps: a 10 MB cassette whose steps are 5 million zeros", () => {
  const file = join(dir, "many-steps.json");
  const fd = openSync(file, "w");
  writeSync(fd, '{"version":2,"id":"x","createdAt":1,"steps":[0');
  const chunk = ",0".repeat(1 << 19);
  for (let i = 0; i < 10; i++) writeSync(fd, chunk);
  writeSync(fd, "]}");
  closeSync(fd);

  test.each([["verify"], ["show"], ["diff"]])("%s refuses it at once: the step limit, exit 2", async (command) => {
    const args = command === "diff" ? ["diff", BASIC, file] : [command, file];
    const started = Date.now();
    const r = await runCli(args, { env: SMALL_HEAP });
    expectNoCrash(r, command);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `blackbox: cassette ${file} has more than 100000 steps, the most a cassette may hold, so it is not checked or loaded.`,
    );
    expect(r.stderr).toContain("raise the limit with BLACKBOX_MAX_STEPS");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("deep-brackets: a 30 MB file of [", () => {
  const file = join(dir, "brackets.json");
  writeFileSync(file, "[".repeat(30 * 1024 * 1024));

  test.each([["verify"], ["show"], ["replay"]])("%s says how deep and exits 2, in bounded memory", async (command) => {
    const r = await runCli([command, file], { env: SMALL_HEAP });
    expectNoCrash(r, command);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^blackbox: cassette .*brackets\.json: the value at (\[0\])+\[?\.\.\. is nested more than 256 levels deep; Blackbox cannot check or hash it\. Flatten that data/,
    );
  });
});

describe("huge-quote: step 3's prevHash is a 1-million-character string", () => {
  const t = base();
  t.steps[3].prevHash = "\u00e9".repeat(1e6);
  const file = write("big.json", t);

  test.each([["verify"], ["show"], ["diff"], ["replay"]])("%s prints a few lines, not the value", async (command) => {
    const args = command === "diff" ? ["diff", BASIC, file] : [command, file];
    const r = await runCli(args, { env: SMALL_HEAP });
    expectNoCrash(r, command);
    expect(r.code, r.stderr).toBe(command === "show" ? 0 : 1); // show shows an edited cassette
    expect(r.stderr.length, r.stderr.slice(0, 300)).toBeLessThan(4000);
    if (command !== "show") expect(r.stdout.length, r.stdout.slice(0, 300)).toBeLessThan(4000); // show: the timeline
    expect(r.stdout + r.stderr).toContain("prevHash");
  });
});

test("huge-quote: a replay of the built-in agent whose tool result holds 10 MB reports the divergence in a few lines", async () => {
  const t = base();
  const i = t.steps.findIndex((s: { type: string }) => s.type === "tool_result");
  t.steps[i].payload.result = "x\u202e".repeat(5e6);
  let prev: string | null = null;
  for (const s of t.steps) {
    s.prevHash = prev;
    s.hash = stepHash(s);
    prev = s.hash;
  }
  const r = await runCli(["replay", write("big-result.json", JSON.stringify(t))], { env: SMALL_HEAP });
  expectNoCrash(r, "replay");
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/diverged at step \d+: .*replayed "x\\u202ex\\u202e/);
  expect(r.stderr.length).toBeLessThan(2000);
  expect(r.stderr.replace(/\n/g, "")).not.toMatch(UNSAFE);
});

describe("bidi-in-load-error: a bidi override, a C1 control and U+2028 in a field the schema refuses", () => {
  const t = base();
  t.steps[0].payload.messages[0].role = "user\u202egnp.exe\u202c\u0085\u2028";
  const file = write("bad.json", t);
  const commands = [
    ["verify", file],
    ["verify", file, "--json"],
    ["show", file],
    ["show", file, "--json"],
    ["diff", BASIC, file],
    ["replay", file],
    ["fork", file, "--at", "3", "-o", join(dir, "fork-out.json")],
    ["view", file, "-o", join(dir, "view.html")],
  ];

  test.each(commands.map((c) => [c.join(" ").replace(dir, "$DIR"), c]))("%s prints it escaped", async (_name, args) => {
    const r = await runCli(args as string[], { env: SMALL_HEAP });
    expectNoCrash(r, String(args[0]));
    const out = r.stdout + r.stderr;
    expect(out, "the role is quoted").toMatch(/user\\{1,2}u202egnp\.exe\\{1,2}u202c\\{1,2}u0085\\{1,2}u2028/);
    expect(out.replace(/\n/g, "")).not.toMatch(UNSAFE);
  });
});
