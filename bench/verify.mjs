// `blackbox verify` of a 64 MB cassette against a floor that only reads, parses and
// SHA-256-hashes it (issue 26: verify >= 0.8x the floor's speed, peak RSS <= 2x the file).
// The cassette is the 400-turn loop of bench/loop.mjs (every model_input repeats the
// history, as a long agent's does), recorded once into a temp folder. Each run is a fresh
// process under /usr/bin/time (wall, user + system CPU, peak RSS), the order rotating:
//   floor   node -e: readFileSync(file, "utf8"), JSON.parse, one SHA-256 of the text
//   verify  node bin/blackbox.mjs verify <file>, as a user types it
//   before  the same command of another checkout (BENCH_BEFORE=/path/to/checkout, built)
// Run after `npm run build`: node bench/verify.mjs
// Env: BENCH_ROUNDS (default 7), BENCH_TURNS (default 400), BENCH_CASSETTE (verify this file
// instead of recording one), BENCH_BEFORE, BENCH_OLD_FORMAT=1 (the cassette rewritten as
// JSON.stringify(trace, null, 2) wrote cassettes before this version: 400 turns make 63 MB).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const ROOT = resolve(import.meta.dirname, "..");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
process.env.BENCH_TURNS ??= "580"; // ~64 MB as cassettes are written now (BENCH_OLD_FORMAT=1 with 400 turns: 63 MB)
const dir = mkdtempSync(join(tmpdir(), "bbx-bench-verify-"));
let cassette = process.env.BENCH_CASSETTE;
if (!cassette) {
  cassette = join(dir, "long.json");
  const { recordCassette } = await import("./loop.mjs");
  await recordCassette(cassette);
}
if (process.env.BENCH_OLD_FORMAT === "1") {
  // as JSON.stringify(trace, null, 2) wrote cassettes before (the same value and hashes)
  const old = join(dir, "old-format.json");
  writeFileSync(old, `${JSON.stringify(JSON.parse(readFileSync(cassette, "utf8")), null, 2)}\n`);
  cassette = old;
}
const size = statSync(cassette).size;

const FLOOR =
  `const t=require("fs").readFileSync(process.argv[1],"utf8");const v=JSON.parse(t);` +
  `require("crypto").createHash("sha256").update(t).digest("hex");if(!Array.isArray(v.steps))process.exit(3)`;
const VARIANTS = {
  floor: ["-e", FLOOR, cassette],
  verify: [join(ROOT, "bin", "blackbox.mjs"), "verify", cassette],
};
if (process.env.BENCH_BEFORE)
  VARIANTS.before = [join(resolve(process.env.BENCH_BEFORE), "bin", "blackbox.mjs"), "verify", cassette];
const names = Object.keys(VARIANTS);

/** One process under /usr/bin/time: wall ms (measured here), CPU ms and peak RSS bytes (from time). */
function once(name) {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "BENCH %U %S %M", process.execPath, ...VARIANTS[name]], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const wall = performance.now() - t0;
  const m = /BENCH ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${name} exited ${r.status}: ${r.stderr}${r.stdout}`);
  if (name !== "floor" && !/^ok\s/.test(r.stdout)) throw new Error(`${name}: verify did not pass: ${r.stdout}`);
  return { wall, cpu: (Number(m[1]) + Number(m[2])) * 1000, rss: Number(m[3]) * 1024 };
}

const load0 = loadavg();
for (const n of names) once(n); // warm-up: the file in the OS's cache
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++)
  for (let i = 0; i < names.length; i++) {
    const n = names[(i + round) % names.length];
    results[n].push(once(n));
  }
const load1 = loadavg();
rmSync(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const med = (n, k) => median(results[n].map((r) => r[k]));
const f0 = (x) => x.toFixed(0);
const f2 = (x) => x.toFixed(2);
console.log(
  `verify of a ${(size / 1e6).toFixed(1)} MB cassette, node ${process.version}, ${ROUNDS} rotating rounds; ` +
    `load average before ${load0.map(f2).join(" ")}, after ${load1.map(f2).join(" ")}`,
);
console.log("variant  wall ms median [rounds]                          CPU ms  peak RSS MB  RSS / file");
for (const n of names)
  console.log(
    `${n.padEnd(8)} ${f0(med(n, "wall")).padEnd(5)} [${results[n].map((r) => f0(r.wall)).join(" ")}]`.padEnd(58) +
      ` ${f0(med(n, "cpu")).padEnd(7)} ${f0(med(n, "rss") / 1e6).padEnd(12)} ${f2(med(n, "rss") / size)}x`,
  );
for (const n of names.filter((n) => n !== "floor")) {
  const speed = med("floor", "wall") / med(n, "wall");
  const paired = results[n].map((r, i) => results.floor[i].wall / r.wall);
  const rss = med(n, "rss") / size;
  console.log(
    `${n}: speed ${f2(speed)}x the floor's by wall (target >= 0.8: ${speed >= 0.8 ? "met" : "MISSED"}), ` +
      `${f2(med("floor", "cpu") / med(n, "cpu"))}x by CPU, paired median ${f2(median(paired))}x; ` +
      `peak RSS ${f2(rss)}x the file (target <= 2: ${rss <= 2 ? "met" : "MISSED"})`,
  );
}
