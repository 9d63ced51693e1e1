/**
 * The sweep's plan, reuse, budget, grading and failure cells, on the built-in demo agent
 * (forkRun in this process, no provider): what `sweep()` and `blackbox sweep` share.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { DemoModelClient, demoTools, runDemoAgent } from "../../../src/agent/demo.js";
import { forkRun } from "../../../src/agent/forkRun.js";
import {
  forkPoints,
  planChildren,
  runSweep,
  type ChildSpec,
  type SweepPlan,
  type SweepPorts,
} from "../../../src/agent/sweep.js";
import { readSweepFile } from "../../../src/agent/sweepFile.js";
import { resolveVariants } from "../../../src/agent/sweepVariants.js";
import { loadVerifiedTraceSync } from "../../../src/store/loadVerified.js";
import { saveTraceSync } from "../../../src/store/index.js";
import type { Trace } from "../../../src/trace/types.js";

let parent: Trace;
let dir: string;
const parentPath = () => join(dir, "trip.json");
beforeAll(async () => {
  let t = 1_000;
  parent = await runDemoAgent({ traceId: "trip", now: () => t++ });
  dir = mkdtempSync(join(tmpdir(), "bbx-sweep-unit-"));
  saveTraceSync(parentPath(), parent);
});

const plan = (o: Partial<SweepPlan> & { outDir: string }): SweepPlan => ({
  parentPath: parentPath(),
  parent,
  variants: resolveVariants(["empty", "null"]),
  continueWith: "script",
  inputs: "demo",
  command: null,
  ...o,
});

/** Ports running the demo agent's fork, counting the children run. */
function ports(runs: ChildSpec[] = [], extra: Partial<SweepPorts> = {}): SweepPorts {
  return {
    runChild: async (spec) => {
      runs.push(spec);
      const child = await forkRun(parent, {
        forkIndex: spec.point.at,
        replacement: spec.value,
        client: new DemoModelClient(),
        tools: demoTools,
        traceId: "child",
      });
      saveTraceSync(spec.out, child);
      return {};
    },
    loadChild: (file) => {
      try {
        return loadVerifiedTraceSync(file);
      } catch {
        return undefined;
      }
    },
    ...extra,
  };
}

test("the plan: rows x variants in matrix order, one file each, keyed by what decides the child", () => {
  const { rows, specs } = planChildren(plan({ outDir: join(dir, "p") }));
  expect(rows.map((r) => r.at)).toEqual([3, 7]);
  expect(specs.map((s) => `${s.point.at} ${s.variant.name} ${s.out.split("/").at(-1)}`)).toEqual([
    "3 empty trip.at-3.empty.json",
    "3 null trip.at-3.null.json",
    "7 empty trip.at-7.empty.json",
    "7 null trip.at-7.null.json",
  ]);
  expect(new Set(specs.map((s) => s.key)).size).toBe(4);
  const again = planChildren(plan({ outDir: join(dir, "p") }));
  expect(again.specs.map((s) => s.key)).toEqual(specs.map((s) => s.key));
  const other = planChildren(plan({ outDir: join(dir, "p"), inputs: "another command" }));
  expect(other.specs.every((s, i) => s.key !== specs[i]!.key)).toBe(true);
  expect(() => forkPoints(parent, [2])).toThrow(/cannot sweep at step 2 of "trip": it is a tool_call, .*\(3, 7\)/);
});

describe("reuse", () => {
  test("a child whose inputs did not change is reused; one that no longer verifies, or --fresh, runs again", async () => {
    const outDir = join(dir, "reuse");
    const first: ChildSpec[] = [];
    const a = await runSweep(plan({ outDir }), ports(first));
    expect(first).toHaveLength(4);
    const second: ChildSpec[] = [];
    const b = await runSweep(plan({ outDir }), ports(second));
    expect(second).toHaveLength(0);
    expect(b.cells.map((c) => c.reused)).toEqual([true, true, true, true]);
    expect(b.cells.map((c) => c.answer)).toEqual(a.cells.map((c) => c.answer));
    // an edited child fails verify: it is run again, the rest reused
    const edited = a.cells[1]!.cassette!;
    writeFileSync(edited, readFileSync(edited, "utf8").replace('"Lisbon"', '"Porto"'));
    const third: ChildSpec[] = [];
    const c = await runSweep(plan({ outDir }), ports(third));
    expect(third.map((s) => s.out)).toEqual([edited]);
    expect(c.summary.reused).toBe(3);
    const fresh: ChildSpec[] = [];
    await runSweep(plan({ outDir, fresh: true }), ports(fresh));
    expect(fresh).toHaveLength(4);
  });
});

test("the budget: children start while the calls made are under it, the rest are skipped and the sweep is not ok", async () => {
  const r = await runSweep(plan({ outDir: join(dir, "budget"), maxCalls: 1 }), ports());
  expect(r.cells.map((c) => c.status)).toEqual(["answered", "skipped", "skipped", "skipped"]);
  expect(r.summary.skipped).toBe(3);
  expect(r.ok).toBe(false);
});

test("a child that cannot run is an error cell, not graded; a grade is kept on the cell and in the file", async () => {
  const graded: string[] = [];
  const p = ports([], {
    grade: async (cell) => {
      graded.push(`${cell.at} ${cell.variant}`);
      return { pass: cell.variant === "empty", detail: "checked" };
    },
  });
  const run = p.runChild;
  p.runChild = async (spec) => {
    if (spec.point.at === 7 && spec.variant.name === "null") throw new Error("the agent could not start");
    if (spec.point.at === 7) return { error: "diverged before the fork point" };
    return run(spec);
  };
  const outDir = join(dir, "errors");
  const r = await runSweep(plan({ outDir }), p);
  expect(r.cells.map((c) => [c.status, c.failure ?? null, c.grade?.pass ?? null])).toEqual([
    ["answered", null, true],
    ["answered", null, false],
    ["error", "diverged before the fork point", null],
    ["error", "the agent could not start", null],
  ]);
  expect(graded).toEqual(["3 empty", "3 null"]);
  expect(r.ok).toBe(false);
  const file = readSweepFile(join(outDir, "sweep.json"))!;
  expect(file.cells.map((c) => c.grade ?? null)).toEqual(r.cells.map((c) => c.grade ?? null));
  expect(file.cells[0]!.cassette).toBe(r.cells[0]!.cassette);
});

test("a sweep that stops midway leaves a sweep file with what it did; the re-run reuses that and runs the rest", async () => {
  const outDir = join(dir, "stopped");
  const stop = ports([], {
    progress: (done) => {
      if (done === 2) throw new Error("stopped");
    },
  });
  await expect(runSweep(plan({ outDir }), stop)).rejects.toThrow("stopped");
  const left = readSweepFile(join(outDir, "sweep.json"))!;
  expect(left.ok).toBe(false);
  expect(left.cells.map((c) => c.status)).toEqual(["answered", "answered", "skipped", "skipped"]);
  expect(left.cells[2]!.failure).toContain("the sweep stopped before this child");
  const runs: ChildSpec[] = [];
  const r = await runSweep(plan({ outDir }), ports(runs));
  expect(runs.map((s) => `${s.point.at} ${s.variant.name}`)).toEqual(["7 empty", "7 null"]);
  expect(r.cells.map((c) => c.reused)).toEqual([true, true, false, false]);
  expect(r.ok).toBe(true);
});
