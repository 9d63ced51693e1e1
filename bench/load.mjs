// Loading a long cassette for replay: read, parse, check the shape and depth, verify the
// hash chain and neutrality. The 200-turn loop of bench/loop.mjs (16 MB: every model_input
// repeats the history), loaded three ways in one process, interleaved:
//   shared  what replay and fork do (src/store/loadVerified.ts): the recorded history
//           shared at parse (src/trace/share.ts), each repeat checked once
//   plain   loadTraceSync + verifyTrace with nothing shared (how it loaded before)
//   floor   the anchor of ../shared/notes/perf-anchors.md ("verify floor"): read the file,
//           JSON.parse it and one SHA-256 pass over its bytes; no check at all
// Run after `npm run build`: node bench/load.mjs
// Env: BENCH_TURNS (default 200), BENCH_ROUNDS (default 7).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTraceSync } from "../dist/store/index.js";
import { loadVerifiedTraceSync } from "../dist/store/loadVerified.js";
import { verifyTrace } from "../dist/trace/verify.js";
import { cpuMs, f2, median, recordCassette, TURNS } from "./loop.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const dir = mkdtempSync(join(tmpdir(), "bbx-bench-load-"));
const cassette = join(dir, "loop.json");
await recordCassette(cassette);

const variants = {
  shared: () => loadVerifiedTraceSync(cassette),
  plain() {
    const trace = loadTraceSync(cassette);
    if (!verifyTrace(trace).ok) throw new Error("bench: the cassette fails verify");
    return trace;
  },
  floor() {
    const text = readFileSync(cassette, "utf8");
    const value = JSON.parse(text);
    createHash("sha256").update(text).digest("hex");
    return value;
  },
};
const names = Object.keys(variants);
for (const n of names) variants[n](); // warm-up, not counted
const cpu = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const i of names.keys()) {
    const name = names[(i + round) % names.length]; // rotate who goes first
    const c0 = cpuMs();
    variants[name]();
    cpu[name].push(cpuMs() - c0);
  }
}
const mb = (statSync(cassette).size / 1e6).toFixed(1);
rmSync(dir, { recursive: true, force: true });

console.log(
  `loading a ${TURNS}-turn loop cassette (${mb} MB), node ${process.version}, ${ROUNDS} interleaved rounds; CPU ms (process user+system), median [rounds]`,
);
for (const n of names) console.log(`${n.padEnd(7)} ${f2(median(cpu[n])).padEnd(8)} [${cpu[n].map(f2).join(" ")}]`);
const ratio = (a, b) => f2(median(cpu[a]) / median(cpu[b]));
console.log(
  `shared/floor ${ratio("shared", "floor")}x   plain/floor ${ratio("plain", "floor")}x   shared/plain ${ratio("shared", "plain")}x`,
);
