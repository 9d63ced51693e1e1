/**
 * The CLI's contract, table-driven (docs/cli.md, "Exit codes"): every command x {ok, check
 * failed, usage error, missing file, bad JSON in the cassette, unreadable file}, run as a
 * user types it (`node bin/blackbox.mjs ...` on the built dist/), asserting the exit code,
 * which stream says what, and that --json output parses against the command's schema
 * with no field the schema does not name. One trip is recorded against the fake provider
 * and reused; the cells run concurrently, a few at a time. Longer than a file should be: the
 * table is the contract, and it reads in one place.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonSchemas } from "../../src/cli/schemas.js";
import { runCli, type CliResult } from "../helpers/cli.js";
import { ROOT } from "../helpers/child.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { queueTrip, requireBuild, tempDir } from "./zeroCodeHelpers.js";

type Case = "ok" | "check failed" | "usage error" | "missing file" | "bad JSON" | "unreadable file";
const CASES: Case[] = ["ok", "check failed", "usage error", "missing file", "bad JSON", "unreadable file"];
type Name = keyof typeof jsonSchemas | "completion" | "help";
const COMMANDS: Name[] = [
  "record",
  "replay",
  "fork",
  "verify",
  "diff",
  "show",
  "view",
  "redact",
  "sweep",
  "demo",
  "completion",
  "help",
];

interface Cell {
  args: string[];
  code: number;
  /** stdout is this command's --json, checked against its schema. */
  json?: boolean;
  /** The message (stderr for a failure). */
  says?: RegExp;
  /** A usage error found by the command's own process (a config that does not load): no usage line. */
  fromChild?: boolean;
  check?: (r: CliResult, value: unknown) => void;
}
/** A cell that does not apply, and why (the table is still complete). */
type Row = Partial<Record<Case, Cell | string>>;

let fake: FakeProvider;
const tmp = tempDir();
const dir = tmp.dir;
const project = join(dir, "zero-code");
const P = (name: string) => join(dir, name);
let forkAt = -1;
let recorded: CliResult;

/** Runs `cells` a few at a time (2 cores are shared): each child is a node process, most start a second. */
async function pool<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: size }, worker));
  return results;
}

const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(args, {
    cwd: project,
    timeoutMs: 40_000,
    env: { ANTHROPIC_BASE_URL: fake.anthropicUrl, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, ...env },
  });

beforeAll(async () => {
  requireBuild();
  fake = await startFakeProvider();
  cpSync(join(ROOT, "examples", "zero-code"), project, { recursive: true, filter: (f) => !f.endsWith("bookings.log") });
  queueTrip(fake);
  recorded = await cli(["record", "-o", P("trip.json"), "--json", "--", "node", "agent.mjs"], {
    ANTHROPIC_API_KEY: "sk-ant-real-looking-key-123456",
  });
  const trip = readFileSync(P("trip.json"), "utf8");
  // two runs replaying one cassette path at once are refused (one process per cassette): each concurrent replay has its copy
  for (const copy of COPIES) writeFileSync(P(copy), trip);
  writeFileSync(P("tampered.json"), trip.replace("Booked Lisbon for 2 nights.", "Booked Paris for 2 nights."));
  writeFileSync(P("bad.json"), '{"version": 2, "steps": [');
  writeFileSync(join(project, "drift.mjs"), readFileSync(join(project, "agent.mjs"), "utf8").replace("sunny", "rainy"));
  writeFileSync(join(project, "broken.config.mjs"), "export default {{ tools: [] };\n");
  forkAt = (JSON.parse(trip) as { steps: Array<{ type: string }> }).steps.findIndex((s) => s.type === "tool_result");
  writeFileSync(P("script.json"), JSON.stringify([{ type: "final_answer", text: "Rain: no booking." }]));
}, 60_000);
afterAll(async () => {
  await fake?.close();
  tmp.cleanup();
});

const COPIES = [
  "replay-ok.json",
  "replay-drift.json",
  "replay-7.json",
  "without.json",
  "with.json",
  "sweep-ok.json",
  "sweep-graded.json",
];
const FOLDER = () => dir; // a path that exists but cannot be read as a file
const set = '{"city":"Lisbon","forecast":"rain","celsius":9}';
const forkArgs = (cassette: string, out: string) => [
  "fork",
  cassette,
  "--at",
  String(forkAt),
  "--set",
  set,
  "--script",
  P("script.json"),
  "-o",
  out,
  "--json",
  "--",
  "node",
  "agent.mjs",
];

