// Replay cost per model call for the OpenAI Responses API: a 200-turn tool loop through the
// real openai SDK (`client.responses.create`, one get_weather call a turn, the history
// growing each turn), its history sent whole each call or chained on previous_response_id,
// answered two ways in one process, interleaved, after one warm-up run each:
//   bb          bb.fetch replay (strict: each request expanded, parsed and compared)
//   floor       a fetch option that returns a ready Response and compares nothing
//   bb-chained, floor-chained   the same, the agent sending previous_response_id and its new items
// It also prints which paths bb's request handling took (src/session/incremental.ts stats).
// Both histories replay one cassette (a chained run records what the whole-history run does).
// Run after `npm run build`: node bench/responses-per-call.mjs
// Env: BENCH_TURNS (default 200), BENCH_ROUNDS (default 3), BENCH_ONLY=bb,floor,bb-chained,floor-chained.
import OpenAI from "openai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MockAgent, setGlobalDispatcher } from "undici";
import { blackbox } from "../dist/index.js";
import { createSession, publicSession } from "../dist/blackbox.js";
import { TURNS, cpuMs, f2, forecast, interleavedRounds, mean, median } from "./loop.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const API_KEY = "sk-bench-responses-0000000000";
const CITIES = ["Lisbon", "Porto", "Faro", "Braga", "Coimbra", "Evora", "Madeira", "Sintra"];
const TOOLS = [
  {
    type: "function",
    name: "get_weather",
    description: "Today's forecast for a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: false,
  },
];

/** Runs the tool loop; returns the wall and CPU time of each responses.create call, in ms. */
async function runAgent(client, tools, chained) {
  const history = [{ role: "user", content: `Check the weather ${TURNS} times, then summarise.` }];
  let pending = history;
  let previous;
  const wall = [];
  const cpu = [];
  for (let turn = 0; turn <= TURNS; turn++) {
    const base = { model: "gpt-4.1", instructions: "You are a weather bot.", tools: TOOLS, max_output_tokens: 1024 };
    const body =
      chained && previous
        ? { ...base, previous_response_id: previous.id, input: pending }
        : { ...base, input: history };
    const t0 = performance.now();
    const c0 = cpuMs();
    const reply = await client.responses.create(body);
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - t0);
    const calls = reply.output.filter((i) => i.type === "function_call");
    if (calls.length === 0) return { wall, cpu, answer: reply.output_text };
    const outputs = [];
    for (const c of calls)
      outputs.push({
        type: "function_call_output",
        call_id: c.call_id,
        output: JSON.stringify(await tools.get_weather(JSON.parse(c.arguments))),
      });
    history.push(...reply.output, ...outputs);
    pending = outputs;
    previous = reply;
  }
  throw new Error(`bench agent: no final answer after ${TURNS + 1} calls`);
}

/** The provider's reply to turn `turn` (Responses API JSON). */
function replyBody(turn) {
  const message = (text) => ({
    id: `msg_bench${turn}`,
    type: "message",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
  });
  const city = CITIES[turn % CITIES.length];
  const output =
    turn === TURNS
      ? [message(`Checked ${TURNS} forecasts.`)]
      : [
          message(`Checking ${city}.`),
          {
            id: `fc_bench${turn}`,
            type: "function_call",
            status: "completed",
            call_id: `call_bench${turn}`,
            name: "get_weather",
            arguments: JSON.stringify({ city }),
          },
        ];
  return JSON.stringify({
    id: `resp_bench${turn}`,
    object: "response",
    created_at: 1_760_000_000,
    status: "completed",
    error: null,
    incomplete_details: null,
    model: "gpt-4.1-2025-04-14",
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: { input_tokens: 100 + turn, output_tokens: 20, total_tokens: 120 + turn },
  });
}
const BODIES = Array.from({ length: TURNS + 1 }, (_, i) => replyBody(i));
const HEADERS = { "content-type": "application/json", "x-request-id": "req_bench" };

// recording goes upstream through the global dispatcher: a MockAgent serving the replies in order
let mockTurn = 0;
const mockAgent = new MockAgent();
mockAgent.disableNetConnect();
mockAgent
  .get("https://api.openai.com")
  .intercept({ path: (p) => p.startsWith("/v1/responses"), method: "POST" })
  .reply(() => ({ statusCode: 200, data: BODIES[mockTurn++], responseOptions: { headers: HEADERS } }))
  .persist();
setGlobalDispatcher(mockAgent);

const dir = mkdtempSync(join(tmpdir(), "bbx-bench-responses-"));
const cassette = join(dir, "loop.json");
{
  const bb = blackbox({ mode: "record", out: cassette });
  const { answer } = await runAgent(
    new OpenAI({ apiKey: API_KEY, fetch: bb.fetch, maxRetries: 0 }),
    bb.tools({ get_weather: forecast }),
    false,
  );
  await bb.finish({ result: answer });
}

const stats = {};
const replay = (chained) => async () => {
  const engine = createSession({ mode: "replay", cassette });
  const bb = publicSession(engine);
  stats[chained ? "bb-chained" : "bb"] = engine.requests.stats; // which paths the last run took
  const run = await runAgent(
    new OpenAI({ apiKey: API_KEY, fetch: bb.fetch, maxRetries: 0 }),
    bb.tools({ get_weather: forecast }),
    chained,
  );
  await bb.finish({ result: run.answer });
  return run;
};
const floor = (chained) => async () => {
  let turn = 0;
  const fetch = async () => new Response(BODIES[turn++], { status: 200, headers: HEADERS });
  return runAgent(new OpenAI({ apiKey: API_KEY, fetch, maxRetries: 0 }), { get_weather: forecast }, chained);
};
const variants = { bb: replay(false), floor: floor(false), "bb-chained": replay(true), "floor-chained": floor(true) };

const LATE = TURNS - 5;
const { names, med } = await interleavedRounds(variants, ROUNDS, TURNS);
rmSync(dir, { recursive: true, force: true });
console.log(
  `replay per model call: ${TURNS + 1} responses.create calls (${TURNS}-turn tool loop), openai SDK, node ${process.version}, ${ROUNDS} interleaved rounds`,
);
console.log("ms per call (median of rounds; CPU = process user+system time)");
console.log("variant        wall   CPU    CPU@turn~10  CPU@turn~" + LATE);
for (const name of names)
  console.log(
    `${name.padEnd(14)} ${f2(med(name, "wall")).padEnd(6)} ${f2(med(name, "cpu")).padEnd(6)} ${f2(med(name, "early")).padEnd(12)} ${f2(med(name, "late"))}`,
  );
for (const [name, s] of Object.entries(stats)) console.log(`${name} paths (last run): ${JSON.stringify(s)}`);
for (const [bb, fl] of [
  ["bb", "floor"],
  ["bb-chained", "floor-chained"],
]) {
  if (!names.includes(bb) || !names.includes(fl)) continue;
  const ratio = med(bb, "cpu") / med(fl, "cpu");
  console.log(`${bb}/${fl} CPU ${f2(ratio)}x (target <= 1.25: ${ratio <= 1.25 ? "ok" : "MISSED"})`);
}
