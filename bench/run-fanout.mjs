// Replay cost per model call of a run of several conversations (issue 27, docs/conversations.md):
// K researchers started together with Promise.all, each its own Anthropic client and a 4-call
// tool loop (three lookups, then an answer), replayed through bb.fetch from a run folder, against
// the same loop replayed alone: five researchers, each from a cassette of its own, one after another
// (sessions of one conversation, no routing). Prints per-call CPU and wall for alone, K = 5, 50, 500
// and each K's ratio to the single figure: what routing a request to its conversation adds, and
// whether it grows with K.
// Rounds rotate the order of the variants. Run after `npm run build`: node bench/run-fanout.mjs
// Env: BENCH_ROUNDS (default 5), BENCH_KS (default 5,50,500).
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MockAgent, setGlobalDispatcher } from "undici";
import { blackbox } from "../dist/index.js";
import { cpuMs, median } from "./loop.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const KS = (process.env.BENCH_KS ?? "5,50,500").split(",").map(Number);
const CALLS = 4;
const TOOLS = [
  {
    name: "lookup",
    description: "Look up a fact about a topic.",
    input_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  },
];
const lookup = async ({ topic }) => ({ topic, fact: `${topic} is ${topic.length} letters long` });

async function researcher(fetch, tools, i) {
  const client = new Anthropic({ apiKey: "sk-ant-bench-run-0000", fetch, maxRetries: 0 });
  const messages = [{ role: "user", content: `Research topic ${i} in ${CALLS - 1} lookups.` }];
  for (;;) {
    const reply = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 512,
      system: "You are a researcher.",
      tools: TOOLS,
      messages,
    });
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) return reply.content[0].text;
    const results = [];
    for (const u of uses)
      results.push({ type: "tool_result", tool_use_id: u.id, content: JSON.stringify(await tools.lookup(u.input)) });
    messages.push({ role: "user", content: results });
  }
}

// recording goes upstream through the global dispatcher: a MockAgent answering each request by its turn
let n = 0;
const mockAgent = new MockAgent();
mockAgent.disableNetConnect();
setGlobalDispatcher(mockAgent);
mockAgent
  .get("https://api.anthropic.com")
  .intercept({ path: "/v1/messages", method: "POST" })
  .reply((opts) => {
    const body = JSON.parse(opts.body);
    const turn = (body.messages.length - 1) / 2;
    const topic = /topic (\d+)/.exec(body.messages[0].content)[1];
    const content =
      turn < CALLS - 1
        ? [{ type: "tool_use", id: `toolu_bench${++n}`, name: "lookup", input: { topic: `${topic}-${turn}` } }]
        : [{ type: "text", text: `topic ${topic}: done` }];
    const reply = {
      id: `msg_bench${++n}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-6",
      content,
      stop_reason: turn < CALLS - 1 ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    };
    return {
      statusCode: 200,
      data: JSON.stringify(reply),
      responseOptions: { headers: { "content-type": "application/json" } },
    };
  })
  .persist();

const dir = mkdtempSync(join(tmpdir(), "bb-bench-run-"));
const ALONE = 5;

/** Records `k` researchers at once into a run folder, or (k = 0) each of ALONE researchers alone into a cassette of its own. */
async function record(k) {
  if (k === 0) {
    const files = [];
    for (let i = 0; i < ALONE; i++) {
      const out = join(dir, `alone-${i}.json`);
      const bb = blackbox({ mode: "record", out });
      await researcher(bb.fetch, bb.tools({ lookup }), i);
      await bb.finish();
      files.push(out);
    }
    return files;
  }
  const out = join(dir, `run-${k}/`);
  const bb = blackbox({ mode: "record", out });
  const tools = bb.tools({ lookup });
  await Promise.all(Array.from({ length: k }, (_, i) => researcher(bb.fetch, tools, i)));
  await bb.finish();
  return out;
}

/** One replay: per-call CPU and wall (ms), the loading of cassettes excluded. */
async function replay(k, cassette) {
  if (k === 0) {
    let cpu = 0;
    let wall = 0;
    for (const [i, file] of cassette.entries()) {
      const bb = blackbox({ mode: "replay", cassette: file });
      const tools = bb.tools({ lookup });
      const t0 = performance.now();
      const c0 = cpuMs();
      await researcher(bb.fetch, tools, i);
      cpu += cpuMs() - c0;
      wall += performance.now() - t0;
      await bb.finish();
    }
    return { cpu: cpu / (ALONE * CALLS), wall: wall / (ALONE * CALLS) };
  }
  const bb = blackbox({ mode: "replay", cassette });
  const tools = bb.tools({ lookup });
  const t0 = performance.now();
  const c0 = cpuMs();
  await Promise.all(Array.from({ length: k }, (_, i) => researcher(bb.fetch, tools, i)));
  const cpu = cpuMs() - c0;
  const wall = performance.now() - t0;
  await bb.finish();
  return { cpu: cpu / (k * CALLS), wall: wall / (k * CALLS) };
}

const variants = [{ k: 0, label: "alone" }, ...KS.map((k) => ({ k, label: String(k) }))];
for (const v of variants) v.cassette = await record(v.k);
for (const v of variants) await replay(v.k, v.cassette); // warm-up
const results = new Map(variants.map((v) => [v.label, { cpu: [], wall: [] }]));
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < variants.length; j++) {
    const v = variants[(r + j) % variants.length];
    const m = await replay(v.k, v.cassette);
    results.get(v.label).cpu.push(m.cpu);
    results.get(v.label).wall.push(m.wall);
  }
}
const single = median(results.get("alone").cpu);
console.log(`per model call, median of ${ROUNDS} rounds (${CALLS} calls a conversation)`);
console.log("conversations  cpu us/call  wall us/call  cpu vs alone");
for (const v of variants) {
  const res = results.get(v.label);
  const cpu = median(res.cpu);
  console.log(
    `${v.label.padEnd(13)}  ${(cpu * 1000).toFixed(0).padStart(11)}  ${(median(res.wall) * 1000).toFixed(0).padStart(12)}  ${(cpu / single).toFixed(2)}x`,
  );
}
rmSync(dir, { recursive: true, force: true });
