import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDemoAgent } from "../../../src/agent/demo.js";
import { assertCassette } from "../../../src/assert.js";
import { saveTrace } from "../../../src/store/index.js";
import type { Trace } from "../../../src/trace/types.js";

let dir: string;
let file: string;
let trace: Trace;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bb-assert-"));
  file = join(dir, "demo.json");
  let t = 1_000;
  trace = await runDemoAgent({ traceId: "demo", now: () => t++ });
  await saveTrace(file, trace);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("assertCassette", () => {
  it("loads, verifies and returns a cassette that meets every expectation", async () => {
    const loaded = await assertCassette(file, {
      status: "success",
      resultContains: "Tram 28",
      result: (trace.steps[10]!.payload as { result: string }).result,
      steps: 11,
    });
    expect(loaded).toEqual(trace);
    await expect(assertCassette(trace)).resolves.toBe(trace);
  });

  it("names every failed expectation, one per line, and says what to do", async () => {
    const error = await assertCassette(file, {
      status: "error",
      reason: "max_steps_exceeded",
      resultContains: "museum",
      steps: 3,
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe(
      [
        `${file} does not meet 4 expectation(s):`,
        `  - status: expected "error", got "success"`,
        `  - result: expected it to contain "museum", got ${JSON.stringify((trace.steps[10]!.payload as { result: string }).result)}`,
        `  - reason: expected "max_steps_exceeded", got nothing (the run succeeded)`,
        `  - steps: expected 3, got 11`,
        "Run `blackbox show` on the cassette to see the run, or re-record it if the agent changed on purpose.",
      ].join("\n"),
    );
  });

  it("refuses a cassette that fails verify before looking at expectations", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, readFileSync(file, "utf8").replace('"sunny"', '"rain"'));
    await expect(assertCassette(bad, { status: "success" })).rejects.toThrow(
      new RegExp(
        `^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} failed verify \\(\\d+ problem\\(s\\)\\):\\n  - steps\\[3\\]\\.hash: hash does not match`,
      ),
    );
  });
});
