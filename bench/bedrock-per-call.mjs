// Replay cost per model call for Amazon Bedrock's Converse API: a 200-turn tool loop through
// the real @aws-sdk/client-bedrock-runtime (`ConverseCommand`, one get_weather call a turn,
// the history growing each turn; the SDK serializes and SigV4-signs every request), answered
// three ways in one process, interleaved, after one warm-up run each:
//   bb        bb.fetch replay through the SDK's FetchHttpHandler({ customFetch: bb.fetch })
//             (strict: each request parsed and compared)
//   bb-hook   the register hook's road: the SDK's default NodeHttp2Handler, switched by
//             src/interception/awsSdk.ts to the global fetch, into the dispatcher door
//   floor     FetchHttpHandler with a customFetch that returns a ready Response, comparing nothing
// The SDK is the one installed in test/fixtures/sdk-versions/bedrock (`npm ci` there first).
// Run after `npm run build`: node bench/bedrock-per-call.mjs
// Env: BENCH_TURNS (default 200), BENCH_ROUNDS (default 3), BENCH_ONLY=bb,bb-hook,floor.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MockAgent, setGlobalDispatcher } from "undici";
import { blackbox } from "../dist/index.js";
import { createSession, publicSession } from "../dist/blackbox.js";
import { installInterception } from "../dist/interception/index.js";
import { TURNS, cpuMs, f2, forecast, interleavedRounds, mean, median } from "./loop.mjs";

const APP = join(import.meta.dirname, "..", "test", "fixtures", "sdk-versions", "bedrock");
const req = createRequire(join(APP, "package.json"));
const { BedrockRuntimeClient, ConverseCommand } = req("@aws-sdk/client-bedrock-runtime");
const { FetchHttpHandler } = req("@smithy/fetch-http-handler");
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ORIGIN = "https://bedrock-runtime.us-east-1.amazonaws.com";
const MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";
const CITIES = ["Lisbon", "Porto", "Faro", "Braga", "Coimbra", "Evora", "Madeira", "Sintra"];
const toolConfig = {
  tools: [
    {
      toolSpec: {
        name: "get_weather",
        description: "Today's forecast for a city.",
        inputSchema: { json: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      },
    },
  ],
};
const credentials = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
};
const client = (requestHandler) =>
  new BedrockRuntimeClient({
    region: "us-east-1",
    credentials,
    maxAttempts: 1,
    ...(requestHandler ? { requestHandler } : {}),
  });

/** Runs the tool loop; returns the wall and CPU time of each Converse call, in ms. */
async function runAgent(c, tools) {
  const messages = [{ role: "user", content: [{ text: `Check the weather ${TURNS} times, then summarise.` }] }];
  const wall = [];
  const cpu = [];
  for (let turn = 0; turn <= TURNS; turn++) {
    const input = {
      modelId: MODEL,
      messages,
      system: [{ text: "You are a weather bot." }],
      inferenceConfig: { maxTokens: 1024 },
      toolConfig,
    };
    const t0 = performance.now();
    const c0 = cpuMs();
    const reply = await c.send(new ConverseCommand(input));
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - t0);
    const message = reply.output.message;
    messages.push(message);
    const uses = message.content.filter((b) => b.toolUse);
    if (uses.length === 0) return { wall, cpu, answer: message.content.map((b) => b.text ?? "").join("") };
    const results = [];
    for (const { toolUse } of uses)
      results.push({
        toolResult: { toolUseId: toolUse.toolUseId, content: [{ json: await tools.get_weather(toolUse.input) }] },
      });
    messages.push({ role: "user", content: results });
  }
  throw new Error(`bench agent: no final answer after ${TURNS + 1} calls`);
}

