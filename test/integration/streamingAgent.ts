/**
 * A small two-turn agent for the streaming integration tests, run as a child process
 * (`tsx`) both to record and, under `unshare -n`, to replay. It asks for the weather,
 * runs the tool calls through bb.tools, sends the results back, and prints what it
 * saw (text, tool calls, stop of each turn) as one JSON line on stdout.
 *
 * env: BB_MODE (record|replay), BB_FILE (cassette), PROVIDER (anthropic|openai),
 *      ENTRY (create: stream:true events | stream: the SDK's stream helper | plain),
 *      DOOR (fetch: the SDK's fetch option, default | dispatcher: the global dispatcher door),
 *      ANTHROPIC_BASE_URL / OPENAI_BASE_URL (the fake provider when recording).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createSession, publicSession } from "../../src/blackbox.js";
import { installDispatcher } from "../../src/interception/dispatcher/door.js";

type Entry = "create" | "stream" | "plain";
interface Turn {
  text: string;
  calls: { name: string; input: unknown }[];
  stop: string | null;
}

const env = process.env;
const mode = env.BB_MODE as "record" | "replay";
const file = env.BB_FILE!;
const entry = (env.ENTRY ?? "create") as Entry;
const engine = createSession(mode === "record" ? { mode, out: file } : { mode, cassette: file });
const bb = publicSession(engine);
const door = env.DOOR === "dispatcher" ? await installDispatcher(engine).then(() => ({})) : { fetch: bb.fetch };
const tools = bb.tools({
  async get_weather(args: { city: string }) {
    return { city: args.city, sky: args.city === "Lisbon" ? "sunny ☀" : "rain 雨" };
  },
});

const question = "What is the weather in Lisbon and in Tokyo?";
const weatherSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

async function anthropicAgent(): Promise<Turn[]> {
  const client = new Anthropic({ apiKey: env.ANTHROPIC_API_KEY ?? "sk-ant-placeholder", ...door, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: question }];
  const base = {
    model: "claude-sonnet-4-5",
    max_tokens: 512,
    tools: [{ name: "get_weather", description: "Weather", input_schema: weatherSchema as Anthropic.Tool.InputSchema }],
  };
  const turns: Turn[] = [];
  for (let i = 0; i < 4; i++) {
    let content: Anthropic.ContentBlock[];
    let stop: string | null;
    if (entry === "plain") {
      const m = await client.messages.create({ ...base, messages });
      [content, stop] = [m.content, m.stop_reason];
    } else if (entry === "stream") {
      const m = await client.messages.stream({ ...base, messages }).finalMessage();
      [content, stop] = [m.content, m.stop_reason];
    } else {
      // Rebuild the reply from the raw events, as an agent reading stream:true would.
      const blocks: Record<string, any>[] = [];
      const json: string[] = [];
      stop = null;
      const events = await client.messages.create({ ...base, messages, stream: true });
      for await (const ev of events) {
        if (ev.type === "content_block_start") blocks[ev.index] = { ...ev.content_block };
        else if (ev.type === "content_block_delta" && ev.delta.type === "text_delta")
          blocks[ev.index]!.text += ev.delta.text;
        else if (ev.type === "content_block_delta" && ev.delta.type === "input_json_delta")
          json[ev.index] = (json[ev.index] ?? "") + ev.delta.partial_json;
        else if (ev.type === "content_block_stop" && blocks[ev.index]!.type === "tool_use")
          blocks[ev.index]!.input = JSON.parse(json[ev.index] || "{}");
        else if (ev.type === "message_delta") stop = ev.delta.stop_reason;
      }
      content = blocks as Anthropic.ContentBlock[];
    }
    const uses = content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    turns.push({
      text: content.map((b) => (b.type === "text" ? b.text : "")).join(""),
      calls: uses.map((u) => ({ name: u.name, input: u.input })),
      stop,
    });
    if (uses.length === 0) break;
    messages.push({ role: "assistant", content });
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const u of uses) {
      const r = await tools.get_weather(u.input as { city: string });
      results.push({ type: "tool_result", tool_use_id: u.id, content: JSON.stringify(r) });
    }
    messages.push({ role: "user", content: results });
  }
  return turns;
}

async function openaiAgent(): Promise<Turn[]> {
  const client = new OpenAI({ apiKey: env.OPENAI_API_KEY ?? "sk-placeholder", ...door, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: question }];
  const base = {
    model: "gpt-4.1",
    tools: [{ type: "function" as const, function: { name: "get_weather", parameters: weatherSchema } }],
  };
  const turns: Turn[] = [];
  for (let i = 0; i < 4; i++) {
    let msg: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
    let stop: string | null;
    if (entry === "plain") {
      const c = await client.chat.completions.create({ ...base, messages });
      [msg, stop] = [c.choices[0]!.message as typeof msg, c.choices[0]!.finish_reason];
    } else if (entry === "stream") {
      const c = await client.chat.completions.stream({ ...base, messages }).finalChatCompletion();
      [msg, stop] = [c.choices[0]!.message as typeof msg, c.choices[0]!.finish_reason];
    } else {
      let text: string | null = null;
      const calls: { id: string; function: { name: string; arguments: string } }[] = [];
      stop = null;
      const chunks = await client.chat.completions.create({ ...base, messages, stream: true });
      for await (const chunk of chunks) {
        const ch = chunk.choices[0];
        if (!ch) continue;
        if (ch.delta.content) text = (text ?? "") + ch.delta.content;
        for (const t of ch.delta.tool_calls ?? []) {
          const c = (calls[t.index] ??= { id: "", function: { name: "", arguments: "" } });
          if (t.id) c.id = t.id;
          if (t.function?.name) c.function.name = t.function.name;
          c.function.arguments += t.function?.arguments ?? "";
        }
        stop = ch.finish_reason ?? stop;
      }
      msg = { content: text, ...(calls.length ? { tool_calls: calls } : {}) };
    }
    const calls = msg.tool_calls ?? [];
    turns.push({
      text: msg.content ?? "",
      calls: calls.map((c) => ({ name: c.function.name, input: JSON.parse(c.function.arguments) })),
      stop,
    });
    if (calls.length === 0) break;
    messages.push({
      role: "assistant",
      content: msg.content,
      tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: c.function })),
    });
    for (const c of calls) {
      const r = await tools.get_weather(JSON.parse(c.function.arguments) as { city: string });
      messages.push({ role: "tool", tool_call_id: c.id, content: JSON.stringify(r) });
    }
  }
  return turns;
}

const turns = env.PROVIDER === "openai" ? await openaiAgent() : await anthropicAgent();
await bb.finish();
process.stdout.write(JSON.stringify({ turns }) + "\n");
