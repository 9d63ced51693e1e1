// Replay cost per model call: a 200-turn Anthropic tool loop through the real SDK,
// answered three ways in one process, interleaved, 3 measured rounds (after a warm-up):
//   bb     bb.fetch replay (strict: every request normalized and compared)
//   mock   undici MockAgent as the global dispatcher, reply callback, no fetch option
//   floor  a fetch option that returns a ready Response and compares nothing
// Run after `npm run build`: node bench/replay-per-call.mjs  (or: npm run bench)
// Env: BENCH_TURNS (default 200), BENCH_ROUNDS (default 3), BENCH_ONLY=bb|mock|floor (one
// variant, e.g. under node --cpu-prof).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { baseVariants, cpuMs, f2, mean, median, recordCassette, TURNS } from "./loop.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), "bbx-bench-"));
const cassette = join(dir, "loop.json");

const variants = baseVariants(cassette);

// --- measure ---------------------------------------------------------------------------

const around = (xs, at) => mean(xs.slice(Math.max(0, at - 5), at + 5));
const LATE = TURNS - 5;

/** One run of a variant: per-call means, the turn ~10 and ~LATE windows, and the whole run per call. */
async function measure(name) {
  const t0 = performance.now();
  const c0 = cpuMs();
  const { wall, cpu } = await variants[name](); // bb: includes loading the cassette and finish()
  const runWall = performance.now() - t0;
  const runCpu = cpuMs() - c0;
  return {
    wall: mean(wall),
    cpu: mean(cpu),
    early: around(cpu, 10),
    late: around(cpu, LATE),
    runWall: runWall / wall.length,
    runCpu: runCpu / wall.length,
  };
}

await recordCassette(cassette);
const names = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",") : Object.keys(variants);
for (const n of names) if (!variants[n]) throw new Error(`BENCH_ONLY: unknown variant "${n}"; use bb, mock or floor`);
for (const name of names) await variants[name](); // warm-up, not counted

const results = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]); // rotate who goes first
  for (const name of order) results[name].push(await measure(name));
}
rmSync(dir, { recursive: true, force: true });

const med = (name, field) => median(results[name].map((r) => r[field]));
console.log(
  `replay per model call: ${TURNS + 1} calls (${TURNS}-turn tool loop), @anthropic-ai/sdk, node ${process.version}, ${ROUNDS} interleaved rounds`,
);
console.log(
  "ms per messages.create call (median of rounds; wall per round in brackets; CPU = process user+system time)",
);
console.log(
  `variant  wall   [rounds]                 CPU    CPU@turn~10  CPU@turn~${LATE}  growth  whole run/call wall, CPU`,
);
for (const name of names) {
  const rounds = results[name].map((r) => f2(r.wall)).join(" ");
  console.log(
    `${name.padEnd(8)} ${f2(med(name, "wall")).padEnd(6)} [${rounds}]`.padEnd(42) +
      ` ${f2(med(name, "cpu")).padEnd(6)} ${f2(med(name, "early")).padEnd(12)} ${f2(med(name, "late")).padEnd(13)} ${(med(name, "late") / med(name, "early")).toFixed(2)}x`.padEnd(
        8,
      ) +
      `   ${f2(med(name, "runWall"))}, ${f2(med(name, "runCpu"))}`,
  );
}
if (results.bb && results.mock && results.floor) {
  const mark = (ok) => (ok ? "ok" : "MISSED");
  for (const [what, field] of [
    ["wall", "wall"],
    ["CPU", "cpu"],
    ["whole-run CPU", "runCpu"],
  ]) {
    const vsMock = med("bb", field) / med("mock", field);
    const vsFloor = med("bb", field) / med("floor", field);
    console.log(
      `${what.padEnd(14)} bb/MockAgent ${f2(vsMock)}x (target <= 0.6: ${mark(vsMock <= 0.6)})   bb/floor ${f2(vsFloor)}x (target <= 1.25: ${mark(vsFloor <= 1.25)})`,
    );
  }
  const growth = med("bb", "late") / med("bb", "early");
  const floorGrowth = med("floor", "late") / med("floor", "early");
  console.log(
    `bb CPU per call at turn ~${LATE} / turn ~10 = ${f2(growth)}x (target <= 2: ${mark(growth <= 2)}); the floor's own growth: ${f2(floorGrowth)}x`,
  );
}