/** The provider's reply to turn `turn` (Converse JSON). */
function replyBody(turn) {
  const city = CITIES[turn % CITIES.length];
  const content =
    turn === TURNS
      ? [{ text: `Checked ${TURNS} forecasts.` }]
      : [
          { text: `Checking ${city}.` },
          { toolUse: { toolUseId: `tooluse_bench${turn}`, name: "get_weather", input: { city } } },
        ];
  return JSON.stringify({
    output: { message: { role: "assistant", content } },
    stopReason: turn === TURNS ? "end_turn" : "tool_use",
    usage: { inputTokens: 100 + turn, outputTokens: 20, totalTokens: 120 + turn },
    metrics: { latencyMs: 300 },
  });
}
const BODIES = Array.from({ length: TURNS + 1 }, (_, i) => replyBody(i));
const HEADERS = { "content-type": "application/json", "x-amzn-requestid": "req-bench" };

// recording goes upstream through the global dispatcher: a MockAgent serving the replies in order
let mockTurn = 0;
const mockAgent = new MockAgent();
mockAgent.disableNetConnect();
mockAgent
  .get(ORIGIN)
  .intercept({ path: (p) => p.startsWith("/model/"), method: "POST" })
  .reply(() => ({ statusCode: 200, data: BODIES[mockTurn++], responseOptions: { headers: HEADERS } }))
  .persist();
setGlobalDispatcher(mockAgent);

const dir = mkdtempSync(join(tmpdir(), "bbx-bench-bedrock-"));
const cassette = join(dir, "loop.json");
{
  const bb = blackbox({ mode: "record", out: cassette });
  const { answer } = await runAgent(
    client(new FetchHttpHandler({ customFetch: bb.fetch })),
    bb.tools({ get_weather: forecast }),
  );
  await bb.finish({ result: answer });
}

const stats = {};
const variants = {
  bb: async () => {
    const engine = createSession({ mode: "replay", cassette });
    const bb = publicSession(engine);
    stats.bb = engine.requests.stats;
    const run = await runAgent(
      client(new FetchHttpHandler({ customFetch: bb.fetch })),
      bb.tools({ get_weather: forecast }),
    );
    await bb.finish({ result: run.answer });
    return run;
  },
  "bb-hook": async () => {
    const engine = createSession({ mode: "replay", cassette });
    const undo = await installInterception(engine, [APP]);
    const bb = publicSession(engine);
    stats["bb-hook"] = engine.requests.stats;
    try {
      const run = await runAgent(client(), bb.tools({ get_weather: forecast }));
      await bb.finish({ result: run.answer });
      return run;
    } finally {
      undo();
    }
  },
  floor: async () => {
    let turn = 0;
    const customFetch = async () => new Response(BODIES[turn++], { status: 200, headers: HEADERS });
    return runAgent(client(new FetchHttpHandler({ customFetch })), { get_weather: forecast });
  },
};

const LATE = TURNS - 5;
const { names, med } = await interleavedRounds(variants, ROUNDS, TURNS);
rmSync(dir, { recursive: true, force: true });
console.log(
  `replay per model call: ${TURNS + 1} Converse calls (${TURNS}-turn tool loop), @aws-sdk/client-bedrock-runtime, node ${process.version}, ${ROUNDS} interleaved rounds`,
);
console.log("ms per call (median of rounds; CPU = process user+system time)");
console.log("variant        wall   CPU    CPU@turn~10  CPU@turn~" + LATE);
for (const name of names)
  console.log(
    `${name.padEnd(14)} ${f2(med(name, "wall")).padEnd(6)} ${f2(med(name, "cpu")).padEnd(6)} ${f2(med(name, "early")).padEnd(12)} ${f2(med(name, "late"))}`,
  );
for (const [name, s] of Object.entries(stats)) console.log(`${name} paths (last run): ${JSON.stringify(s)}`);
for (const bb of ["bb", "bb-hook"]) {
  if (!names.includes(bb) || !names.includes("floor")) continue;
  const ratio = med(bb, "cpu") / med("floor", "cpu");
  console.log(`${bb}/floor CPU ${f2(ratio)}x (target <= 1.25: ${ratio <= 1.25 ? "ok" : "MISSED"})`);
}
