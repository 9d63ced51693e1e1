/**
 * SIGKILL at random moments of a recording, writes included. A child records runs back
 * to back into one cassette until it is killed; after each kill the target is absent
 * (killed before the first write) or a complete cassette verify accepts (a previous one
 * intact, or the new one). A temp file can be left by a kill during the write (a killed
 * process runs no code); the next save beside the target removes it.
 *
 * Default: a handful of kills. BLACKBOX_LONG=1: 200 (BLACKBOX_KILLS=n to choose).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadTrace, saveTrace, verifyTrace } from "../../src/index.js";
import { ROOT } from "../helpers/child.js";

const LONG = process.env.BLACKBOX_LONG === "1";
const KILLS = Number(process.env.BLACKBOX_KILLS ?? (LONG ? 200 : 5));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the looping recorder, kills it with SIGKILL `ms` after it is ready, returns its pid. */
async function killAfter(out: string, ms: number): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/reliability/faultChild.ts", "none", out, "loop"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const closed = new Promise((r) => child.on("close", r));
  await new Promise<void>((resolve) => {
    child.stdout!.on("data", () => resolve());
    child.on("close", () => resolve());
  });
  await sleep(ms);
  child.kill("SIGKILL");
  await closed;
  return child.pid!;
}

test(
  `SIGKILL at ${KILLS} random moments never leaves a truncated cassette`,
  { timeout: 60_000 + KILLS * 8_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "bbx-sigkill-"));
    const out = join(dir, "run.json");
    const tally = { absent: 0, valid: 0, corrupt: 0, tempLeft: 0 };
    for (let i = 0; i < KILLS; i++) {
      // a run with its ~1 MB write takes ~100-400 ms here: kill before, during or several runs in
      await killAfter(out, Math.floor(Math.random() * 1500));
      const temps = readdirSync(dir).filter((n) => n !== "run.json");
      // the only leftovers allowed: temp files of the killed writer, in the temp-file pattern
      for (const n of temps) expect(n).toMatch(/^\.run\.json\.\d+\.[0-9a-f]{12}\.tmp$/);
      tally.tempLeft += temps.length;
      if (!existsSync(out)) {
        tally.absent++;
        continue;
      }
      const text = readFileSync(out, "utf8");
      let ok = false;
      try {
        ok = verifyTrace(JSON.parse(text)).ok;
      } catch {
        ok = false;
      }
      if (ok) tally.valid++;
      else tally.corrupt++;
      expect(ok, `kill ${i}: ${out} is not a valid cassette (${text.length} chars)`).toBe(true);
    }
    console.log(`sigkill: ${KILLS} kills -> ${JSON.stringify(tally)}`);
    expect(tally.corrupt).toBe(0);
    expect(tally.absent + tally.valid).toBe(KILLS);
    // the next save removes what killed writers left, and keeps a valid cassette
    if (existsSync(out)) await saveTrace(out, await loadTrace(out));
    expect(readdirSync(dir).filter((n) => n !== "run.json")).toEqual([]);
  },
);
