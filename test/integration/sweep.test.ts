/**
 * sweep() in code, on the real SDKs: a recorded trip (3 tool results) swept with 4 variants,
 * continued live against a fake provider whose replies follow the tool results, and
 * scripted (nothing sent, no tool run); grading, --jobs, reuse and the budget.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blackbox, diffTraces, loadTrace, sweep, verifyTrace, type Session, type Trace } from "../../src/index.js";
import type { SweepCell, SweepResult } from "../../src/index.js";
import { kits, type Kit } from "../helpers/agents.js";
import type { FakeProvider } from "../helpers/fakeProvider.js";
import { startTripProvider, TASK, tripTools } from "./sweepTrip.js";

const VARIANTS = ['error:"timeout"', "empty", "null", "truncated"];
let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startTripProvider();
  dir = mkdtempSync(join(tmpdir(), "bbx-sweep-"));
});
afterAll(() => fake.close());

/** The matrix without what differs between two sweeps of the same inputs (paths, reuse). */
const matrixOf = (r: SweepResult) => r.cells.map(({ cassette: _c, reused: _r, ...rest }) => rest);
const answers = (r: SweepResult) => r.cells.map((c) => `${c.at} ${c.variant}: ${c.status} ${JSON.stringify(c.answer)}`);

describe.each(kits)("$name", (kit: Kit) => {
  const base = () => (kit.name === "anthropic" ? fake.anthropicUrl : fake.openaiUrl);
  const parentPath = () => join(dir, `${kit.name}-trip.json`);
  const counter = { runs: 0 };
  const agent = (session: Session) =>
    kit.run(kit.client(session.fetch, base()), session.tools(tripTools(counter)), { task: TASK, sequential: true });
  let parent: Trace;

  beforeAll(async () => {
    const bb = blackbox({ mode: "record", out: parentPath() });
    expect(await agent(bb)).toBe("Booked HTL-LIS.");
    await bb.finish();
    parent = await loadTrace(parentPath());
    expect(parent.steps.filter((s) => s.type === "tool_result").map((s) => s.index)).toEqual([3, 5, 9]);
  });

  function checkChildren(result: SweepResult) {
    expect(result.cells).toHaveLength(12);
    for (const cell of result.cells) {
      const child = JSON.parse(readFileSync(cell.cassette!, "utf8")) as Trace;
      expect(verifyTrace(child), `${cell.at} ${cell.variant}`).toEqual({ ok: true, problems: [] });
      expect(child.parentId).toBe(parent.id);
      expect(child.forkedFromStepId).toBe(parent.steps[cell.at]!.id);
      expect(diffTraces(parent, child)!.index).toBe(cell.at);
      expect(cell.divergesAt).toBe(cell.at);
      expect((child.steps[cell.at]!.payload as { result: unknown }).result).toEqual(cell.value);
    }
  }

  test("live: 3 tool results x 4 variants = 12 children, the matrix follows what each variant did to the run", async () => {
    const before = fake.requests.length;
    const result = await sweep({
      cassette: parentPath(),
      variants: VARIANTS,
      run: agent,
      out: join(dir, `${kit.name}-live`),
      grade: (cell) => typeof cell.answer === "string" && cell.answer.startsWith("Booked"),
    });
    checkChildren(result);
    expect(result.rows.map((r) => [r.at, r.toolName, r.toolInput])).toEqual([
      [3, "get_weather", { city: "Lisbon" }],
      [5, "get_weather", { city: "Porto" }],
      [9, "book_hotel", { city: "Lisbon" }],
    ]);
    const value = (at: number, v: string) => result.cells.find((c) => c.at === at && c.variant === v)!.value;
    expect(value(3, 'error:"timeout"')).toEqual({ error: "timeout" });
    expect(value(3, "empty")).toEqual({});
    expect(value(3, "null")).toBeNull();
    const text = JSON.stringify({ city: "Lisbon", forecast: "sunny" });
    expect(value(3, "truncated")).toBe(text.slice(0, text.length / 2));
    // Lisbon broken: Porto is booked; Porto broken: Lisbon still is; the booking broken: it failed
    const row = (at: number) => result.cells.filter((c) => c.at === at);
    expect(row(3).map((c) => c.answer)).toEqual(Array(4).fill("Booked HTL-POR."));
    expect(row(5).map((c) => c.answer)).toEqual(Array(4).fill("Booked HTL-LIS."));
    expect(row(9).map((c) => String(c.answer))).toEqual([
      expect.stringMatching(/^Booking failed: .*timeout/),
      "Booking failed: {}",
      "Booking failed: null",
      expect.stringMatching(/^Booking failed: /),
    ]);
    // live: the round's other call (Porto's weather) ran for real, as in any live fork, then the booking
    expect(row(3)[0]!.toolCalls).toEqual([
      { name: "get_weather", input: { city: "Porto" }, ran: true },
      { name: "book_hotel", input: { city: "Porto" }, ran: true },
    ]);
    expect(row(9)[0]!.toolCalls).toEqual([]);
    expect(result.cells.map((c) => c.grade?.pass)).toEqual([...Array(8).fill(true), ...Array(4).fill(false)]);
    expect(result.summary).toMatchObject({ children: 12, answered: 12, graded: 12, passed: 8 });
    expect(result.summary.toolsRun).toEqual(["book_hotel", "get_weather"]);
    expect(result.ok).toBe(false);
    // row 3 and 5: a booking and the answer; row 9: the answer
    expect(fake.requests.length - before).toBe(4 * 2 + 4 * 2 + 4);
    // the sweep file holds the same matrix, paths relative to it
    const file = JSON.parse(readFileSync(join(dir, `${kit.name}-live`, "sweep.json"), "utf8")) as SweepResult;
    expect(file.cells.map((c) => c.cassette)).toEqual(result.cells.map((c) => c.cassette!.split("/").at(-1)));
  });

  test("scripted: every child continues from the script, nothing is sent and no tool runs", async () => {
    const before = fake.requests.length;
    const runs = counter.runs;
    const result = await sweep({
      cassette: parentPath(),
      variants: VARIANTS,
      run: agent,
      script: [{ type: "final_answer", text: "Done." }],
      out: join(dir, `${kit.name}-scripted`),
    });
    checkChildren(result);
    expect(answers(result)).toEqual(result.cells.map((c) => `${c.at} ${c.variant}: answered "Done."`));
    expect(fake.requests.length - before).toBe(0);
    expect(counter.runs - runs).toBe(0);
    expect(result.summary.toolsRun).toEqual([]);
    // at step 3 the round's other call (Porto) is the parent's, answered from its recording
    const at3 = result.cells.find((c) => c.at === 3)!;
    expect(at3.toolCalls).toEqual([{ name: "get_weather", input: { city: "Porto" }, ran: false }]);
    const child = await loadTrace(at3.cassette!);
    expect((child.steps[5]!.payload as { result: unknown }).result).toEqual({ city: "Porto", forecast: "cloudy" });
    // and the next model call carries the variant
    expect(JSON.stringify(child.steps[6]!.payload)).toContain("timeout");
  });

  test("a scripted child whose agent calls a tool the parent did not record is refused, not run", async () => {
    const runs = counter.runs;
    const result = await sweep({
      cassette: parentPath(),
      at: [9],
      variants: ["null"],
      run: agent,
      script: [{ type: "tool_calls", calls: [{ toolName: "book_hotel", toolInput: { city: "Faro" } }] } as never],
      out: join(dir, `${kit.name}-refused`),
    });
    expect(counter.runs - runs).toBe(0);
    expect(result.cells[0]).toMatchObject({ status: "error", cassette: null });
    expect(result.cells[0]!.failure).toContain(
      'a scripted sweep child runs no tool, and the agent called book_hotel({"city":"Faro"})',
    );
  });
});

