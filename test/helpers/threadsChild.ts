/**
 * A child process running the Anthropic SDK's tool runner, which sends its turns as a
 * message thread (each turn only its new messages) unless `thread: false`; prints
 * { answer, toolRuns, error } as JSON. With `session`, through bb.fetch with the tool
 * wrapped; without, a plain client (the register hook, if loaded, is the door).
 *
 *   node --import tsx test/helpers/threadsChild.ts '<json spec>'
 */
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { blackbox } from "../../src/index.js";
import * as threadsTools from "./threadsTools.js";

interface ThreadsSpec {
  session?: Record<string, unknown>;
  baseURL: string;
  stream?: boolean;
  thread?: false;
  system?: string;
  /** Tool results by city (else the default weather). */
  weather?: Record<string, unknown>;
  /** The tool's `run` is test/helpers/threadsTools.ts's get_weather itself (wrapped with `session`): called with the runner's context. */
  direct?: true;
  runToolsEagerly?: true;
  /** The user's message marks a prompt cache breakpoint (cache_control). */
  cache?: true;
}

const spec = JSON.parse(process.argv[2]!) as ThreadsSpec;
let toolRuns = 0;
const weather = async ({ city }: { city: string }) => {
  toolRuns++;
  return spec.weather?.[city] ?? { city, forecast: city === "Lisbon" ? "sunny" : "rain" };
};
const bb = spec.session ? blackbox(spec.session as never) : undefined;
const get_weather = bb ? bb.tool("get_weather", weather) : weather;
const client = new Anthropic({
  apiKey: "sk-ant-threads-0000",
  baseURL: spec.baseURL,
  maxRetries: 0,
  ...(bb ? { fetch: bb.fetch } : {}),
});

let answer: string | undefined;
let error: string | undefined;
try {
  const runner = client.beta.messages.toolRunner({
    model: "claude-sonnet-4-6",
    max_tokens: 200,
    system: spec.system ?? "You plan weekend trips. Be brief.",
    messages: [
      spec.cache
        ? {
            role: "user",
            content: [{ type: "text", text: "Lisbon or Porto this weekend?", cache_control: { type: "ephemeral" } }],
          }
        : { role: "user", content: "Lisbon or Porto this weekend?" },
    ],
    tools: [
      betaTool({
        name: "get_weather",
        description: "Weekend forecast for a city.",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        run: spec.direct
          ? bb
            ? bb.tool("get_weather", threadsTools.get_weather)
            : threadsTools.get_weather
          : async (input: unknown) => JSON.stringify(await get_weather(input as { city: string })),
      }),
    ],
    ...(spec.stream ? { stream: true as const } : {}),
    ...(spec.thread === false ? { thread: false as const } : {}),
    ...(spec.runToolsEagerly ? { runToolsEagerly: true as const } : {}),
  });
  const final = await runner.runUntilDone();
  answer = final.content.map((b) => (b.type === "text" ? b.text : "")).join("");
} catch (err) {
  error = String(err);
}
if (bb) {
  try {
    await bb.finish({ result: answer ?? null });
  } catch (err) {
    error ??= String(err);
  }
}
process.stdout.write(JSON.stringify({ answer, toolRuns: toolRuns + threadsTools.runs.count, error }));
