/**
 * Streaming through the zero-code path, as a user types it:
 * `blackbox record -- node agent.mjs`, then `blackbox replay <cassette> -- node agent.mjs`
 * under unshare -n, for both SDKs' streaming helpers. The agent never mentions Blackbox.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runProcess } from "../helpers/child.js";
import { anthropicSSE, openaiSSE } from "../helpers/fakeProvider.js";
import { BIN, DONE_LINE, readCassette, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture();

const AGENTS = {
  anthropic: `import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic();
const messages = [{ role: "user", content: "Weather in Lisbon and Tokyo?" }];
const tools = [{ name: "get_weather", description: "weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }];
const seen = [];
for (let turn = 0; turn < 3; turn++) {
  const stream = client.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 200, tools, messages });
  let text = "";
  stream.on("text", (t) => (text += t));
  const m = await stream.finalMessage();
  const uses = m.content.filter((b) => b.type === "tool_use");
  seen.push({ text, stop: m.stop_reason, calls: uses.map((u) => [u.name, u.input]) });
  if (!uses.length) break;
  messages.push({ role: "assistant", content: m.content });
  messages.push({ role: "user", content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, content: u.input.city === "Lisbon" ? "sunny" : "rain" })) });
}
console.log(JSON.stringify(seen));
`,
  openai: `import OpenAI from "openai";
const client = new OpenAI();
const messages = [{ role: "user", content: "Weather in Lisbon and Tokyo?" }];
const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
const seen = [];
for (let turn = 0; turn < 3; turn++) {
  const stream = client.chat.completions.stream({ model: "gpt-4.1", tools, messages });
  let text = "";
  stream.on("content", (d) => (text += d));
  const c = await stream.finalChatCompletion();
  const msg = c.choices[0].message;
  const calls = msg.tool_calls ?? [];
  seen.push({ text, stop: c.choices[0].finish_reason, calls: calls.map((t) => [t.function.name, JSON.parse(t.function.arguments)]) });
  if (!calls.length) break;
  messages.push({ role: "assistant", content: msg.content, tool_calls: calls });
  for (const t of calls) messages.push({ role: "tool", tool_call_id: t.id, content: JSON.parse(t.function.arguments).city === "Lisbon" ? "sunny" : "rain" });
}
console.log(JSON.stringify(seen));
`,
};

const toolTurn = {
  text: "Checking both.",
  toolCalls: [
    { name: "get_weather", input: { city: "Lisbon" } },
    { name: "get_weather", input: { city: "Tokyo" } },
  ],
};
const finalTurn = { text: "Lisbon: sunny ☀; Tokyo: rain 雨." };

describe.each(["anthropic", "openai"] as const)("%s", (provider) => {
  test("blackbox record -- node agent.mjs, then blackbox replay -- node agent.mjs offline: the agent sees the same stream", async () => {
    const agent = join(fx.dir, `${provider}-stream.mjs`);
    writeFileSync(agent, AGENTS[provider]);
    const cassette = join(fx.dir, `${provider}-stream.json`);
    const sse = provider === "anthropic" ? anthropicSSE : openaiSSE;
    fx.fake.enqueue(
      { sse: sse(toolTurn), chunkSize: 5, delayMs: 1 },
      { sse: sse(finalTurn), chunkSize: 5, delayMs: 1 },
    );
    const env =
      provider === "anthropic"
        ? {
            ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
            ANTHROPIC_API_KEY: "sk-ant-stream-zc-0123456789",
            OPENAI_BASE_URL: undefined,
          }
        : {
            OPENAI_BASE_URL: fx.fake.openaiUrl,
            OPENAI_API_KEY: "sk-proj-stream-zc-0123456789",
            ANTHROPIC_BASE_URL: undefined,
          };
    const recorded = await runProcess(
      process.execPath,
      [BIN, "record", "-o", cassette, "--", process.execPath, agent],
      { cwd: fx.dir, env },
    );
    // the agent runs get_weather itself: the closing line says so (unseen-tools.test.ts pins its words)
    expect(recorded.stderr).toMatch(
      /^blackbox: recorded [^\n]*\nblackbox: warning: the model asked for 2 tool calls that ran outside Blackbox's view[^\n]*\n$/,
    );
    expect(recorded.code).toBe(0);
    const seen = JSON.parse(recorded.stdout.trim().split("\n").at(-1)!);
    expect(seen).toHaveLength(2);
    expect(seen[0].calls).toEqual([
      ["get_weather", { city: "Lisbon" }],
      ["get_weather", { city: "Tokyo" }],
    ]);
    expect(seen[1].text).toBe(finalTurn.text);
    const trace = readCassette(cassette);
    expect(trace.steps[1]!.payload).toMatchObject({ type: "tool_calls", text: "Checking both." });

    const replayEnv = { ...env, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined };
    const replayed = await runProcess(process.execPath, [BIN, "replay", cassette, "--", process.execPath, agent], {
      cwd: fx.dir,
      env: replayEnv,
      offline: true,
    });
    expect(replayed.stderr).toMatch(
      /^blackbox: warning: [^\n]*A replay runs that tool for real[^\n]*\nblackbox: replayed [^\n]*\n$/,
    );
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout.trim().split("\n").at(-1)!)).toEqual(seen);
  });
});

// An agent under the hook that stops reading at the final event, with the provider slow to
// close, and a reply cut by max_tokens inside its tool_use block: both whole replies, so
// recorded, and the replay gives the agent the same.
const EDGE_AGENT = `import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic();
const params = { model: "claude-sonnet-4-6", max_tokens: 30, messages: [{ role: "user", content: "Weather?" }] };
let text = "";
for await (const e of await client.messages.create({ ...params, stream: true })) {
  if (e.type === "content_block_delta" && e.delta.type === "text_delta") text += e.delta.text;
  if (e.type === "message_stop") break;
}
const cut = await client.messages.stream({ ...params, messages: [...params.messages, { role: "assistant", content: text }, { role: "user", content: "Lisbon?" }] }).finalMessage();
console.log(JSON.stringify({ text, stop: cut.stop_reason, content: cut.content.map((b) => ({ type: b.type, input: b.input })) }));
`;

test("under the hook: a break at message_stop and a reply cut by max_tokens mid tool_use are recorded, and replayed the same", async () => {
  const agent = join(fx.dir, "edge-stream.mjs");
  writeFileSync(agent, EDGE_AGENT);
  const cassette = join(fx.dir, "edge-stream.json");
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const cutSse = [
    ev("message_start", {
      message: {
        id: "msg_01Cut",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-6",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 1 },
      },
    }),
    ev("content_block_start", {
      index: 0,
      content_block: { type: "tool_use", id: "toolu_01Cut", name: "get_weather", input: {} },
    }),
    ev("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"city": "Lisbon", "unit' },
    }),
    ev("content_block_stop", { index: 0 }),
    ev("message_delta", { delta: { stop_reason: "max_tokens", stop_sequence: null }, usage: { output_tokens: 30 } }),
    ev("message_stop", {}),
  ];
  fx.fake.enqueue(
    { sse: [anthropicSSE({ text: "Sunny." }).join(""), ": closing\n\n"], chunkSize: 1 << 20, delayMs: 300 },
    { sse: cutSse, chunkSize: 7 },
  );
  const env = {
    ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
    ANTHROPIC_API_KEY: "sk-ant-stream-edge-0123456789",
    OPENAI_BASE_URL: undefined,
  };
  const recorded = await runProcess(process.execPath, [BIN, "record", "-o", cassette, "--", process.execPath, agent], {
    cwd: fx.dir,
    env,
  });
  expect(recorded.stderr).toMatch(DONE_LINE);
  expect(recorded.code).toBe(0);
  const seen = JSON.parse(recorded.stdout.trim().split("\n").at(-1)!);
  expect(seen).toEqual({
    text: "Sunny.",
    stop: "max_tokens",
    content: [{ type: "tool_use", input: { city: "Lisbon" } }],
  });
  const replayed = await runProcess(process.execPath, [BIN, "replay", cassette, "--", process.execPath, agent], {
    cwd: fx.dir,
    env: { ...env, ANTHROPIC_API_KEY: undefined },
    offline: true,
  });
  expect(replayed.stderr).toMatch(DONE_LINE);
  expect(replayed.code).toBe(0);
  expect(JSON.parse(replayed.stdout.trim().split("\n").at(-1)!)).toEqual(seen);
});

test("under the hook: an agent that exits at message_stop, the provider not yet closed, has its reply recorded, and replays", async () => {
  const agent = join(fx.dir, "exit-at-stop.mjs");
  writeFileSync(
    agent,
    `import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic();
let text = "";
for await (const e of await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 30, messages: [{ role: "user", content: "Weather?" }], stream: true })) {
  if (e.type === "content_block_delta" && e.delta.type === "text_delta") text += e.delta.text;
  if (e.type === "message_stop") {
    console.log(text);
    process.exit(0);
  }
}
`,
  );
  const cassette = join(fx.dir, "exit-at-stop.json");
  fx.fake.enqueue({
    sse: [anthropicSSE({ text: "Sunny." }).join(""), ": closing\n\n"],
    chunkSize: 1 << 20,
    delayMs: 500,
  });
  const env = {
    ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
    ANTHROPIC_API_KEY: "sk-ant-stream-exit-0123456789",
    OPENAI_BASE_URL: undefined,
  };
  const recorded = await runProcess(process.execPath, [BIN, "record", "-o", cassette, "--", process.execPath, agent], {
    cwd: fx.dir,
    env,
  });
  expect(recorded.stderr).toMatch(DONE_LINE);
  expect(recorded.code).toBe(0);
  expect(readCassette(cassette).steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
  const replayed = await runProcess(process.execPath, [BIN, "replay", cassette, "--", process.execPath, agent], {
    cwd: fx.dir,
    env: { ...env, ANTHROPIC_API_KEY: undefined },
    offline: true,
  });
  expect(replayed.stderr).toMatch(DONE_LINE);
  expect(replayed.code).toBe(0);
  expect(replayed.stdout.trim()).toBe("Sunny.");
});