const sweepArgs = (cassette: string, out: string) => [
  "sweep",
  cassette,
  "--at",
  String(forkAt),
  "--variants",
  "null",
  "--script",
  P("script.json"),
  "-o",
  out,
  "--json",
  "--",
  "node",
  "agent.mjs",
];

/** The table. Built lazily: it needs the fork point of the recorded trip. */
function table(): Record<Name, Row> {
  return {
    record: {
      ok: "recorded once in beforeAll and asserted there (the one trip every other cell reuses)",
      "check failed": {
        args: ["record", "-o", P("none.json"), "--json", "--", "node", "-e", "console.log('no agent here')"],
        code: 1,
        json: true,
        says: /no cassette was written to .*none\.json: the command made no model call/,
        check: (r, v) => {
          expect(v).toMatchObject({ ok: false, written: false, run: null, exitCode: 0 });
          expect(r.stderr).toContain("no agent here"); // the command's stdout, kept off the JSON
        },
      },
      "usage error": {
        // commander's suggestion stays on the error's line
        args: ["record", "--jsn", "--", "node", "agent.mjs"],
        code: 2,
        says: /^error: unknown option '--jsn' \(did you mean --json\?\)\n/,
      },
      "missing file": {
        args: ["record", "--config", "nope.config.ts", "--", "node", "agent.mjs"],
        code: 2,
        says: /^error: config .*nope\.config\.ts does not exist; pass the path of a blackbox\.config file/,
      },
      "bad JSON": {
        args: ["record", "-o", P("x.json"), "--config", "broken.config.mjs", "--", "node", "agent.mjs"],
        code: 2,
        fromChild: true,
        says: /^blackbox: .*broken\.config\.mjs/,
      },
      "unreadable file": {
        args: ["record", "--config", FOLDER(), "--", "node", "agent.mjs"],
        code: 2,
        says: /^error: config .* is a folder, not a file/,
      },
    },
    replay: {
      ok: {
        args: ["replay", P("replay-ok.json"), "--json", "--", "node", "agent.mjs"],
        code: 0,
        json: true,
        check: (r, v) => {
          expect(v).toMatchObject({ ok: true, exitCode: 0, divergence: null, run: { modelCalls: 3, toolCalls: 2 } });
          expect(r.stderr).toContain("Booked Lisbon for 2 nights."); // the agent's stdout
        },
      },
      "check failed": {
        args: ["replay", P("replay-drift.json"), "--json", "--", "node", "drift.mjs"],
        code: 1,
        json: true,
        says: /Replay diverged at step 0/,
        check: (_r, v) =>
          expect(v).toMatchObject({
            ok: false,
            divergence: {
              step: 0,
              path: "messages[0].content",
              expected: "Find me a sunny city and book 2 nights.",
              actual: "Find me a rainy city and book 2 nights.",
            },
          }),
      },
      "usage error": {
        args: ["replay", P("trip.json"), "--match", "fuzzy", "--", "node", "agent.mjs"],
        code: 2,
        says: /--match.*fuzzy/,
      },
      "missing file": {
        args: ["replay", P("nope.json"), "--", "node", "agent.mjs"],
        code: 2,
        says: /^error: cassette .*nope\.json does not exist/,
      },
      "bad JSON": {
        args: ["replay", P("bad.json"), "--json", "--", "node", "agent.mjs"],
        code: 2,
        says: /^blackbox: cassette .*bad\.json is not valid JSON/,
      },
      "unreadable file": {
        args: ["replay", FOLDER(), "--", "node", "agent.mjs"],
        code: 2,
        says: /^error: cassette .* is a folder, not a file/,
      },
    },
    fork: {
      ok: {
        args: forkArgs(P("trip.json"), P("fork.json")),
        code: 0,
        json: true,
        check: (_r, v) =>
          expect(v).toMatchObject({
            ok: true,
            written: true,
            at: forkAt,
            set: JSON.parse(set),
            out: P("fork.json"),
            run: { outcome: { status: "success", result: "Rain: no booking." } },
          }),
      },
      "check failed": {
        args: forkArgs(P("tampered.json"), P("fork2.json")),
        code: 1,
        json: true,
        says: /tampered\.json fails verify, so the command was not run/,
        check: (_r, v) => expect(v).toMatchObject({ ok: false, written: false, exitCode: null }),
      },
      "usage error": {
        args: ["fork", P("trip.json"), "--set", "1", "--", "node", "agent.mjs"],
        code: 2,
        says: /required option '--at <N>' not specified/,
      },
      "missing file": {
        args: ["fork", P("nope.json"), "--at", "3", "--set", "1", "--", "node", "agent.mjs"],
        code: 2,
        says: /^error: cassette .*nope\.json does not exist/,
      },
      "bad JSON": {
        args: ["fork", P("bad.json"), "--at", "3", "--set", "1", "--", "node", "agent.mjs"],
        code: 2,
        says: /^blackbox: cassette .*bad\.json is not valid JSON/,
      },
      "unreadable file": {
        args: ["fork", P("trip.json"), "--at", "3", "--set", `@${FOLDER()}`, "--", "node", "agent.mjs"],
        code: 2,
        says: /^error: --set file .* is a folder, not a file/,
      },
    },
    verify: {
      ok: { args: ["verify", "--json", P("trip.json")], code: 0, json: true },
      "check failed": {
        args: ["verify", "--json", P("tampered.json")],
        code: 1,
        json: true,
        check: (_r, v) => expect(v).toMatchObject({ ok: false }),
      },
      "usage error": { args: ["verify", "--bogus", P("trip.json")], code: 2, says: /unknown option '--bogus'/ },
      "missing file": { args: ["verify", "--json", P("nope.json")], code: 2, says: /nope\.json does not exist/ },
      "bad JSON": {
        // for verify, a file that is not a cassette is its verdict, not a usage error
        args: ["verify", "--json", P("bad.json")],
        code: 1,
        json: true,
        check: (_r, v) =>
          expect(v).toMatchObject({ ok: false, results: [{ steps: null, problems: [{ path: "(file)" }] }] }),
      },
      "unreadable file": { args: ["verify", "--json", FOLDER()], code: 2, says: /is a folder, not a file/ },
    },
    diff: {
      ok: { args: ["diff", "--json", P("trip.json"), P("trip.json")], code: 0, json: true },
      "check failed": {
        args: ["diff", "--json", P("trip.json"), P("tampered.json")],
        code: 1,
        json: true,
        check: (_r, v) => expect(v).toMatchObject({ same: false }),
      },
      "usage error": { args: ["diff", P("trip.json")], code: 2, says: /missing required argument 'b'/ },
      "missing file": { args: ["diff", "--json", P("trip.json"), P("nope.json")], code: 2, says: /does not exist/ },
      "bad JSON": { args: ["diff", "--json", P("trip.json"), P("bad.json")], code: 2, says: /is not valid JSON/ },
      "unreadable file": { args: ["diff", P("trip.json"), FOLDER()], code: 2, says: /is a folder, not a file/ },
    },
    show: {
      ok: { args: ["show", "--json", P("trip.json")], code: 0, json: true },
      "check failed": {
        // show has no check of its own: a cassette that fails verify is still shown, with a warning on stderr
        args: ["show", "--json", P("tampered.json")],
        code: 0,
        json: true,
        says: /warning: .*tampered\.json fails verify/,
      },
      "usage error": { args: ["show"], code: 2, says: /missing required argument 'cassette'/ },
      "missing file": { args: ["show", "--json", P("nope.json")], code: 2, says: /does not exist/ },
      "bad JSON": { args: ["show", "--json", P("bad.json")], code: 2, says: /is not valid JSON/ },
      "unreadable file": { args: ["show", FOLDER()], code: 2, says: /is a folder, not a file/ },
    },
    view: {
      ok: {
        args: ["view", "--json", P("trip.json"), "-o", P("page.html")],
        code: 0,
        json: true,
        check: (_r, v) => expect(v).toMatchObject({ out: P("page.html"), runs: 1 }),
      },
      "check failed": "view checks nothing: it writes a page of what it can read",
      "usage error": { args: ["view", P("trip.json"), "--port", "80"], code: 2, says: /--port applies to --serve/ },
      "missing file": { args: ["view", P("nope.json")], code: 2, says: /nope\.json does not exist/ },
      "bad JSON": { args: ["view", P("bad.json"), "-o", P("x.html")], code: 2, says: /is not valid JSON/ },
      "unreadable file": { args: ["view", "/dev/null", "-o", P("x.html")], code: 2, says: /not a regular file/ },
    },
    redact: {
      ok: {
        args: ["redact", "--check", "--json", P("trip.json")],
        code: 0,
        json: true,
        check: (_r, v) => expect(v).toMatchObject({ changedSteps: [], written: false }),
      },
      "check failed": {
        // --check: the rules would change the cassette
        args: ["redact", "--check", "--json", "--value", "Lisbon", P("trip.json")],
        code: 1,
        json: true,
        check: (_r, v) => expect(v).toMatchObject({ out: null, written: false, redacted: { SECRET: 1 } }),
      },
      "usage error": {
        args: ["redact", "--check", "--detect", "bogus", P("trip.json")],
        code: 2,
        says: /"bogus" is not a detector/,
      },
      "missing file": { args: ["redact", "--check", P("nope.json")], code: 2, says: /nope\.json does not exist/ },
      "bad JSON": { args: ["redact", "--check", P("bad.json")], code: 2, says: /is not valid JSON/ },
      "unreadable file": { args: ["redact", "--check", FOLDER()], code: 2, says: /is a directory, not a file/ },
    },
    sweep: {
      ok: {
        args: sweepArgs(P("sweep-ok.json"), P("sweep-ok")),
        code: 0,
        json: true,
        check: (_r, v) =>
          expect(v).toMatchObject({
            ok: true,
            continueWith: "script",
            cells: [{ at: forkAt, variant: "null", status: "answered", answer: "Rain: no booking." }],
          }),
      },
      "check failed": {
        // the grader fails the child
        args: [
          ...sweepArgs(P("sweep-graded.json"), P("sweep-graded")).slice(0, -3),
          "--verify",
          "exit 3",
          "--",
          "node",
          "agent.mjs",
        ],
        code: 1,
        json: true,
        says: /1 child\(ren\) failed --verify/,
        check: (_r, v) => expect(v).toMatchObject({ ok: false, summary: { graded: 1, passed: 0 } }),
      },
      "usage error": { args: ["sweep", P("trip.json")], code: 2, says: /^error: sweep needs --variants/ },
      "missing file": {
        args: ["sweep", P("nope.json"), "--variants", "null"],
        code: 2,
        says: /nope\.json does not exist/,
      },
      "bad JSON": {
        args: ["sweep", P("bad.json"), "--variants", "null"],
        code: 2,
        says: /bad\.json is not valid JSON/,
      },
      "unreadable file": { args: ["sweep", FOLDER(), "--variants", "null"], code: 2, says: /is a folder, not a file/ },
    },
    demo: {
      ok: {
        args: ["demo", "--json", "--dir", P("demo")],
        code: 0,
        json: true,
        check: (_r, v) => expect(v).toMatchObject({ ok: true, divergence: { index: 3 } }),
      },
      "check failed": "the demo checks its own built-in run; a failure is a bug, not an input",
      "usage error": { args: ["demo", "--bogus"], code: 2, says: /unknown option '--bogus'/ },
      "missing file": "demo reads no file",
      "bad JSON": "demo reads no file",
      "unreadable file": "demo reads no file",
    },
    completion: {
      ok: { args: ["completion", "bash"], code: 0, says: /complete -o filenames -o bashdefault -F _blackbox blackbox/ },
      "check failed": "completion prints a script",
      "usage error": { args: ["completion", "tcsh"], code: 2, says: /value 'tcsh' is invalid for argument 'shell'/ },
      "missing file": "completion reads no file",
      "bad JSON": "completion reads no file",
      "unreadable file": "completion reads no file",
    },
    help: {
      ok: { args: ["help", "show"], code: 0, says: /^Usage: blackbox show \[options\] <cassette>/ },
      "check failed": "help prints text",
      "usage error": { args: ["help", "bogus"], code: 2, says: /^error: unknown command 'bogus'/ },
      "missing file": "help reads no file",
      "bad JSON": "help reads no file",
      "unreadable file": "help reads no file",
    },
  };
}

