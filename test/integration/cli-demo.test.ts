/**
 * `blackbox demo` as a user runs it: the built CLI in a child process with no
 * network at all (`unshare -n`), then `blackbox verify` / `diff` on what it left.
 * Needs `npm run build` first (npm test does it).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTrace } from "../../src/store/index.js";
import { ROOT, runProcess, type ChildResult } from "../helpers/child.js";

const BIN = join(ROOT, "bin", "blackbox.mjs");
const blackbox = (args: string[], cwd: string): Promise<ChildResult> =>
  runProcess(process.execPath, [BIN, ...args], { cwd, offline: true });

let work: string;
let demo: ChildResult;
beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist", "cli", "demo.js"))) {
    throw new Error("dist/cli/demo.js is missing: run `npm run build` before this test (npm test builds first).");
  }
  work = mkdtempSync(join(tmpdir(), "bb-demo-"));
  demo = await blackbox(["demo", "--dir", "out"], work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("blackbox demo (offline)", () => {
  it("exits 0 and prints each phase, the fork point and what to try next", () => {
    expect(demo.stderr).toBe("");
    expect(demo.code).toBe(0);
    for (const phase of ["1. Record", "2. Replay", "3. Fork", "4. Diff", "Try next"])
      expect(demo.stdout).toContain(phase);
    expect(demo.stdout).toContain("wrote out/trip.json");
    expect(demo.stdout).toContain("replayed: 11 steps reproduced from the cassette alone");
    expect(demo.stdout).toContain("<- fork point");
    expect(demo.stdout).toContain(
      'first divergence at step 3 (tool_result) payload.result.forecast: "sunny" -> "rain"',
    );
    expect(demo.stdout).toMatch(/so stay outdoors: Tram 28/);
    expect(demo.stdout).toMatch(/so plan indoors and take an umbrella/);
    expect(demo.stdout).toContain("blackbox verify out/trip.json out/trip-rain.json");
    expect(demo.stdout).not.toContain("\u001b["); // NO_COLOR is set by the helper
  });

  it("leaves cassettes that blackbox verify accepts", async () => {
    const r = await blackbox(["verify", "out/trip.json", "out/trip-rain.json"], work);
    expect(r.code, r.stderr).toBe(0);
    const child = await loadTrace(join(work, "out", "trip-rain.json"));
    expect(child).toMatchObject({ parentId: "trip", forkedFromStepId: "trip:3" });
  });

  it("leaves a parent and child that blackbox diff tells apart at the fork point", async () => {
    const r = await blackbox(["diff", "out/trip.json", "out/trip-rain.json"], work);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("first divergence at step 3");
  });

  it("writes to ./blackbox-demo when no --dir is given", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "bb-demo-cwd-"));
    try {
      const r = await blackbox(["demo"], cwd);
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(cwd, "blackbox-demo", "trip.json"))).toBe(true);
      expect(existsSync(join(cwd, "blackbox-demo", "trip-rain.json"))).toBe(true);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
