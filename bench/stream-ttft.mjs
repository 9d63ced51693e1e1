// Time to first token through Blackbox record vs direct, against a loopback provider
// that streams an Anthropic reply with a delay between events.
//
//   npm run build && node bench/stream-ttft.mjs [--runs 20] [--events 60] [--delay 5]
//
// Reports, per mode, the median time to the first text delta and to the end of the
// stream, and Blackbox's overhead per event: the added wall time spread over the
// events, and the assembler's own CPU cost per event measured without the network.
import Anthropic from "@anthropic-ai/sdk";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { blackbox } from "../dist/blackbox.js";
import { ToolCallIds } from "../dist/providers/shared/ids.js";
import { providers } from "../dist/providers/index.js";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const RUNS = arg("runs", 20);
const EVENTS = arg("events", 60);
const DELAY = arg("delay", 5);

const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
function replyEvents(n) {
  const out = [
    ev("message_start", {
      message: {
        id: "msg_01bench",
        type: "message",
        role: "assistant",
        model: "bench-model",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  ];
  for (let i = 0; i < n; i++)
    out.push(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: `token ${i} — ü ` } }));
  out.push(ev("content_block_stop", { index: 0 }));
  out.push(
    ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: n } }),
  );
  out.push(ev("message_stop", {}));
  return out;
}
const EVENTS_TEXT = replyEvents(EVENTS);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const server = createServer(async (req, res) => {
  for await (const _ of req);
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const e of EVENTS_TEXT) {
    res.write(e);
    await sleep(DELAY);
  }
  res.end();
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}`;

const params = { model: "bench-model", max_tokens: 1000, messages: [{ role: "user", content: "count" }], stream: true };

async function once(client) {
  const t0 = performance.now();
  let first = 0;
  let deltas = 0;
  for await (const e of await client.messages.create(params)) {
    if (e.type === "content_block_delta") {
      if (deltas++ === 0) first = performance.now() - t0;
    }
  }
  if (deltas !== EVENTS) throw new Error(`expected ${EVENTS} deltas, got ${deltas}`);
  return { ttft: first, total: performance.now() - t0 };
}

const dir = mkdtempSync(join(tmpdir(), "bb-bench-"));
const direct = new Anthropic({ apiKey: "sk-ant-bench-0000", baseURL: url, maxRetries: 0 });
const bb = blackbox({ mode: "record", out: join(dir, "bench.json"), providers: { anthropic: [url] } });
const recorded = new Anthropic({ apiKey: "sk-ant-bench-0000", baseURL: url, fetch: bb.fetch, maxRetries: 0 });

await once(direct); // warm up both paths
await once(recorded);
const res = { direct: [], blackbox: [] };
for (let i = 0; i < RUNS; i++) {
  // Interleave, alternating which goes first, so drift hits both alike.
  const order = i % 2 ? ["direct", "blackbox"] : ["blackbox", "direct"];
  for (const m of order) res[m].push(await once(m === "direct" ? direct : recorded));
}
await bb.finish();
server.close();
rmSync(dir, { recursive: true, force: true });

// The assembler's own cost per event, without the network.
const bytes = new TextEncoder().encode(EVENTS_TEXT.join(""));
const eventBytes = EVENTS_TEXT.map((e) => new TextEncoder().encode(e));
const reps = 2000;
const t0 = performance.now();
for (let i = 0; i < reps; i++) {
  const a = providers.anthropic.stream.createAssembler(new ToolCallIds());
  for (const e of eventBytes) a.push(e);
  a.finish();
}
const assembleUs = ((performance.now() - t0) * 1000) / (reps * EVENTS_TEXT.length);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (m) => ({ ttft: median(res[m].map((r) => r.ttft)), total: median(res[m].map((r) => r.total)) });
const d = row("direct");
const b = row("blackbox");
const n = EVENTS_TEXT.length;
console.log(
  `stream-ttft: ${RUNS} runs, ${n} events (${bytes.length} bytes) ${DELAY} ms apart, Node ${process.version}`,
);
console.log(`| mode     | TTFT median ms | stream end median ms |`);
console.log(`|----------|---------------:|---------------------:|`);
console.log(`| direct   | ${d.ttft.toFixed(2).padStart(14)} | ${d.total.toFixed(2).padStart(20)} |`);
console.log(`| blackbox | ${b.ttft.toFixed(2).padStart(14)} | ${b.total.toFixed(2).padStart(20)} |`);
console.log(`TTFT added by Blackbox record: ${(b.ttft - d.ttft).toFixed(2)} ms`);
console.log(`wall time added per event: ${(((b.total - d.total) * 1000) / n).toFixed(1)} µs`);
console.log(`assembler CPU per event (no network): ${assembleUs.toFixed(2)} µs`);