/** The exit code, the streams and the JSON of one cell. */
function assertCell(name: Name, what: Case, cell: Cell, r: CliResult): void {
  const label = `blackbox ${cell.args.join(" ")} (${what})\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  expect(r.code, label).toBe(cell.code);
  expect(r.stderr, label).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack trace from the CLI
  if (cell.code === 2) {
    expect(r.stdout, label).toBe(""); // a usage error prints no result
    if (!cell.fromChild) {
      const lines = r.stderr.trimEnd().split("\n");
      expect(lines, label).toHaveLength(2); // one line, then the usage line, never the whole help
      expect(lines[1], label).toMatch(new RegExp(`^usage: blackbox ${name} \\[options\\]`));
    }
    if (cell.says) expect(r.stderr, label).toMatch(cell.says);
  } else if (cell.json) {
    const value = JSON.parse(r.stdout) as unknown; // stdout is the JSON alone
    const schema = jsonSchemas[name as keyof typeof jsonSchemas];
    // parses, and holds no field the schema does not name (zod drops those)
    expect(schema.parse(value), label).toEqual(value);
    if (cell.says) expect(r.stderr, label).toMatch(cell.says);
    cell.check?.(r, value);
  } else {
    expect(r.stdout, label).not.toBe(""); // the result goes to stdout
    if (cell.says) expect(r.stdout, label).toMatch(cell.says);
  }
  expect(r.stdout, label).not.toContain("\u001b["); // piped: no colour
}

describe("the exit-code contract", () => {
  it("record --json writes the cassette, prints its summary, and keeps the agent's output on stderr", () => {
    expect(recorded.code, recorded.stderr).toBe(0);
    const value = JSON.parse(recorded.stdout) as unknown;
    expect(jsonSchemas.record.parse(value)).toEqual(value);
    expect(value).toMatchObject({
      ok: true,
      written: true,
      cassette: P("trip.json"),
      exitCode: 0,
      run: {
        steps: 11,
        modelCalls: 3,
        toolCalls: 2,
        tools: [
          { name: "get_weather", calls: 1 },
          { name: "book_hotel", calls: 1 },
        ],
        unrecordedTools: [],
        redactions: {},
        outcome: { status: "success", result: "Booked Lisbon for 2 nights." },
      },
    });
    expect(recorded.stderr).toContain("Booked Lisbon for 2 nights.");
  });

  it("every command x every case: exit code, stream, and --json against its schema", async () => {
    const t = table();
    expect(Object.keys(t).sort()).toEqual([...COMMANDS].sort());
    const cells: Array<[Name, Case, Cell]> = [];
    for (const name of COMMANDS) {
      for (const what of CASES) {
        const cell = t[name][what];
        expect(cell, `${name} x ${what}: a cell, or why none applies`).toBeDefined();
        if (typeof cell === "object") cells.push([name, what, cell]);
      }
    }
    const results = await pool(cells, 4, ([, , cell]) => cli(cell.args));
    cells.forEach(([name, what, cell], i) => assertCell(name, what, cell, results[i]!));
  }, 120_000);

  it("the command's own exit code passes through; one that cannot start is said once, 127", async () => {
    const [failing, missing] = await Promise.all([
      cli(["replay", P("replay-7.json"), "--json", "--", "node", "-e", "process.exit(7)"]),
      cli(["replay", P("trip.json"), "--", "no-such-command-xyz"]),
    ]);
    expect(failing.code).toBe(7);
    expect(JSON.parse(failing.stdout)).toMatchObject({ ok: false, exitCode: 7 });
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe(
      'blackbox: cannot run "no-such-command-xyz" (command not found); check the command after --\n',
    );
  });

  it("record -o folder/ writes a named file inside it", async () => {
    queueTrip(fake);
    const r = await cli(["record", "-o", `${P("runs")}/`, "--json", "--", "node", "agent.mjs"], {
      ANTHROPIC_API_KEY: "sk-ant-real-looking-key-123456",
    });
    expect(r.code, r.stderr).toBe(0);
    const files = readdirSync(P("runs"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^record-\d{8}-\d{6}\.json$/);
    expect(JSON.parse(r.stdout)).toMatchObject({ cassette: join(P("runs"), files[0]!), written: true });
  });

  it("replay and fork take --config as record does", async () => {
    // from the folder above the project there is no config to find: the tools are not wrapped, and the replay diverges
    const from = (args: string[], bookings: string) =>
      runCli(args, { cwd: dir, env: { ANTHROPIC_BASE_URL: undefined, BOOKINGS_FILE: P(bookings) } });
    const agent = join(project, "agent.mjs");
    const config = join(project, "blackbox.config.ts");
    const [without, replayed, forked] = await Promise.all([
      from(["replay", P("without.json"), "--", "node", agent], "without.log"),
      from(["replay", P("with.json"), "--config", config, "--", "node", agent], "replay.log"),
      from(
        [...forkArgs(P("trip.json"), P("fork-config.json")).slice(0, -3), "--config", config, "--", "node", agent],
        "fork.log",
      ),
    ]);
    expect(without.code).not.toBe(0);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(forked.code, forked.stderr).toBe(0);
    // the wrapped tool was answered from the cassette: it did not run
    expect(existsSync(P("replay.log"))).toBe(false);
    expect(existsSync(P("fork.log"))).toBe(false);
  }, 60_000);

  it("--json keeps colour off stdout even when FORCE_COLOR asks for it", async () => {
    const r = await cli(["demo", "--json", "--dir", P("demo-color")], { FORCE_COLOR: "1" });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("\u001b[");
    expect(jsonSchemas.demo.parse(JSON.parse(r.stdout))).toBeTruthy();
  });
});
