// What redaction costs a recording, per model call: the 200-turn Anthropic tool loop recorded
// with bb.fetch (upstream: undici's MockAgent, so the time is Blackbox's and the SDK's), three
// ways in one process, interleaved, after a warm-up:
//   off       redact: false
//   defaults  the default credential detectors (what every recording runs)
//   rules     the defaults plus the e-mail detector and two JSON path rules
// The anchor is `off` in the same run: the ratio is what counts on a noisy machine.
// Run after `npm run build`: node bench/record-redaction.mjs   Env: BENCH_TURNS, BENCH_ROUNDS (default 5).
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { blackbox } from "../dist/index.js";
import { API_KEY, cpuMs, f2, forecast, median, resetMock, runAgent, TURNS } from "./loop.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "bbx-bench-"));
const RULES = {
  off: false,
  defaults: undefined,
  rules: { detect: ["email"], paths: ["toolInput.customer.email", { path: "result.account", tool: "get_weather" }] },
};

async function record(name) {
  resetMock();
  const t0 = performance.now();
  const c0 = cpuMs();
  const bb = blackbox({ mode: "record", out: join(dir, `${name}.json`), redact: RULES[name] });
  const run = await runAgent(
    new Anthropic({ apiKey: API_KEY, fetch: bb.fetch, maxRetries: 0 }),
    bb.tools({ get_weather: forecast }),
  );
  await bb.finish({ result: run.answer });
  return { wall: (performance.now() - t0) / run.wall.length, cpu: (cpuMs() - c0) / run.wall.length };
}

const names = Object.keys(RULES);
for (const n of names) await record(n); // warm-up
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const n of names.map((_, i) => names[(i + round) % names.length])) results[n].push(await record(n));
}
rmSync(dir, { recursive: true, force: true });

const med = (n, f) => median(results[n].map((r) => r[f]));
console.log(
  `record per model call, ${TURNS + 1} calls, node ${process.version}, ${ROUNDS} interleaved rounds (median)`,
);
console.log("variant    wall ms/call  CPU ms/call  CPU vs off");
for (const n of names) {
  console.log(
    `${n.padEnd(10)} ${f2(med(n, "wall")).padStart(12)} ${f2(med(n, "cpu")).padStart(12)} ${(med(n, "cpu") / med("off", "cpu")).toFixed(3).padStart(10)}x`,
  );
}
