/**
 * A writer killed between writing its temp file and the rename leaves the temp file;
 * the next save beside the same target removes those of dead processes, and leaves
 * alone a live writer's temp file and other files.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { loadTrace, saveTrace, verifyTrace } from "../../src/index.js";
import { saveTraceSync } from "../../src/store/index.js";
import { TraceBuilder } from "../../src/trace/builder.js";

const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
afterAll(() => {
  live.kill("SIGKILL");
});

function trace() {
  const b = new TraceBuilder({ id: "run", createdAt: 1_700_000_000_000 });
  b.append("metadata", { event: "run_completed", status: "success", result: "ok" }, 1_700_000_000_001);
  return b.trace;
}

test.each([
  ["saveTrace", (f: string) => saveTrace(f, trace())],
  ["saveTraceSync", async (f: string) => saveTraceSync(f, trace())],
])("%s removes temp files of dead writers beside the target only", async (_name, save) => {
  const dir = mkdtempSync(join(tmpdir(), "bbx-stale-"));
  const stale = `.run.json.${deadPid}.0123456789ab.tmp`;
  const liveTemp = `.run.json.${live.pid}.abcdefabcdef.tmp`;
  const otherTarget = `.other.json.${deadPid}.0123456789ab.tmp`;
  for (const n of [stale, liveTemp, otherTarget, "notes.txt"]) writeFileSync(join(dir, n), '{"version": 2, "id": "tru');
  await save(join(dir, "run.json"));
  expect(readdirSync(dir).sort()).toEqual([liveTemp, otherTarget, "notes.txt", "run.json"].sort());
  expect(verifyTrace(await loadTrace(join(dir, "run.json"))).ok).toBe(true);
});
