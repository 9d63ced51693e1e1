import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const F = (name: string): string => join("test", "fixtures", name);
const tmp = mkdtempSync(join(tmpdir(), "bbx-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("blackbox verify", () => {
  it("ok cassettes exit 0", async () => {
    const r = await runCli(["verify", F("basic.json"), F("parallel.json")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `ok    ${F("basic.json")}  (7 steps, hash chain intact)\nok    ${F("parallel.json")}  (10 steps, hash chain intact)\n`,
    );
    expect(r.stderr).toBe("");
  });

  it("a tampered cassette exits 1 and names the step and path", async () => {
    const r = await runCli(["verify", F("basic.json"), F("tampered.json")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `FAIL  ${F("tampered.json")}  1 problem\n  step 3  steps[3].hash: hash does not match the step's content`,
    );
    expect(r.stdout).toContain(`ok    ${F("basic.json")}`);
  });

  it("v1 and non-JSON files are failures with their reason (1); a missing one is a usage error (2)", async () => {
    const broken = join(tmp, "broken.json");
    writeFileSync(broken, '{"version": 2,');
    const r = await runCli(["verify", F("v1.json"), broken]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("is a v1 cassette");
    expect(r.stdout).toMatch(/broken\.json is not valid JSON \(line 1, column 15: unexpected end of input/);
    const missing = await runCli(["verify", F("v1.json"), join(tmp, "missing.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("missing.json does not exist");
  });

  it("a newer version: the same advice as show and diff give", async () => {
    const t = JSON.parse(readFileSync(F("basic.json"), "utf8"));
    t.version = 3;
    const file = join(tmp, "v3.json");
    writeFileSync(file, JSON.stringify(t));
    const r = await runCli(["verify", file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "version: version is 3; this Blackbox reads only version 2. Use the Blackbox release that wrote it, or re-record the run.",
    );
    expect((await runCli(["show", file])).stderr).toContain(
      "Use the Blackbox release that wrote it, or re-record the run.",
    );
  });

  it("--json is stable", async () => {
    const r = await runCli(["verify", "--json", F("tampered.json")]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      ok: false,
      results: [
        {
          file: F("tampered.json"),
          ok: false,
          steps: 7,
          problems: [{ stepIndex: 3, path: "steps[3].hash", message: expect.stringMatching(/^hash does not match/) }],
        },
      ],
    });
  });
});

describe("blackbox diff", () => {
  it("same cassettes exit 0", async () => {
    const r = await runCli(["diff", F("basic.json"), F("basic.json")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'same: 7 steps with the same content and identical hashes; outcome success "It is 21°C and clear in Paris."\n',
    );
    expect(r.stderr).toBe("");
  });

  it("a copy whose payloads were edited and hashes left alone differs (stored hashes are not trusted), with a warning", async () => {
    const demoDir = join(tmp, "diff-demo");
    expect((await runCli(["demo", "--dir", demoDir])).code).toBe(0);
    const trip = join(demoDir, "trip.json");
    const t = JSON.parse(readFileSync(trip, "utf8"));
    t.steps[10].payload.result = "Stay home.";
    t.steps[9].payload.text = "Stay home.";
    const stale = join(tmp, "stale.json");
    writeFileSync(stale, JSON.stringify(t, null, 2));
    const r = await runCli(["diff", trip, stale]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^differ: first divergence at step 9 \(model_output\)\n {2}payload\.text\n/);
    expect(r.stdout).toContain(`    B ${stale}: "Stay home."`);
    expect(
      r.stderr.startsWith(
        `blackbox: warning: B ${stale} fails verify (2 problems; first: step 9 steps[9].hash: hash does not match the step's content (recomputed `,
      ),
    ).toBe(true);
    expect(
      r.stderr.endsWith(
        `). Its steps were compared by content, not by their stored hashes. Run blackbox verify ${stale} to see every problem.\n`,
      ),
    ).toBe(true);
    const json = await runCli(["diff", "--json", trip, stale]);
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({
      same: false,
      divergence: { index: 9, path: "payload.text", b: "Stay home." },
      verify: { a: { ok: true, problems: [] }, b: { ok: false } },
    });
    expect(out.verify.b.problems.map((p: { path: string }) => p.path)).toEqual(["steps[9].hash", "steps[10].hash"]);
    // the same content under the same stored hashes is still "same", with the warning
    const both = await runCli(["diff", stale, stale]);
    expect(both.code).toBe(0);
    expect(both.stdout).toMatch(/^same: 11 steps with the same content; outcome success "Stay home\."/);
    expect(both.stderr).toContain("fails verify");
    expect(both.stderr.trimEnd().split("\n"), "one warning for one file given twice").toHaveLength(1);
  });

  it("a fork differs at its fork point: exit 1, index, type, path, both values, outcomes", async () => {
    const r = await runCli(["diff", F("basic.json"), F("fork-child.json")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        "differ: first divergence at step 3 (tool_result)",
        "  B is a fork of A (run basic) at step 3",
        "  payload.result.sky",
        `    A ${F("basic.json")}: "clear"`,
        `    B ${F("fork-child.json")}: "snow"`,
        "outcome: differs",
        '    A: success "It is 21°C and clear in Paris."',
        '    B: success "It is -5°C and snowing in Paris."',
        "",
      ].join("\n"),
    );
  });

  it("the fork relation is named either way round, and in --json", async () => {
    const r = await runCli(["diff", F("fork-child.json"), F("basic.json")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^differ: first divergence at step 3 \(tool_result\)\n {2}A is a fork of B \(run basic\) at step 3\n {2}payload\.result\.sky\n/,
    );
    const json = JSON.parse((await runCli(["diff", "--json", F("basic.json"), F("fork-child.json")])).stdout);
    expect(json.fork).toEqual({ child: "b", parentId: "basic", forkedFromStepId: "basic:3", at: 3 });
    const none = JSON.parse((await runCli(["diff", "--json", F("basic.json"), F("parallel.json")])).stdout);
    expect(none.fork).toBeNull();
  });

  it("a run that stops early: the step only one run has, in plain words", async () => {
    const t = JSON.parse(readFileSync(F("basic.json"), "utf8"));
    t.steps = t.steps.slice(0, 1);
    const cut = join(tmp, "cut.json");
    writeFileSync(cut, JSON.stringify(t));
    const r = await runCli(["diff", F("basic.json"), cut]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "differ: first divergence at step 1 (model_output in A, (none) in B)\n  step 1 (model_output) exists only in A; B has 1 step\n",
    );
  });

  it("--json gives divergence and outcome", async () => {
    const r = await runCli(["diff", "--json", F("basic.json"), F("failed-process-exit.json")]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.same).toBe(false);
    expect(out.divergence).toMatchObject({
      index: 0,
      typeA: "model_input",
      typeB: "model_input",
      kind: "changed",
      path: "payload.messages[0].content",
    });
    expect(out.outcome).toEqual({
      same: false,
      a: { status: "success", result: "It is 21°C and clear in Paris." },
      b: { status: "error", reason: "process_exit", error: "the process exited with code 3" },
    });
    const same = await runCli(["diff", "--json", F("basic.json"), F("basic.json")]);
    expect(JSON.parse(same.stdout)).toMatchObject({ same: true, divergence: null, outcome: { same: true } });
    expect(same.code).toBe(0);
  });

  it("an unreadable cassette: blackbox: <message>, no stack, exit 2 (as diff(1): 1 means only 'they differ')", async () => {
    const r = await runCli(["diff", F("basic.json"), F("v1.json")]);
    expect(r.code).toBe(2);
    const missing = await runCli(["diff", "--json", F("basic.json"), join(tmp, "missing.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("missing.json does not exist");
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^blackbox: cassette test\/fixtures\/v1\.json is a v1 cassette .* Re-record the run to get a v2 cassette\.\nusage: blackbox diff \[options\] <a> <b> .*\n$/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("blackbox show", () => {
  it("prints the step lines, the fork point and the outcome", async () => {
    const r = await runCli(["show", F("fork-child.json")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "run basic-fork  7 steps, created 2026-01-01T00:01:00.000Z\nforked from basic at basic:3\n",
    );
    expect(r.stdout).toContain("  1   +250ms  model_output   1 tool call: get_weather\n");
    expect(r.stdout).toContain('    tool_call    call-0 get_weather({"city":"Paris"})\n');
    expect(r.stdout).toContain("<- fork point");
    // the fork ran a minute after its parent's recording: time within the run leaves that gap out
    expect(r.stdout).toContain("  4   +750ms  model_input    3 messages, 1 tool\n");
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe('outcome: success "It is -5°C and snowing in Paris."');
    expect(r.stdout).not.toContain("\u001b[");
  });

  it("--json gives rows and the outcome", async () => {
    const r = await runCli(["show", "--json", F("fork-child.json")]);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      id: "basic-fork",
      parentId: "basic",
      forkedFromStepId: "basic:3",
      createdAt: 1767225660000,
      outcome: { status: "success" },
    });
    expect(out.steps[3]).toEqual({
      index: 3,
      type: "tool_result",
      timestamp: 1767225601000,
      elapsedMs: 750,
      nested: true,
      forkPoint: true,
      text: 'call-0 get_weather -> {"tempC":-5,"sky":"snow"}',
    });
  });

  it("a cassette that fails verify is still shown, with a warning on stderr (and verify in --json)", async () => {
    const r = await runCli(["show", F("tampered.json")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^run tampered {2}7 steps/);
    expect(r.stderr).toMatch(
      /^blackbox: warning: test\/fixtures\/tampered\.json fails verify \(1 problem; first: step 3 steps\[3\]\.hash: hash does not match the step's content \(recomputed [0-9a-f]+\.\.\., stored [0-9a-f]+\.\.\.\)\)\. It may not show what was recorded\. Run blackbox verify test\/fixtures\/tampered\.json to see every problem\.\n$/,
    );
    const json = await runCli(["show", "--json", F("tampered.json")]);
    expect(JSON.parse(json.stdout).verify).toMatchObject({
      ok: false,
      problems: [{ stepIndex: 3, path: "steps[3].hash" }],
    });
    const ok = await runCli(["show", "--json", F("basic.json")]);
    expect(ok.stderr).toBe("");
    expect(JSON.parse(ok.stdout).verify).toEqual({ ok: true, problems: [] });
  });

  it("on a terminal, each line fits its width; piped, the output does not depend on it", async () => {
    const { runProcess } = await import("../helpers/child.js");
    // script(1) gives the CLI a real terminal of 60 columns
    const r = await runProcess("script", [
      "-qc",
      `stty cols 60; node bin/blackbox.mjs show ${F("parallel.json")}`,
      "/dev/null",
    ]);
    const lines = r.stdout
      .replace(/\u001b\[[0-9;]*m/g, "")
      .split(/\r?\n/)
      .filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
    expect(lines.some((l) => l.endsWith("..."))).toBe(true);
    const piped = await runCli(["show", F("parallel.json")], { env: { COLUMNS: "60" } });
    expect(piped.stdout.split("\n").some((l) => l.length > 60)).toBe(true);
  });

  it("time since the first step reads as a time: -5ms (clock went back), 2m03s, 34h17m; never +-5ms or +123456.8s", async () => {
    const { TraceBuilder } = await import("../../src/trace/builder.js");
    const b = new TraceBuilder({ id: "times", createdAt: 1 });
    for (const t of [0, 1, 123_400, 123_456_789])
      b.append("model_output", { type: "final_answer", text: "x" }, 1_000_000 + t);
    const file = join(tmp, "times.json");
    const edited = JSON.parse(JSON.stringify(b.trace));
    edited.steps[1].timestamp = 1_000_000 - 5; // an edited cassette: show warns, and still shows it
    writeFileSync(file, JSON.stringify(edited));
    const r = await runCli(["show", file]);
    const times = r.stdout
      .split("\n")
      .slice(1, 5)
      .map((l) => l.trim().split(/\s+/)[1]);
    expect(times).toEqual(["+0ms", "-5ms", "+2m03s", "+34h17m"]);
  });

  it("colour: FORCE_COLOR turns it on, NO_COLOR wins", async () => {
    expect((await runCli(["show", F("basic.json")], { env: { FORCE_COLOR: "1" } })).stdout).toContain("\u001b[");
    expect(
      (await runCli(["show", F("basic.json")], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } })).stdout,
    ).not.toContain("\u001b[");
    expect((await runCli(["verify", F("basic.json")], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } })).stdout).toMatch(
      /^ok {4}/,
    );
  });
});

describe("usage", () => {
  it("--help on every command exits 0", async () => {
    for (const cmd of ["verify", "diff", "show"]) {
      const r = await runCli([cmd, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: blackbox ${cmd} \\[options\\]`));
      expect(r.stdout).toContain("--json");
    }
  });

  it("--version and -V print the package version (as every CLI does)", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const r = await runCli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
  });

  it("replay and fork cannot read - (stdin): they say so and what to do, not that ./- does not exist", async () => {
    for (const args of [
      ["replay", "-"],
      ["fork", "-", "--at", "3", "--set", "1"],
    ]) {
      const r = await runCli(args, { input: readFileSync(F("basic.json")) });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `error: blackbox ${args[0]} reads the cassette from a file, not from stdin (-): save it first, e.g. git show HEAD:runs/trip.json > trip.json`,
      );
      expect(r.stderr).not.toContain("does not exist");
    }
  });

  it("usage errors exit 2 with one line and the command's usage line, not the whole help", async () => {
    const r = await runCli(["diff", F("basic.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: missing required argument 'b'\nusage: blackbox diff [options] <a> <b>  (blackbox diff --help: every option)\n",
    );
    const unknown = await runCli(["verify", "--nope", F("basic.json")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown option '--nope'");
    const cmd = await runCli(["frobnicate"]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain("error: unknown command 'frobnicate'");
  });
});

it("a reader that closes the pipe early ends the CLI quietly (no EPIPE stack trace)", async () => {
  const { runProcess } = await import("../helpers/child.js");
  const { TraceBuilder } = await import("../../src/trace/builder.js");
  const b = new TraceBuilder({ id: "long", createdAt: 1 });
  for (let i = 0; i < 3000; i++)
    b.append("model_output", { type: "final_answer", text: `answer number ${i} `.repeat(4) }, 1000 + i);
  const dir = mkdtempSync(join(tmpdir(), "bbx-epipe-"));
  const file = join(dir, "long.json");
  writeFileSync(file, JSON.stringify(b.trace));
  // show prints far more than a pipe holds; head reads 20 bytes and goes away
  const r = await runProcess("bash", [
    "-c",
    `node bin/blackbox.mjs show ${file} | head -c 20; echo " status=\${PIPESTATUS[0]}" >&2`,
  ]);
  rmSync(dir, { recursive: true, force: true });
  expect(r.stdout.length).toBe(20);
  expect(r.stderr).not.toContain("EPIPE");
  // the trace has no terminal step: show warns that it fails verify, then the status
  expect(r.stderr.trim().split("\n").at(-1)!.trim()).toBe("status=0");
});

describe("blackbox fork --set refuses a value a cassette cannot hold, before anything runs", () => {
  it("the built-in demo: --set with 1e999 (JSON.parse reads Infinity) exits 2 with what to do, no stack", async () => {
    const demoDir = join(tmp, "fork-demo");
    expect((await runCli(["demo", "--dir", demoDir])).code).toBe(0);
    const out = join(demoDir, "child.json");
    const r = await runCli(["fork", join(demoDir, "trip.json"), "--at", "3", "--set", '{"forecast":1e999}', "-o", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'error: --set is not plain JSON: it holds the number Infinity (JSON has no Infinity; a literal like 1e999 reads as Infinity) at forecast, which a cassette cannot store. Use strings, finite numbers, booleans, null, arrays and plain objects (quote a large number as a string, e.g. "1e999").',
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it("a recorded agent: the command never starts, from inline JSON or @file", async () => {
    const marker = join(tmp, "ran.txt");
    const file = join(tmp, "set.json");
    writeFileSync(file, "[1, -1e999]");
    for (const set of ['{"a":1e999}', `@${file}`]) {
      const r = await runCli([
        "fork",
        F("parallel.json"),
        "--at",
        "4",
        "--set",
        set,
        "-o",
        join(tmp, "never.json"),
        "--",
        process.execPath,
        "-e",
        `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /error: --set is not plain JSON: it holds the number -?Infinity .* at (a|\[1\]), which a cassette cannot store/,
      );
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(join(tmp, "never.json"))).toBe(false);
    }
  });
});

describe("blackbox fork -o <the cassette it forks> is refused before anything runs", () => {
  it("the built-in demo and a command: exit 2, the parent unchanged, the command never started", async () => {
    const demoDir = join(tmp, "fork-over");
    expect((await runCli(["demo", "--dir", demoDir])).code).toBe(0);
    const parent = join(demoDir, "trip.json");
    const before = readFileSync(parent, "utf8");
    const marker = join(tmp, "over-ran.txt");
    for (const command of [
      [],
      ["--", process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`],
    ]) {
      const r = await runCli([
        "fork",
        parent,
        "--at",
        "3",
        "--set",
        '{"forecast":"rain"}',
        "-o",
        join(demoDir, ".", "trip.json"),
        ...command,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `error: the fork would write its cassette over the one it forks (${parent}); give it another out file, e.g. ${join(demoDir, "trip.fork.json")}`,
      );
      expect(readFileSync(parent, "utf8")).toBe(before);
      expect(existsSync(marker)).toBe(false);
    }
  });
});

describe("a forgotten cassette before --", () => {
  it("replay and fork say the cassette goes before --, not that `node` does not exist", async () => {
    const r = await runCli(["replay", "--", "node", "agent.mjs"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "error: blackbox replay needs the cassette before --, e.g. blackbox replay runs/trip.json -- node agent.mjs",
    );
    expect(r.stderr).not.toContain("does not exist");
    const f = await runCli(["fork", "--at", "3", "--", "node", "agent.mjs"]);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain("error: blackbox fork needs the cassette before --");
    const missing = await runCli(["replay", "nope.json", "--", "node", "x"]);
    expect(missing.stderr).toMatch(/error: cassette .*nope\.json does not exist; pass the path of a recorded cassette/);
  });
});

describe("text from a cassette reaches the terminal as text, never as control codes", () => {
  // a cassette is data someone may send you: escape sequences (clear the screen, set the
  // window title), a newline that forges a line, C1 controls and bidi overrides
  const nasty = "get_weather\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202e";
  async function nastyTrace(): Promise<{ file: string; other: string }> {
    const { TraceBuilder } = await import("../../src/trace/builder.js");
    const make = (answer: string) => {
      const b = new TraceBuilder({ id: "nasty\u001b[31m", createdAt: 1767225600000 });
      b.append(
        "model_input",
        { messages: [{ role: "user", content: "hi" }], tools: [], model: "m\nforged line" },
        1767225600000,
      );
      b.append(
        "model_output",
        { type: "tool_calls", calls: [{ toolCallId: "call-0", toolName: nasty, toolInput: {} }] },
        1767225600001,
      );
      b.append("tool_call", { toolCallId: "call-0", toolName: nasty, toolInput: {} }, 1767225600002);
      b.append("tool_result", { toolCallId: "call-0", toolName: nasty, error: "boom\u009b2J" }, 1767225600003);
      b.append(
        "metadata",
        { event: "run_failed", status: "error", reason: "agent_error", message: answer },
        1767225600004,
      );
      return b.trace;
    };
    const file = join(tmp, "nasty.json");
    const other = join(tmp, "nasty-other.json");
    writeFileSync(file, JSON.stringify(make("failed\u001b[2J\nforged")));
    writeFileSync(other, JSON.stringify(make("failed \u202eotherwise")));
    return { file, other };
  }
  const unsafe = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it("show: no control character, one line a step", async () => {
    const { file } = await nastyTrace();
    const r = await runCli(["show", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(unsafe);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(1 + 5 + 1); // header, 5 steps, outcome
    expect(lines[0]).toBe("run nasty\\u001b[31m  5 steps, created 2026-01-01T00:00:00.000Z");
    expect(lines[1]).toContain("model m\\nforged line");
    expect(lines[3]).toContain("call-0 get_weather\\u001b[2J\\u001b]0;pwned\\u0007\\u009b31m\\u202e({})");
    expect(lines[6]).toBe("outcome: error failed\\u001b[2J\\nforged");
    const json = await runCli(["show", "--json", file]);
    expect(JSON.parse(json.stdout).steps[1].text).toBe(
      "1 tool call: get_weather\\u001b[2J\\u001b]0;pwned\\u0007\\u009b31m\\u202e",
    );
  });

  it("diff and verify: no control character either", async () => {
    const { file, other } = await nastyTrace();
    const d = await runCli(["diff", file, other]);
    expect(d.code).toBe(1);
    expect(d.stdout + d.stderr).not.toMatch(unsafe);
    expect(d.stdout).toContain("    A: error (agent_error): failed\\u001b[2J\\nforged\n");
    const v = await runCli(["verify", file, other]);
    expect(v.stdout + v.stderr).not.toMatch(unsafe);
  });

  it("a long value is cut between characters, never inside an emoji", async () => {
    const { TraceBuilder } = await import("../../src/trace/builder.js");
    for (let n = 44; n < 50; n++) {
      const b = new TraceBuilder({ id: "emoji", createdAt: 1 });
      b.append("model_output", { type: "final_answer", text: `${"x".repeat(n)}${"😀".repeat(20)}` }, 1);
      const file = join(tmp, `emoji-${n}.json`);
      writeFileSync(file, JSON.stringify(b.trace));
      const r = await runCli(["show", file]);
      expect(r.stdout, `cut after ${n} x`).not.toContain("\uFFFD");
      expect(r.stdout).toContain("😀...");
    }
  });
});
