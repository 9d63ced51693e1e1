/**
 * Small tool-using agents written the way users write them, on the real SDKs, and a
 * per-provider kit so one conformance suite runs against both providers.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiSSE,
  type FakeContent,
  type FakeReply,
} from "./fakeProvider.js";

export type ToolFns = Record<string, (input: any) => Promise<unknown>>;

export interface AgentOptions {
  task: string;
  system?: string;
  model?: string;
  maxTurns?: number;
  /** Extra request fields (temperature, metadata ...). */
  extra?: Record<string, unknown>;
  /** Tool definitions' description (to test that it is compared). */
  toolDescription?: string;
  /** Run tools in parallel with Promise.all (default) or one by one. */
  sequential?: boolean;
  /** Call a turn's tools last first (their results still go back in the model's order). */
  reverse?: boolean;
  stream?: boolean;
}

const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

export async function anthropicAgent(client: Anthropic, tools: ToolFns, o: AgentOptions): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: o.task }];
  const defs = Object.keys(tools).map((name) => ({
    name,
    description: o.toolDescription ?? `The ${name} tool`,
    input_schema: schema as Anthropic.Tool.InputSchema,
  }));
  for (let turn = 0; turn < (o.maxTurns ?? 8); turn++) {
    const params = {
      model: o.model ?? "claude-sonnet-4-6",
      max_tokens: 1024,
      system: o.system ?? "You are a travel agent.",
      tools: defs,
      messages,
      ...o.extra,
    };
    const res = o.stream
      ? await client.messages.stream(params as Anthropic.MessageStreamParams).finalMessage()
      : ((await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming)) as Anthropic.Message);
    messages.push({ role: "assistant", content: res.content });
    const uses = res.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    if (uses.length === 0) return res.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    const run = async (u: Anthropic.ToolUseBlock): Promise<Anthropic.ToolResultBlockParam> => {
      try {
        return { type: "tool_result", tool_use_id: u.id, content: JSON.stringify(await tools[u.name]!(u.input)) };
      } catch (err) {
        return { type: "tool_result", tool_use_id: u.id, content: (err as Error).message, is_error: true };
      }
    };
    const results: Anthropic.ToolResultBlockParam[] = [];
    if (o.sequential) for (const u of uses) results.push(await run(u));
    else if (o.reverse) results.push(...(await Promise.all([...uses].reverse().map(run))).reverse());
    else results.push(...(await Promise.all(uses.map(run))));
    messages.push({ role: "user", content: results });
  }
  throw new Error("agent: too many turns");
}

export async function openaiAgent(client: OpenAI, tools: ToolFns, o: AgentOptions): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: "system", content: o.system ?? "You are a travel agent." },
    { role: "user", content: o.task },
  ];
  const defs: OpenAI.ChatCompletionTool[] = Object.keys(tools).map((name) => ({
    type: "function",
    function: { name, description: o.toolDescription ?? `The ${name} tool`, parameters: schema },
  }));
  for (let turn = 0; turn < (o.maxTurns ?? 8); turn++) {
    const params = { model: o.model ?? "gpt-4.1", max_completion_tokens: 1024, tools: defs, messages, ...o.extra };
    const res = o.stream
      ? await client.chat.completions.stream(params as OpenAI.ChatCompletionCreateParamsStreaming).finalChatCompletion()
      : ((await client.chat.completions.create(
          params as OpenAI.ChatCompletionCreateParamsNonStreaming,
        )) as OpenAI.ChatCompletion);
    const msg = res.choices[0]!.message;
    if (msg.refusal) return `REFUSED: ${msg.refusal}`;
    messages.push({ role: "assistant", content: msg.content, tool_calls: msg.tool_calls });
    const calls = (msg.tool_calls ?? []).filter((c) => c.type === "function");
    if (calls.length === 0) return (msg.content ?? "") + (res.choices[0]!.finish_reason === "length" ? " [cut]" : "");
    const run = async (c: (typeof calls)[number]): Promise<OpenAI.ChatCompletionToolMessageParam> => {
      try {
        const out = await tools[c.function.name]!(JSON.parse(c.function.arguments));
        return { role: "tool", tool_call_id: c.id, content: JSON.stringify(out) };
      } catch (err) {
        return { role: "tool", tool_call_id: c.id, content: `error: ${(err as Error).message}` };
      }
    };
    if (o.sequential) for (const c of calls) messages.push(await run(c));
    else if (o.reverse) messages.push(...(await Promise.all([...calls].reverse().map(run))).reverse());
    else messages.push(...(await Promise.all(calls.map(run))));
  }
  throw new Error("agent: too many turns");
}

export interface Kit {
  name: "anthropic" | "openai" | "gemini" | "bedrock";
  /** `fetch` undefined: the SDK's own (the register hook's interception is what sees its calls). */
  client(fetch: typeof globalThis.fetch | undefined, baseURL: string, apiKey?: string): any;
  run(client: any, tools: ToolFns, o: AgentOptions): Promise<string>;
  reply(c: FakeContent): FakeReply;
  streamReply(c: FakeContent): FakeReply;
  /** The provider's own name for a length stop. */
  lengthStop: string;
  /** A refused call's error as `<status> <message>`, when the SDK does not write it so (geminiAgent.ts). */
  errorText?(err: { status?: number; message: string }): string;
}

export const anthropicKit: Kit = {
  name: "anthropic",
  client: (fetch, baseURL, apiKey = "sk-ant-test-key-000000000000") =>
    new Anthropic({ apiKey, baseURL, fetch, maxRetries: 2 }),
  run: (c, t, o) => anthropicAgent(c, t, o),
  reply: (c) => ({ json: anthropicMessage(c) }),
  streamReply: (c) => ({ sse: anthropicSSE(c), chunkSize: 7 }),
  lengthStop: "max_tokens",
};

export const openaiKit: Kit = {
  name: "openai",
  client: (fetch, baseURL, apiKey = "sk-proj-test-key-000000000000") =>
    new OpenAI({ apiKey, baseURL, fetch, maxRetries: 2 }),
  run: (c, t, o) => openaiAgent(c, t, o),
  reply: (c) => ({ json: openaiCompletion(c) }),
  streamReply: (c) => ({ sse: openaiSSE(c), chunkSize: 7 }),
  lengthStop: "length",
};

export const kits = [anthropicKit, openaiKit];
export const kitByName = (name: string): Kit => (name === "openai" ? openaiKit : anthropicKit);