describe("jobs, reuse and the budget", () => {
  const kit = kits[0]!;
  const agent = (session: Session) =>
    kit.run(kit.client(session.fetch, fake.anthropicUrl), session.tools(tripTools()), { task: TASK, sequential: true });
  const parentPath = () => join(dir, "anthropic-trip.json");
  const run = (o: { jobs?: number; out: string; key?: string; maxCalls?: number }) =>
    sweep({ cassette: parentPath(), variants: VARIANTS, run: agent, ...o, out: join(dir, o.out) });

  test("jobs 4 gives the same matrix as jobs 1", async () => {
    const one = await run({ jobs: 1, out: "jobs-1" });
    const four = await run({ jobs: 4, out: "jobs-4" });
    expect(matrixOf(four)).toEqual(matrixOf(one));
    expect(four.summary.answered).toBe(12);
  });

  test("a re-run with the same key reuses every child and sends nothing; another value runs again", async () => {
    const first = await run({ out: "reuse", key: "v1" });
    const before = fake.requests.length;
    const again = await run({ out: "reuse", key: "v1" });
    expect(fake.requests.length).toBe(before);
    expect(again.cells.every((c: SweepCell) => c.reused)).toBe(true);
    expect(matrixOf(again)).toEqual(matrixOf(first));
    const changed = await sweep({
      cassette: parentPath(),
      at: [9],
      variants: ["empty", { name: "rain", value: { forecast: "rain" } }],
      run: agent,
      out: join(dir, "reuse"),
      key: "v1",
    });
    expect(changed.cells.map((c) => [c.variant, c.reused])).toEqual([
      ["empty", true],
      ["rain", false],
    ]);
  });

  test("the budget: no child starts once the children made maxCalls model calls", async () => {
    const result = await run({ out: "budget", maxCalls: 3 });
    expect(result.cells.map((c) => c.status)).toEqual([...Array(2).fill("answered"), ...Array(10).fill("skipped")]);
    expect(result.cells[2]!.failure).toContain("the budget of 3 model calls was spent");
    expect(result.summary.modelCalls).toBe(4);
    expect(result.ok).toBe(false);
  });
});
