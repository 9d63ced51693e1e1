/**
 * `blackbox sweep` as a user types it, on the zero-code example agent (`-- node agent.mjs`
 * under the hook, its tools named in its blackbox.config.ts): scripted offline under
 * `unshare -n` with --verify grading and a re-run that reuses its children, live against
 * a fake provider whose replies follow the tool results, and the usage errors.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { SweepResult, Trace } from "../../src/index.js";
import { diffTraces } from "../../src/index.js";
import { ROOT } from "../helpers/child.js";
import { anthropicMessage, startFakeProvider, toolResultsIn, type FakeProvider } from "../helpers/fakeProvider.js";
import { blackboxCli, readCassette, requireBuild, tempDir } from "./zeroCodeHelpers.js";

/** The example agent's model: the weather, a booking when it is sunny, then how the booking went. */
function respond(request: { body: unknown }) {
  const results = toolResultsIn(request.body);
  if (JSON.stringify(request.body).includes("Compare Lisbon and Porto")) {
    const calls = ["Lisbon", "Porto"].map((city) => ({ name: "get_weather", input: { city } }));
    return { json: anthropicMessage(results.length === 0 ? { toolCalls: calls } : { text: "Compared." }) };
  }
  const parsed = results.map((r) => {
    try {
      return JSON.parse(r) as Record<string, unknown> | null;
    } catch {
      return null;
    }
  });
  if (results.length === 0)
    return { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }) };
  if (results.length === 1) {
    return parsed[0]?.forecast === "sunny"
      ? { json: anthropicMessage({ toolCalls: [{ name: "book_hotel", input: { city: "Lisbon", nights: 2 } }] }) }
      : { json: anthropicMessage({ text: "No sunny city: nothing booked." }) };
  }
  const confirmation = parsed[1]?.confirmation;
  return {
    json: anthropicMessage({
      text: typeof confirmation === "string" ? `Booked ${confirmation}.` : "The booking failed.",
    }),
  };
}

let fake: FakeProvider;
const tmp = tempDir();
const project = join(tmp.dir, "zero-code");
const parent = join(tmp.dir, "trip.json");
const bookings = join(project, "bookings.log");
const KEY = { ANTHROPIC_API_KEY: "sk-ant-real-looking-key-123456" };
const blackbox = (args: string[], offline = false) => blackboxCli(fake, project, args, offline ? {} : KEY, offline);

