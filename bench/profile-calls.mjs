// A CPU profile of the replayed messages.create calls only (not the cassette load, not
// finish()), summed per function: where the per-call CPU goes. Variants: bb (bb.fetch
// replay), floor (a fetch option returning ready replies), door (replay through the global
// dispatcher, as the register hook does) and mock (undici MockAgent as the global dispatcher).
// Run after `npm run build`: node bench/profile-calls.mjs [bb|floor|door|mock] [runs] [top]
// BENCH_FROM=150 profiles only calls from that turn on (the late, long-history calls);
// BENCH_CALLERS=<function name> also sums that function's self time by its callers.
// Sampled every 100 us: take the top lines as a guide, and confirm with timings.
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installDispatcher } from "../dist/interception/dispatcher/door.js";
import { blackbox } from "../dist/index.js";
import { createSession } from "../dist/blackbox.js";
import { API_KEY, BODIES, HEADERS, forecast, recordCassette, resetMock, TURNS } from "./loop.mjs";

const [variant = "bb", runs = "10", top = "40"] = process.argv.slice(2);
const FROM = Number(process.env.BENCH_FROM ?? 0);
const dir = mkdtempSync(join(tmpdir(), "bbx-profile-"));
const cassette = join(dir, "loop.json");
await recordCassette(cassette);
const inspector = new Session();
inspector.connect();
await inspector.post("Profiler.enable");
await inspector.post("Profiler.setSamplingInterval", { interval: 100 });
const TOOLS = [
  {
    name: "get_weather",
    description: "Today's forecast for a city.",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

/** The loop of bench/loop.mjs, with the profiler on around each call from turn FROM on. */
async function run(client, tools, profile) {
  const messages = [{ role: "user", content: `Check the weather ${TURNS} times, then summarise.` }];
  for (let turn = 0; turn <= TURNS; turn++) {
    const on = profile && turn >= FROM;
    if (on) await inspector.post("Profiler.start");
    const reply = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      system: "You are a weather bot.",
      tools: TOOLS,
      messages,
    });
    if (on) profiles.push((await inspector.post("Profiler.stop")).profile);
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) return reply.content[0].text;
    const results = [];
    for (const u of uses)
      results.push({
        type: "tool_result",
        tool_use_id: u.id,
        content: JSON.stringify(await tools.get_weather(u.input)),
      });
    messages.push({ role: "user", content: results });
  }
}
const profiles = [];
async function once(profile) {
  if (variant === "bb") {
    const bb = blackbox({ mode: "replay", cassette });
    const answer = await run(
      new Anthropic({ apiKey: API_KEY, fetch: bb.fetch, maxRetries: 0 }),
      bb.tools({ get_weather: forecast }),
      profile,
    );
    await bb.finish({ result: answer });
  } else if (variant === "door") {
    const session = createSession({ mode: "replay", cassette });
    const undo = await installDispatcher(session);
    const answer = await run(
      new Anthropic({ apiKey: API_KEY, maxRetries: 0 }),
      session.tools({ get_weather: forecast }),
      profile,
    );
    await session.finish({ result: answer });
    undo();
  } else if (variant === "mock") {
    resetMock();
    await run(new Anthropic({ apiKey: API_KEY, maxRetries: 0 }), { get_weather: forecast }, profile);
  } else {
    let turn = 0;
    const fetch = async () => new Response(BODIES[turn++], { status: 200, headers: HEADERS });
    await run(new Anthropic({ apiKey: API_KEY, fetch, maxRetries: 0 }), { get_weather: forecast }, profile);
  }
}
await once(false);
for (let r = 0; r < Number(runs); r++) await once(true);
rmSync(dir, { recursive: true, force: true });

// Self time per function; BENCH_CALLERS=name also sums that function's self time by its callers' chain.
const self = new Map();
const callers = new Map();
const WHO = process.env.BENCH_CALLERS;
let total = 0;
const label = (cf) => {
  const url = cf.url.replace(/.*node_modules\//, "").replace(/.*\/dist\//, "dist/");
  return `${cf.functionName || "(anonymous)"} ${url}${url ? `:${cf.lineNumber + 1}` : ""}`;
};
for (const p of profiles) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  p.samples.forEach((id, i) => {
    const cf = byId.get(id).callFrame;
    if ((cf.functionName === "dispatch" && cf.url === "") || cf.url === "node:inspector") return; // the profiler's own start/stop
    const key = label(cf);
    const t = p.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + t);
    total += t;
    if (WHO && cf.functionName === WHO) {
      const chain = [];
      for (let q = parent.get(id); q !== undefined && chain.length < 4; q = parent.get(q))
        chain.push(byId.get(q).callFrame.functionName || "(anon)");
      const c = chain.join(" < ");
      callers.set(c, (callers.get(c) ?? 0) + t);
    }
  });
}
const calls = profiles.length;
console.log(
  `${variant}: ${calls} profiled calls (turn >= ${FROM}), ${(total / 1000 / calls).toFixed(3)} ms sampled per call; self time per call, us:`,
);
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
  console.log(`${(t / calls).toFixed(1).padStart(8)}  ${k}`);
if (WHO) console.log(`${WHO} by callers:`);
for (const [k, t] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 10))
  console.log(`${(t / calls).toFixed(1).padStart(8)}  ${k}`);
