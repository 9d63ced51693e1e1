// The 200-turn Anthropic tool loop the replay benchmarks share: the agent, the scripted
// provider replies, a MockAgent serving them, and recording the cassette bb replays.
import Anthropic from "@anthropic-ai/sdk";
import { performance } from "node:perf_hooks";
import { MockAgent, setGlobalDispatcher } from "undici";
import { blackbox } from "../dist/index.js";

export const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const CITIES = ["Lisbon", "Porto", "Faro", "Braga", "Coimbra", "Evora", "Madeira", "Sintra"];
const TOOLS = [
  {
    name: "get_weather",
    description: "Today's forecast for a city.",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
export const forecast = async ({ city }) => ({
  city,
  forecast: city.length % 2 ? "sunny" : "rain",
  celsius: 15 + city.length,
});

// --- the agent: one loop for all three ------------------------------------------------

export const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Runs the tool loop; returns the wall and CPU time of each messages.create call, in ms. */
export async function runAgent(client, tools) {
  const messages = [{ role: "user", content: `Check the weather ${TURNS} times, then summarise.` }];
  const wall = [];
  const cpu = [];
  for (let turn = 0; turn <= TURNS; turn++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    const reply = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      system: "You are a weather bot.",
      tools: TOOLS,
      messages,
    });
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - t0);
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) return { wall, cpu, answer: reply.content[0].text };
    const results = [];
    for (const u of uses)
      results.push({
        type: "tool_result",
        tool_use_id: u.id,
        content: JSON.stringify(await tools.get_weather(u.input)),
      });
    messages.push({ role: "user", content: results });
  }
  throw new Error(
    `bench agent: no final answer after ${TURNS + 1} calls; the scripted replies are out of step with the loop`,
  );
}

// --- the scripted provider replies (Anthropic wire JSON) ------------------------------

function replyBody(turn) {
  const base = {
    id: `msg_01bench${turn}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-6",
    stop_sequence: null,
    usage: { input_tokens: 100 + turn, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (turn === TURNS)
    return JSON.stringify({
      ...base,
      content: [{ type: "text", text: `Checked ${TURNS} forecasts.` }],
      stop_reason: "end_turn",
    });
  const city = CITIES[turn % CITIES.length];
  return JSON.stringify({
    ...base,
    stop_reason: "tool_use",
    content: [
      { type: "text", text: `Checking ${city}.` },
      { type: "tool_use", id: `toolu_01bench${turn}`, name: "get_weather", input: { city } },
    ],
  });
}
export const BODIES = Array.from({ length: TURNS + 1 }, (_, i) => replyBody(i));
export const HEADERS = { "content-type": "application/json", "request-id": "req_bench" };

// MockAgent: the global dispatcher for the whole run; only the `mock` variant reaches it
// (bb replay and the floor never call the network).
let mockTurn = 0;
export const resetMock = () => (mockTurn = 0);
const mockAgent = new MockAgent();
mockAgent.disableNetConnect();
mockAgent
  .get("https://api.anthropic.com")
  .intercept({ path: (p) => p.startsWith("/v1/messages"), method: "POST" })
  .reply(() => ({ statusCode: 200, data: BODIES[mockTurn++], responseOptions: { headers: HEADERS } }))
  .persist();
setGlobalDispatcher(mockAgent);

export const API_KEY = "sk-ant-bench-key-0000000000";

/** Records the loop (served by the MockAgent) into `file`. */
export async function recordCassette(file) {
  mockTurn = 0;
  const bb = blackbox({ mode: "record", out: file });
  const { answer } = await runAgent(
    new Anthropic({ apiKey: API_KEY, fetch: bb.fetch }),
    bb.tools({ get_weather: forecast }),
  );
  await bb.finish({ result: answer });
}

// --- the variants and statistics both replay benchmarks share -------------------------

/** bb.fetch replay of `cassette`, MockAgent, and the floor (a fetch returning ready replies). */
export function baseVariants(cassette) {
  return {
    async bb() {
      const bb = blackbox({ mode: "replay", cassette });
      const run = await runAgent(
        new Anthropic({ apiKey: API_KEY, fetch: bb.fetch, maxRetries: 0 }),
        bb.tools({ get_weather: forecast }),
      );
      await bb.finish({ result: run.answer });
      return run;
    },
    async mock() {
      resetMock();
      return runAgent(new Anthropic({ apiKey: API_KEY, maxRetries: 0 }), { get_weather: forecast });
    },
    async floor() {
      let turn = 0;
      const fetch = async () => new Response(BODIES[turn++], { status: 200, headers: HEADERS });
      return runAgent(new Anthropic({ apiKey: API_KEY, fetch, maxRetries: 0 }), { get_weather: forecast });
    },
  };
}

export const sum = (xs) => xs.reduce((a, b) => a + b, 0);
export const mean = (xs) => sum(xs) / xs.length;
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const f2 = (x) => x.toFixed(2);

/**
 * The per-call benchmarks' rounds: each variant (a function returning per-call `{ wall, cpu }` lists) once to
 * warm up, then `rounds` rounds, each running every variant in an order that rotates; BENCH_ONLY=a,b picks
 * variants. Returns the names run and `med(name, field)`: the median over the rounds of a variant's mean per
 * call (`wall`, `cpu`) or of its CPU around call 10 (`early`) and call turns - 5 (`late`).
 */
export async function interleavedRounds(variants, rounds, turns) {
  const around = (xs, at) => mean(xs.slice(Math.max(0, at - 5), at + 5));
  const measure = async (name) => {
    const { wall, cpu } = await variants[name]();
    return { wall: mean(wall), cpu: mean(cpu), early: around(cpu, 10), late: around(cpu, turns - 5) };
  };
  const names = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",") : Object.keys(variants);
  for (const n of names)
    if (!variants[n]) throw new Error(`BENCH_ONLY: unknown variant "${n}"; use ${Object.keys(variants)}`);
  for (const name of names) await variants[name](); // warm-up, not counted
  const results = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) results[name].push(await measure(name));
  }
  return { names, med: (name, field) => median(results[name].map((r) => r[field])) };
}
