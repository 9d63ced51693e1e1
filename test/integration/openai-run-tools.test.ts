/**
 * A wrapped tool given to the openai SDK's runTools() as a tool's `function`: the runner
 * calls function(args, runner, toolContext), and the runner holds the whole conversation
 * with its provider ids. The tool is recorded with its arguments alone, and replayed
 * without running, streamed or not.
 */
import OpenAI from "openai";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { blackbox, loadTrace } from "../../src/index.js";
import { openaiCompletion, openaiSSE, useFakeProvider } from "../helpers/fakeProvider.js";

const fx = useFakeProvider("bb-run-tools-");

async function agent(mode: "record" | "replay", file: string, stream: boolean) {
  const bb = blackbox(
    mode === "record"
      ? { mode, out: file, providers: { openai: [fx.fake.url] } }
      : { mode, cassette: file, providers: { openai: [fx.fake.url] } },
  );
  const client = new OpenAI({
    apiKey: "sk-run-tools-0000",
    baseURL: fx.fake.openaiUrl,
    maxRetries: 0,
    fetch: bb.fetch,
  });
  let runs = 0;
  let sawRunner = false;
  const weather = bb.tool("get_weather", async (a: { city: string }, runner?: unknown) => {
    runs++;
    sawRunner = typeof (runner as { finalContent?: unknown })?.finalContent === "function";
    return `sunny in ${a.city}`;
  });
  const tools = [
    {
      type: "function" as const,
      function: {
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        function: weather,
        parse: JSON.parse,
      },
    },
  ];
  const params = { model: "gpt-4.1", messages: [{ role: "user" as const, content: "Weather in Lisbon?" }], tools };
  const runner = stream
    ? client.chat.completions.runTools({ ...params, stream: true } as never)
    : client.chat.completions.runTools(params as never);
  const answer = await (runner as { finalContent(): Promise<string | null> }).finalContent();
  await bb.finish();
  return { answer, runs, sawRunner };
}

describe("openai runTools with a wrapped tool as the function", () => {
  test.each([false, true])("stream %s: recorded with its arguments alone, replayed without running", async (stream) => {
    const file = join(fx.dir, `run-tools-${stream}.json`);
    const reply = (c: Parameters<typeof openaiCompletion>[0]) =>
      stream ? { sse: openaiSSE(c) } : { json: openaiCompletion(c) };
    fx.fake.enqueue(
      reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
      reply({ text: "Sunny." }),
    );
    // the function still gets the runner
    expect(await agent("record", file, stream)).toEqual({ answer: "Sunny.", runs: 1, sawRunner: true });
    const trace = await loadTrace(file);
    expect(
      trace.steps.filter((s) => s.type === "tool_call").map((s) => (s.payload as { toolInput: unknown }).toolInput),
    ).toEqual([{ city: "Lisbon" }]);
    const sent = fx.fake.requests.length;
    expect(await agent("replay", file, stream)).toEqual({ answer: "Sunny.", runs: 0, sawRunner: false });
    expect(fx.fake.requests.length).toBe(sent);
  });
});
