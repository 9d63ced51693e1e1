// Replay cost per call of the Anthropic SDK's tool runner, threaded (message threads: each
// turn sends only its new messages, Blackbox expands it into the whole request) against the
// same run with thread: false, side by side in one process, interleaved: the loop of
// bench/loop.mjs (BENCH_TURNS tool rounds, default 200) through bb.fetch, the tool wrapped
// with bb.tool() as the runner tool's run. Prints the median of BENCH_ROUNDS (default 7)
// per variant and their ratio.
// Run after `npm run build`: node bench/threaded-replay.mjs
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { blackbox } from "../dist/index.js";
import { BODIES, resetMock, TURNS, API_KEY, forecast } from "./loop.mjs";
const dir = mkdtempSync(join(tmpdir(), "bbx-thr-"));
async function run(mode, file, thread) {
  const bb = blackbox(mode === "record" ? { mode, out: file } : { mode, cassette: file });
  const client = new Anthropic({ apiKey: API_KEY, maxRetries: 0, fetch: bb.fetch });
  const get = bb.tool("get_weather", forecast);
  const runner = client.beta.messages.toolRunner({
    model: "claude-sonnet-4-6",
    max_tokens: 1024,
    system: "You are a weather bot.",
    messages: [{ role: "user", content: `Check the weather ${TURNS} times, then summarise.` }],
    tools: [
      betaTool({
        name: "get_weather",
        description: "Today's forecast for a city.",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        run: async (i) => JSON.stringify(await get(i)),
      }),
    ],
    ...(thread ? {} : { thread: false }),
  });
  const t0 = performance.now();
  await runner.runUntilDone();
  const ms = performance.now() - t0;
  await bb.finish();
  return ms / (TURNS + 1);
}
const files = {};
for (const thread of [true, false]) {
  resetMock();
  files[thread] = join(dir, `${thread}.json`);
  await run("record", files[thread], thread);
}
const res = { true: [], false: [] };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
for (let r = 0; r < ROUNDS; r++)
  for (const thread of [true, false]) res[thread].push(await run("replay", files[thread], thread));
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `tool runner, ${TURNS + 1} calls, node ${process.version}: replay wall ms per call (median of ${ROUNDS} rounds): threaded ${med(res.true).toFixed(3)}, thread: false ${med(res.false).toFixed(3)}, ratio ${(med(res.true) / med(res.false)).toFixed(2)}x`,
);
rmSync(dir, { recursive: true, force: true });
