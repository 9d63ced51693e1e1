// Where bb replay's time goes, piece by piece, on the same 200-turn loop as
// replay-per-call.mjs: the one-time cassette load, then each step a replayed call takes
// inside bb.fetch at turn ~10 and turn ~195. Run after `npm run build`:
//   node bench/replay-breakdown.mjs
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blackbox } from "../dist/index.js";
import { loadTraceSync } from "../dist/store/index.js";
import { ToolCallIds } from "../dist/providers/shared/ids.js";
import { anthropicProvider, compareModelInput } from "../dist/providers/index.js";
import { parseTraceJson } from "../dist/trace/parse.js";
import { checkShape } from "../dist/trace/shape.js";
import { API_KEY, cpuMs, forecast, recordCassette, runAgent, TURNS } from "./loop.mjs";

/**
 * CPU ms per call of fn: the median of 5 batches of at least `batchMs` CPU ms each.
 * CPU time, not wall time, so that other processes on the machine do not inflate it.
 */
function time(fn, batchMs = 60) {
  const per = [];
  for (let b = 0; b < 5; b++) {
    let n = 0;
    const c0 = cpuMs();
    let c = c0;
    while (c - c0 < batchMs) {
      fn();
      n++;
      c = cpuMs();
    }
    per.push((c - c0) / n);
  }
  return per.sort((x, y) => x - y)[2];
}
const f3 = (x) => x.toFixed(3).padStart(8);

const dir = mkdtempSync(join(tmpdir(), "bbx-breakdown-"));
const cassette = join(dir, "loop.json");
await recordCassette(cassette);

// --- the one-time load -----------------------------------------------------------------
const text = readFileSync(cassette, "utf8");
const trace = loadTraceSync(cassette);
console.log(
  `cassette: ${(statSync(cassette).size / 1e6).toFixed(1)} MB, ${trace.steps.length} steps (each model_input holds the whole history)`,
);
console.log("one-time, CPU ms:");
console.log(`  readFileSync            ${f3(time(() => readFileSync(cassette, "utf8"), 300))}`);
console.log(`  JSON.parse              ${f3(time(() => JSON.parse(text), 300))}`);
console.log(`  parseTraceJson          ${f3(time(() => parseTraceJson(text), 300))}   (JSON.parse + v1 check)`);
console.log(`  checkShape (zod)        ${f3(time(() => checkShape(JSON.parse(text)), 300))}   (includes a JSON.parse)`);
console.log(`  loadTraceSync           ${f3(time(() => loadTraceSync(cassette), 300))}`);
console.log(`  blackbox({mode:replay}) ${f3(time(() => blackbox({ mode: "replay", cassette }).dispose(), 300))}`);

// --- the request bodies of a replay, as the SDK sent them -------------------------------
const bodies = [];
const bb = blackbox({ mode: "replay", cassette });
const spy = (url, init) => (bodies.push(init.body), bb.fetch(url, init));
const run = await runAgent(
  new Anthropic({ apiKey: API_KEY, fetch: spy, maxRetries: 0 }),
  bb.tools({ get_weather: forecast }),
);
await bb.finish({ result: run.answer });
const inputs = trace.steps.filter((s) => s.type === "model_input");
const outputs = trace.steps.filter((s) => s.type === "model_output");

// the ids a replay has handed out by then (parseRequest maps them back without adding any)
const ids = new ToolCallIds();
for (let k = 0; k <= TURNS; k++) ids.register(`bbx_call-${k}`, `call-${k}`);

console.log(`per replayed call, CPU ms (the pieces bb.fetch adds to what the floor pays):`);
console.log(`  turn  body KB  JSON.parse  parseRequest  compare  buildResponse+stringify  new Response`);
for (const turn of [10, TURNS - 5]) {
  const body = bodies[turn];
  const json = JSON.parse(body);
  const parsed = anthropicProvider.parseRequest(json, ids);
  const recorded = inputs[turn].payload;
  const d = compareModelInput(recorded, parsed.input);
  if (d)
    throw new Error(
      `breakdown: turn ${turn} does not match its recording at ${d.path}; the bench loop changed, re-check it`,
    );
  const out = outputs[turn].payload;
  const response = JSON.stringify(anthropicProvider.buildResponse(out, parsed, ids, turn));
  console.log(
    `  ${String(turn).padStart(4)}  ${(body.length / 1024).toFixed(1).padStart(7)}` +
      `  ${f3(time(() => JSON.parse(body)))}` +
      `    ${f3(time(() => anthropicProvider.parseRequest(json, ids)))}` +
      `  ${f3(time(() => compareModelInput(recorded, parsed.input)))}` +
      `         ${f3(time(() => JSON.stringify(anthropicProvider.buildResponse(out, parsed, ids, turn))))}` +
      `                ${f3(time(() => new Response(response, { status: 200, headers: { "content-type": "application/json" } })))}`,
  );
}
rmSync(dir, { recursive: true, force: true });
