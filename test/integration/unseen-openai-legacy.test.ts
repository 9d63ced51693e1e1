/**
 * The real openai SDK against the fake provider, recorded and replayed through bb.fetch:
 * message names on user and assistant messages (LangChain 1.x's createAgent sends
 * name: "model" on every AI message), and the deprecated functions / function_call, plain
 * and streamed: a tool loop of that API records (its function_call is a tool call, the
 * wrapped tool's step answers it) and replays with nothing sent.
 */
import { join } from "node:path";
import OpenAI from "openai";
import { expect, test } from "vitest";
import { blackbox, loadTrace, ReplayDivergenceError, type Session } from "../../src/index.js";
import { openaiCompletion, openaiSSE, useFakeProvider } from "../helpers/fakeProvider.js";

const ctx = useFakeProvider("bbx-legacy-");
const KEY = "sk-test-legacy-000000000";

/** A chat completion whose message is a deprecated function_call (as the API answers a functions request). */
function functionCallReply(name: string, args: unknown): Record<string, unknown> {
  const full = openaiCompletion({ text: "" });
  const choice = (full.choices as Record<string, unknown>[])[0]!;
  choice.message = {
    role: "assistant",
    content: null,
    function_call: { name, arguments: JSON.stringify(args) },
    refusal: null,
  };
  choice.finish_reason = "function_call";
  return full;
}

/** The same reply as the API streams it. */
function functionCallSse(name: string, args: unknown): string[] {
  const base = {
    id: "chatcmpl-legacy0000Xy9Qz",
    object: "chat.completion.chunk",
    created: 1_760_000_000,
    model: "gpt-4o",
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const text = JSON.stringify(args);
  return [
    chunk({ role: "assistant", content: null, function_call: { name, arguments: "" } }),
    chunk({ function_call: { arguments: text.slice(0, 5) } }),
    chunk({ function_call: { arguments: text.slice(5) } }),
    chunk({}, "function_call"),
    "data: [DONE]\n\n",
  ];
}

/** A functions-API agent loop, as the openai SDK's v3-era examples wrote it; messages carry names. */
async function legacyAgent(bb: Session, stream: boolean): Promise<string> {
  const client = new OpenAI({ baseURL: ctx.fake.openaiUrl, apiKey: KEY, fetch: bb.fetch, maxRetries: 0 });
  const { get_weather } = bb.tools({ get_weather: async ({ city }: { city: string }) => `sunny in ${city}` });
  const functions = [
    {
      name: "get_weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  ];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", name: "ana", content: "Weather in Lisbon?" }];
  for (;;) {
    let message: OpenAI.ChatCompletionMessage;
    if (stream) {
      const s = client.chat.completions.stream({ model: "gpt-4o", messages, functions, function_call: "auto" });
      message = (await s.finalChatCompletion()).choices[0]!.message;
    } else {
      message = (await client.chat.completions.create({ model: "gpt-4o", messages, functions, function_call: "auto" }))
        .choices[0]!.message;
    }
    const call = message.function_call;
    messages.push({
      role: "assistant",
      name: "model",
      content: message.content,
      ...(call ? { function_call: call } : {}),
    });
    if (!call) return message.content ?? "";
    const result = await get_weather(JSON.parse(call.arguments));
    messages.push({ role: "function", name: call.name, content: result });
  }
}

for (const stream of [false, true]) {
  test(`a functions agent with named messages records and replays${stream ? ", streamed" : ""}`, async () => {
    const out = join(ctx.dir, `legacy-${stream}.json`);
    ctx.fake.enqueue(
      stream
        ? { sse: functionCallSse("get_weather", { city: "Lisbon" }) }
        : { json: functionCallReply("get_weather", { city: "Lisbon" }) },
      stream
        ? { sse: openaiSSE({ text: "Sunny in Lisbon." }) }
        : { json: openaiCompletion({ text: "Sunny in Lisbon." }) },
    );
    const rec = blackbox({ mode: "record", out });
    expect(await legacyAgent(rec, stream)).toBe("Sunny in Lisbon.");
    await rec.finish();
    const trace = await loadTrace(out);
    expect(trace.steps.map((s) => s.type)).toEqual([
      "model_input",
      "model_output",
      "tool_call",
      "tool_result",
      "model_input",
      "model_output",
      "metadata",
    ]);
    expect(trace.steps[1]!.payload).toEqual({
      type: "tool_calls",
      calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
    });
    expect(trace.steps[2]!.payload).toEqual({
      toolCallId: "call-0",
      toolName: "get_weather",
      toolInput: { city: "Lisbon" },
    });
    const input = trace.steps[4]!.payload as { messages: unknown[]; tools: unknown[]; params: unknown };
    expect(input.messages).toEqual([
      { role: "user", name: "ana", content: "Weather in Lisbon?" },
      {
        role: "assistant",
        name: "model",
        content: [{ type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: "sunny in Lisbon" }],
      },
    ]);
    expect(input.tools).toEqual([expect.objectContaining({ name: "get_weather" })]);
    expect(input.params).toEqual({ toolChoice: "auto" });

    const sent = ctx.fake.requests.length;
    const bb = blackbox({ mode: "replay", cassette: out });
    expect(await legacyAgent(bb, stream)).toBe("Sunny in Lisbon.");
    await bb.finish();
    expect(ctx.fake.requests.length).toBe(sent);
  });
}

test("a replay whose assistant message carries another name diverges at that name", async () => {
  const out = join(ctx.dir, "named.json");
  ctx.fake.enqueue({ json: openaiCompletion({ text: "Hi." }) });
  const rec = blackbox({ mode: "record", out });
  const ask = (bb: Session, name: string) =>
    new OpenAI({ baseURL: ctx.fake.openaiUrl, apiKey: KEY, fetch: bb.fetch, maxRetries: 0 }).chat.completions.create({
      model: "gpt-4o",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", name, content: "hello" },
        { role: "user", content: "again" },
      ],
    });
  await ask(rec, "model");
  await rec.finish();
  const bb = blackbox({ mode: "replay", cassette: out });
  await expect(ask(bb, "critic")).rejects.toThrow(
    /Replay diverged at step 0 \(model_input\).*\n  at messages\[1\]\.name\n  recorded: "model"\n  now:      "critic"/s,
  );
  await expect(bb.finish()).rejects.toBeInstanceOf(ReplayDivergenceError);
});
