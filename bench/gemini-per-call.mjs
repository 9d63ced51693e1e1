// Replay cost per model call for Gemini: a 200-turn tool loop through the real @google/genai
// (`ai.models.generateContent`, one get_weather function call a turn, the contents growing each
// turn, as Google's function-calling guide writes the loop), answered two ways in one process,
// interleaved, after one warm-up run each:
//   bb      bb.fetch replay (strict: each request parsed whole and compared with the recording)
//   floor   an httpOptions.fetch that returns a ready Response and compares nothing
// It also prints which paths bb's request handling took (src/session/incremental.ts stats).
// The SDK is the pinned one of test/fixtures/sdk-versions/gemini (`npm ci` there first).
// Run after `npm run build`: node bench/gemini-per-call.mjs
// Env: BENCH_TURNS (default 200), BENCH_ROUNDS (default 3), BENCH_ONLY=bb,floor.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MockAgent, setGlobalDispatcher } from "undici";
import { blackbox } from "../dist/index.js";
import { createSession, publicSession } from "../dist/blackbox.js";
import { TURNS, cpuMs, f2, forecast, interleavedRounds, mean, median } from "./loop.mjs";

const { GoogleGenAI } =
  await import("../test/fixtures/sdk-versions/gemini/node_modules/@google/genai/dist/node/index.mjs");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const API_KEY = "AIzaSyBenchGeminiKey000000000000000000x";
const CITIES = ["Lisbon", "Porto", "Faro", "Braga", "Coimbra", "Evora", "Madeira", "Sintra"];
const CONFIG = {
  systemInstruction: "You are a weather bot.",
  maxOutputTokens: 1024,
  tools: [
    {
      functionDeclarations: [
        {
          name: "get_weather",
          description: "Today's forecast for a city.",
          parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
    },
  ],
};

const client = (fetch) => new GoogleGenAI({ apiKey: API_KEY, httpOptions: fetch ? { fetch } : {} });

/** Runs the tool loop; returns the wall and CPU time of each generateContent call, in ms. */
async function runAgent(ai, tools) {
  const contents = [{ role: "user", parts: [{ text: `Check the weather ${TURNS} times, then summarise.` }] }];
  const wall = [];
  const cpu = [];
  for (let turn = 0; turn <= TURNS; turn++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    const response = await ai.models.generateContent({ model: "gemini-2.5-flash", contents, config: CONFIG });
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - t0);
    const content = response.candidates[0].content;
    contents.push(content);
    const calls = response.functionCalls ?? [];
    if (calls.length === 0) return { wall, cpu, answer: response.text };
    const parts = [];
    for (const c of calls)
      parts.push({ functionResponse: { name: c.name, response: { output: await tools.get_weather(c.args) } } });
    contents.push({ role: "user", parts });
  }
  throw new Error(`bench agent: no final answer after ${TURNS + 1} calls`);
}

/** The provider's reply to turn `turn` (a GenerateContentResponse). */
function replyBody(turn) {
  const city = CITIES[turn % CITIES.length];
  const parts =
    turn === TURNS
      ? [{ text: `Checked ${TURNS} forecasts.` }]
      : [{ text: `Checking ${city}.` }, { functionCall: { name: "get_weather", args: { city } } }];
  return JSON.stringify({
    candidates: [{ content: { parts, role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 100 + turn, candidatesTokenCount: 20, totalTokenCount: 120 + turn },
    modelVersion: "gemini-2.5-flash",
    responseId: `bench${turn}`,
  });
}
const BODIES = Array.from({ length: TURNS + 1 }, (_, i) => replyBody(i));
const HEADERS = { "content-type": "application/json" };

// recording goes upstream through the global dispatcher: a MockAgent serving the replies in order
let mockTurn = 0;
const mockAgent = new MockAgent();
mockAgent.disableNetConnect();
mockAgent
  .get("https://generativelanguage.googleapis.com")
  .intercept({ path: (p) => p.includes(":generateContent"), method: "POST" })
  .reply(() => ({ statusCode: 200, data: BODIES[mockTurn++], responseOptions: { headers: HEADERS } }))
  .persist();
setGlobalDispatcher(mockAgent);

const dir = mkdtempSync(join(tmpdir(), "bbx-bench-gemini-"));
const cassette = join(dir, "loop.json");
{
  const bb = blackbox({ mode: "record", out: cassette });
  const { answer } = await runAgent(client(bb.fetch), bb.tools({ get_weather: forecast }));
  await bb.finish({ result: answer });
}

let stats;
const variants = {
  bb: async () => {
    const engine = createSession({ mode: "replay", cassette });
    const bb = publicSession(engine);
    stats = engine.requests.stats; // which paths the last run took
    const run = await runAgent(client(bb.fetch), bb.tools({ get_weather: forecast }));
    await bb.finish({ result: run.answer });
    return run;
  },
  floor: async () => {
    let turn = 0;
    const fetch = async () => new Response(BODIES[turn++], { status: 200, headers: HEADERS });
    return runAgent(client(fetch), { get_weather: forecast });
  },
};

const LATE = TURNS - 5;
const { names, med } = await interleavedRounds(variants, ROUNDS, TURNS);
rmSync(dir, { recursive: true, force: true });
console.log(
  `replay per model call: ${TURNS + 1} generateContent calls (${TURNS}-turn tool loop), @google/genai, node ${process.version}, ${ROUNDS} interleaved rounds`,
);
console.log("ms per call (median of rounds; CPU = process user+system time)");
console.log("variant  wall   CPU    CPU@turn~10  CPU@turn~" + LATE);
for (const name of names)
  console.log(
    `${name.padEnd(8)} ${f2(med(name, "wall")).padEnd(6)} ${f2(med(name, "cpu")).padEnd(6)} ${f2(med(name, "early")).padEnd(12)} ${f2(med(name, "late"))}`,
  );
if (stats) console.log(`bb paths (last run): ${JSON.stringify(stats)}`);
if (names.includes("bb") && names.includes("floor")) {
  const ratio = med("bb", "cpu") / med("floor", "cpu");
  console.log(`bb/floor CPU ${f2(ratio)}x (target <= 1.25: ${ratio <= 1.25 ? "ok" : "MISSED"})`);
}
