// How a long run grows (issue 26: "a 2,000-turn run records and replays with per-call cost
// flat (last 10% of calls <= 1.2x the first 10%) and memory linear in the cassette").
// A 2,000-turn Anthropic tool loop through the real SDK in one process, three ways, one
// after the other, after a short warm-up of each:
//   direct  the SDK over undici's MockAgent (the provider), nothing of Blackbox
//   record  bb.fetch recording over the same MockAgent, bb.tools(), bb.finish() writing it
//   replay  bb.fetch replaying that cassette, strictly
// The agent sends a window of its last BENCH_WINDOW messages (default 40) as many long-running
// agents do: a loop that resends its whole history makes every request, and the cassette,
// grow with the turns, so that per-call cost cannot be flat for any of the three (the SDK's own
// JSON.stringify of the body grows with it); BENCH_WINDOW=0 sends the whole history.
// Prints, per variant, the mean CPU ms per call of the first and the last 10% of the calls
// (the first 5 calls left out: cold code) and their ratio (target <= 1.2), the same in wall
// time, and the heap (after a full GC) at each tenth of the run.
// Run after `npm run build`: node --expose-gc bench/growth.mjs
// Env: BENCH_TURNS (default 2000), BENCH_WINDOW (default 40).
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MockAgent, setGlobalDispatcher } from "undici";
import { blackbox } from "../dist/index.js";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc bench/growth.mjs");
const TURNS = Number(process.env.BENCH_TURNS ?? 2000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 40);
const TOOLS = [
  {
    name: "get_weather",
    description: "Today's forecast for a city.",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
const CITIES = ["Lisbon", "Porto", "Faro", "Braga", "Coimbra", "Evora", "Madeira", "Sintra"];
const forecast = async ({ city }) => ({
  city,
  forecast: city.length % 2 ? "sunny" : "rain",
  celsius: 15 + city.length,
});

let turn = 0;
function reply(turns) {
  const t = turn++;
  const base = {
    id: `msg_01g${t}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-6",
    stop_sequence: null,
  };
  const usage = { input_tokens: 100 + t, output_tokens: 20 };
  if (t >= turns)
    return { ...base, usage, content: [{ type: "text", text: `Checked ${turns}.` }], stop_reason: "end_turn" };
  const city = CITIES[t % CITIES.length];
  return {
    ...base,
    usage,
    stop_reason: "tool_use",
    content: [
      { type: "text", text: `Checking ${city}.` },
      { type: "tool_use", id: `toolu_01g${t}`, name: "get_weather", input: { city } },
    ],
  };
}
const mock = new MockAgent();
mock.disableNetConnect();
let TURNS_NOW = TURNS;
mock
  .get("https://api.anthropic.com")
  .intercept({ path: (p) => p.startsWith("/v1/messages"), method: "POST" })
  .reply(() => ({
    statusCode: 200,
    data: JSON.stringify(reply(TURNS_NOW)),
    responseOptions: { headers: { "content-type": "application/json" } },
  }))
  .persist();
setGlobalDispatcher(mock);

/** The loop; returns each call's wall ms and the heap (MB, after a full GC) at each tenth. */
async function agent(client, tools, turns) {
  const history = [{ role: "user", content: `Check the weather ${turns} times.` }];
  const wall = [];
  const cpu = [];
  const heap = [];
  for (let k = 0; ; k++) {
    if (k % Math.ceil((turns + 1) / 10) === 0) {
      globalThis.gc();
      heap.push(process.memoryUsage().heapUsed / 1e6);
    }
    const sent = WINDOW > 0 && history.length > WINDOW + 1 ? [history[0], ...history.slice(-WINDOW)] : history;
    // the first user message, then the last WINDOW (an even number starts at an assistant message)
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      tools: TOOLS,
      messages: sent,
    });
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    wall.push(performance.now() - t0);
    history.push({ role: "assistant", content: r.content });
    const uses = r.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) break;
    const results = [];
    for (const u of uses)
      results.push({
        type: "tool_result",
        tool_use_id: u.id,
        content: JSON.stringify(await tools.get_weather(u.input)),
      });
    history.push({ role: "user", content: results });
  }
  globalThis.gc();
  heap.push(process.memoryUsage().heapUsed / 1e6);
  return { wall, cpu, heap };
}

const dir = mkdtempSync(join(tmpdir(), "bbx-bench-growth-"));
const cassette = join(dir, "long.json");
const KEY = "sk-ant-bench-key-0000000000";
const variants = {
  async direct(turns) {
    return agent(new Anthropic({ apiKey: KEY, maxRetries: 0 }), { get_weather: forecast }, turns);
  },
  async record(turns, file = cassette) {
    const bb = blackbox({ mode: "record", out: file });
    const run = await agent(
      new Anthropic({ apiKey: KEY, fetch: bb.fetch, maxRetries: 0 }),
      bb.tools({ get_weather: forecast }),
      turns,
    );
    const t0 = performance.now();
    await bb.finish({ result: "done" });
    return { ...run, finish: performance.now() - t0 };
  },
  async replay(turns, file = cassette) {
    const t0 = performance.now();
    const bb = blackbox({ mode: "replay", cassette: file });
    const load = performance.now() - t0;
    const run = await agent(
      new Anthropic({ apiKey: KEY, fetch: bb.fetch, maxRetries: 0 }),
      bb.tools({ get_weather: forecast }),
      turns,
    );
    await bb.finish({ result: "done" });
    return { ...run, load };
  },
};

// warm-up: a short run of each (its own cassette)
TURNS_NOW = 30;
const warm = join(dir, "warm.json");
for (const name of Object.keys(variants)) {
  turn = 0;
  await variants[name](30, warm);
}
TURNS_NOW = TURNS;
const out = {};
for (const name of Object.keys(variants)) {
  turn = 0;
  out[name] = await variants[name](TURNS);
}
const size = statSync(cassette).size;
rmSync(dir, { recursive: true, force: true });

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f2 = (x) => x.toFixed(2);
console.log(
  `${TURNS}-turn loop (${TURNS + 1} calls), window ${WINDOW || "whole history"}, node ${process.version}; cassette ${(size / 1e6).toFixed(1)} MB; load average ${loadavg().map(f2).join(" ")}`,
);
console.log(
  "CPU ms a call (process user + system; wall swings with the machine's load): mean of the first and the last tenth of the calls",
);
console.log("variant  first 10%  last 10%  last/first  wall first/last  heap MB at each tenth (after a full GC)");
for (const [name, r] of Object.entries(out)) {
  const tenth = Math.floor(r.wall.length / 10);
  // the first tenth of the calls after the first 5 (the first calls meet cold code)
  const first = mean(r.cpu.slice(5, tenth + 5));
  const last = mean(r.cpu.slice(-tenth));
  const wallFirst = mean(r.wall.slice(5, tenth + 5));
  const wallLast = mean(r.wall.slice(-tenth));
  const extra =
    name === "record"
      ? `  finish ${r.finish.toFixed(0)} ms`
      : name === "replay"
        ? `  load ${r.load.toFixed(0)} ms`
        : "";
  console.log(
    `${name.padEnd(8)} ${f2(first).padEnd(10)} ${f2(last).padEnd(9)} ${f2(last / first)}x ${last / first <= 1.2 ? "(met)   " : "(MISSED)"} ${f2(wallFirst)} / ${f2(wallLast)}     ${r.heap.map((h) => h.toFixed(0)).join(" ")}${extra}`,
  );
}
