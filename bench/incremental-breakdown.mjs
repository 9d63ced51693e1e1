// What bb replay's request handling costs per call, full path vs incremental path, on the
// 200-turn loop of replay-per-call.mjs: parse (JSON.parse + adapter) and compare with the
// recorded model_input, for the request bodies the SDK actually sent. Each of 25 passes
// runs all 201 requests in order through a fresh state (the incremental path needs the
// previous request); the figure is the median over passes of the mean around a turn.
// Run after `npm run build`: node bench/incremental-breakdown.mjs
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blackbox } from "../dist/index.js";
import { loadTraceSync } from "../dist/store/index.js";
import { ToolCallIds } from "../dist/providers/shared/ids.js";
import { anthropicProvider, compareModelInput } from "../dist/providers/index.js";
import { IncrementalRequests } from "../dist/session/incremental.js";
import { shareRecordedHistory } from "../dist/trace/share.js";
import { API_KEY, forecast, recordCassette, runAgent, TURNS } from "./loop.mjs";

const PASSES = 25;
const dir = mkdtempSync(join(tmpdir(), "bbx-incremental-"));
const cassette = join(dir, "loop.json");
await recordCassette(cassette);
const steps = loadTraceSync(cassette).steps;
if (process.env.BENCH_SHARE !== "0") shareRecordedHistory(steps); // as strict replay does at load (BENCH_SHARE=0: not)
const recorded = steps.filter((s) => s.type === "model_input").map((s) => s.payload);

// the request bodies of a replay, as the SDK sent them, and the ids registered between them
const bodies = [];
const bb = blackbox({ mode: "replay", cassette });
const spy = (url, init) => (bodies.push(init.body), bb.fetch(url, init));
const run = await runAgent(
  new Anthropic({ apiKey: API_KEY, fetch: spy, maxRetries: 0 }),
  bb.tools({ get_weather: forecast }),
);
await bb.finish({ result: run.answer });
rmSync(dir, { recursive: true, force: true });

const ms = () => Number(process.hrtime.bigint()) / 1e6;
function pass(step) {
  const ids = new ToolCallIds();
  const per = [];
  const state = { inc: new IncrementalRequests() };
  for (let k = 0; k < bodies.length; k++) {
    const t0 = ms();
    step(state, k, ids);
    per.push(ms() - t0);
    ids.wireIdFor(`call-${k}`); // what the replayed response registers
  }
  return per;
}
const full = (_, k, ids) => {
  const input = anthropicProvider.parseRequest(JSON.parse(bodies[k]), ids).input;
  if (compareModelInput(recorded[k], input)) throw new Error(`full path: request ${k} differs from its recording`);
};
const incremental = (s, k, ids) => {
  const input = s.inc.parse("anthropic", bodies[k], ids).input;
  if (s.inc.compare(recorded[k], input)) throw new Error(`incremental path: request ${k} differs from its recording`);
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const around = (per, at) => per.slice(at - 5, at + 5).reduce((a, b) => a + b, 0) / 10;
const results = { full: [], incremental: [] };
for (let p = 0; p < PASSES + 3; p++) {
  for (const [name, step] of [
    ["full", full],
    ["incremental", incremental],
  ]) {
    const per = pass(step);
    if (p >= 3) results[name].push(per); // 3 warm-up passes
  }
}
console.log(`request handling per replayed call (parse + compare), ms, median of ${PASSES} passes:`);
console.log("path          turn~10  turn~" + (TURNS - 5) + "  growth");
for (const name of ["full", "incremental"]) {
  const early = median(results[name].map((per) => around(per, 10)));
  const late = median(results[name].map((per) => around(per, TURNS - 5)));
  console.log(
    `${name.padEnd(12)}  ${early.toFixed(3).padStart(7)}  ${late.toFixed(3).padStart(8)}  ${(late / early).toFixed(1)}x`,
  );
}