beforeAll(async () => {
  requireBuild();
  fake = await startFakeProvider({ respond });
  cpSync(join(ROOT, "examples", "zero-code"), project, { recursive: true, filter: (f) => !f.endsWith("bookings.log") });
  const r = await blackboxCli(fake, project, ["record", "-o", parent, "--", "node", "agent.mjs"], KEY);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain("Booked HTL-LIS-2.");
  rmSync(bookings); // the recording booked for real; no child may
  expect(
    readCassette(parent)
      .steps.filter((s) => s.type === "tool_result")
      .map((s) => s.index),
  ).toEqual([3, 7]);
  writeFileSync(join(tmp.dir, "next.json"), JSON.stringify([{ type: "final_answer", text: "Done." }]));
  writeFileSync(join(tmp.dir, "values.json"), JSON.stringify([{ city: "Lisbon", forecast: "snow" }]));
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

const sweepArgs = (out: string, more: string[] = []) => [
  "sweep",
  parent,
  "--variants",
  "empty",
  "--variants",
  join(tmp.dir, "values.json"),
  "-o",
  join(tmp.dir, out),
  ...more,
];

test("scripted, offline: a child per tool result and variant, each verifying and forking where it should, graded by --verify; a re-run reuses them", async () => {
  // passes when the child's cassette is there and the agent answered, for the weather only
  const verify =
    'test -f "$BLACKBOX_SWEEP_CASSETTE" && test "$BLACKBOX_SWEEP_ANSWER" = "Done." && test "$BLACKBOX_SWEEP_AT" = 3 || { echo "not the weather: step $BLACKBOX_SWEEP_AT"; exit 1; }';
  // npm start: npm's own process loads the hook too, and each child still writes one cassette
  const args = sweepArgs("scripted", [
    "--script",
    join(tmp.dir, "next.json"),
    "--verify",
    verify,
    "--json",
    "--",
    "npm",
    "start",
  ]);
  const r = await blackbox(args, true);
  expect(r.stderr).toContain("blackbox: sweep check failed: 2 child(ren) failed --verify\n");
  expect(r.code).toBe(1);
  const result = JSON.parse(r.stdout) as SweepResult;
  expect(result.variants.map((v) => v.name)).toEqual(["empty", '{"city":"Lisbon","forecast":"snow"}']);
  expect(result.cells.map((c) => [c.at, c.status, c.answer, c.grade?.pass])).toEqual([
    [3, "answered", "Done.", true],
    [3, "answered", "Done.", true],
    [7, "answered", "Done.", false],
    [7, "answered", "Done.", false],
  ]);
  expect(result.cells[2]!.grade!.detail).toBe("not the weather: step 7");
  const recorded = readCassette(parent);
  for (const cell of result.cells) {
    const child = readCassette(cell.cassette!) as Trace;
    expect(child.parentId).toBe(recorded.id);
    expect(diffTraces(recorded, child)!.index).toBe(cell.at);
    expect(cell.toolCalls).toEqual([]);
  }
  expect(existsSync(bookings)).toBe(false);
  expect(result.summary.toolsRun).toEqual([]);
  // the sweep file beside the children, paths relative to it
  const file = JSON.parse(readFileSync(join(tmp.dir, "scripted", "sweep.json"), "utf8")) as SweepResult;
  expect(file.cells[0]!.cassette).toBe("trip.at-3.empty.json");

  const again = await blackbox(args, true);
  const reused = JSON.parse(again.stdout) as SweepResult;
  expect(reused.cells.map((c) => c.reused)).toEqual([true, true, true, true]);
  expect(reused.cells.map((c) => c.grade?.pass)).toEqual([true, true, false, false]);
  // another command is another input: nothing is reused
  const other = await blackbox([...args.slice(0, -2), "node", "agent.mjs"], true);
  expect((JSON.parse(other.stdout) as SweepResult).summary.reused).toBe(0);
});

test("live, two at a time: the matrix in the terminal follows each variant; nothing booked", async () => {
  const r = await blackbox(sweepArgs("live", ["--jobs", "2", "--", "node", "agent.mjs"]));
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain("2 tool results x 2 variants (live)");
  const rows = r.stdout.split("\n").filter((l) => /^\d+ (get_weather|book_hotel) /.test(l));
  expect(rows).toHaveLength(2);
  expect(rows[0]).toMatch(/^3 get_weather .*  No sunny city: nothin.*  No sunny city: nothin/);
  expect(rows[1]).toMatch(/^7 book_hotel .*The booking failed\..*The booking failed\./);
  expect(r.stdout).toContain("4 children: 4 answered, 0 failed; 4 model calls made; tools run for real: none");
  expect(r.stderr).toContain("sweep: 4/4 step 7");
  expect(existsSync(bookings)).toBe(false);
});

test("scripted children of a command run no tool: the fork's round from the parent, any other call refused", async () => {
  const agent = readFileSync(join(project, "agent.mjs"), "utf8").replace(
    "Find me a sunny city and book 2 nights.",
    "Compare Lisbon and Porto.",
  );
  writeFileSync(join(project, "compare.mjs"), agent);
  const two = join(tmp.dir, "compare.json");
  const rec = await blackboxCli(fake, project, ["record", "-o", two, "--", "node", "compare.mjs"], KEY);
  expect(rec.code, rec.stderr).toBe(0);
  const recorded = readCassette(two);
  const script = ["--script", join(tmp.dir, "next.json")];
  const args = ["sweep", two, "--at", "3", "--variants", "null", "-o", join(tmp.dir, "compare"), ...script];
  const r = await blackbox([...args, "--json", "--", "node", "compare.mjs"], true);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toContain("run for real");
  const result = JSON.parse(r.stdout) as SweepResult;
  // Porto's weather, the round's other call, is the parent's recorded result
  expect(result.cells[0]!.toolCalls).toEqual([{ name: "get_weather", input: { city: "Porto" }, ran: false }]);
  expect(result.summary.toolsRun).toEqual([]);
  const child = readCassette(result.cells[0]!.cassette!);
  const porto = (s: Trace["steps"][number]) => s.type === "tool_result" && JSON.stringify(s.payload).includes("Porto");
  expect(child.steps.find(porto)!.payload).toEqual(recorded.steps.find(porto)!.payload);

  // a script asking for a tool the round did not record: refused, the tool never runs
  const booking = join(tmp.dir, "book.json");
  writeFileSync(
    booking,
    JSON.stringify([
      { type: "tool_calls", calls: [{ toolName: "book_hotel", toolInput: { city: "Porto", nights: 1 } }] },
      { type: "final_answer", text: "Booked." },
    ]),
  );
  const refused = await blackbox(
    [
      "sweep",
      two,
      "--at",
      "3",
      "--variants",
      "null",
      "-o",
      join(tmp.dir, "refused"),
      "--script",
      booking,
      "--json",
      "--",
      "node",
      "compare.mjs",
    ],
    true,
  );
  const cell = (JSON.parse(refused.stdout) as SweepResult).cells[0]!;
  expect(cell.status).toBe("error");
  expect(cell.failure).toContain(
    'a scripted sweep child runs no tool, and the agent called book_hotel({"city":"Porto","nights":1})',
  );
  expect(existsSync(bookings)).toBe(false);
});

test("a parent that fails verify runs no child: exit 1", async () => {
  const edited = join(tmp.dir, "edited.json");
  writeFileSync(edited, readFileSync(parent, "utf8").replace('"Lisbon"', '"Porto"'));
  const r = await blackbox([
    "sweep",
    edited,
    "--variants",
    "null",
    "-o",
    join(tmp.dir, "edited"),
    "--",
    "node",
    "agent.mjs",
  ]);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(
    `blackbox: the cassette ${edited} fails verify, so no child was run; run \`blackbox verify ${edited}\` for the details\n`,
  );
  expect(existsSync(join(tmp.dir, "edited"))).toBe(false);
});

test("usage errors exit 2 and say what to pass", async () => {
  const bad = await blackbox(["sweep", parent, "--variants", "timeout"]);
  expect(bad.code).toBe(2);
  expect(bad.stderr.trimEnd().split("\n")).toHaveLength(2); // one line, then the usage line
  expect(bad.stderr).toMatch(/\nusage: blackbox sweep \[options\] <cassette> \[command\.\.\.\]/);
  expect(bad.stderr).toMatch(
    /^error: --variants timeout is neither a preset \(error:"timeout", error:"500", empty, null, truncated\) nor a file/,
  );
  const at = await blackbox(["sweep", parent, "--at", "2", "--variants", "null", "--", "node", "agent.mjs"]);
  expect(at.code).toBe(2);
  expect(at.stderr).toMatch(/^error: cannot sweep at step 2 of "trip": it is a tool_call, .*\(3, 7\)/);
  const none = await blackbox(["sweep", parent]);
  expect(none.code).toBe(2);
  expect(none.stderr).toMatch(/^error: sweep needs --variants/);
  const demo = await blackbox(["sweep", parent, "--variants", "null"]);
  expect(demo.code).toBe(2);
  expect(demo.stderr).toMatch(/^error: \S+trip\.json was not recorded by the built-in demo agent, .* -- <command>\n/);
});
