/** Shared by the run tests (docs/conversations.md): the fan-out fixture and a fake provider that answers it. */
import { join } from "node:path";
import { ROOT } from "../helpers/child.js";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiSSE,
  toolResultsIn,
  type FakeContent,
  type FakeReply,
  type FakeRequest,
} from "../helpers/fakeProvider.js";

export const FANOUT = join(ROOT, "test", "fixtures", "fanout");
export const KEYS = { ANTHROPIC_API_KEY: "sk-ant-test-fanout-0000", OPENAI_API_KEY: "sk-test-fanout-0000" };
/** In code, a replay's clients need a key to be made; nothing is sent with it. */
export const PLACEHOLDER_KEYS = { ANTHROPIC_API_KEY: "placeholder", OPENAI_API_KEY: "placeholder" };

/** The reply a researcher or the orchestrator gets, from what its request holds; after a random delay. */
export function fanoutRespond(req: FakeRequest): FakeReply {
  const body = req.body as { messages: Array<{ role: string; content: unknown }>; stream?: boolean; tools?: unknown };
  const openai = req.path.includes("chat/completions");
  const results = toolResultsIn(body);
  const prompt = JSON.stringify(body.messages.find((m) => m.role === "user")?.content ?? "");
  let content: FakeContent;
  if (!body.tools) content = { text: `summary of ${body.messages.length} message(s): ${prompt.length} characters` };
  else if (results.length === 0) {
    // a model answers the same request differently: the two researchers of one topic part here
    const input = { topic: /Research (\w+)/.exec(prompt)![1], depth: 1 + Math.floor(Math.random() * 1000) };
    content = { toolCalls: [{ name: "lookup", input }] };
  } else content = { text: `note: ${(JSON.parse(results[results.length - 1]!) as { fact: string }).fact}` };
  const delayMs = Math.floor(Math.random() * 25);
  if (body.stream) return { sse: openai ? openaiSSE(content) : anthropicSSE(content), chunkSize: 37, delayMs };
  return { json: openai ? openaiCompletion(content) : anthropicMessage(content), delayMs };
}
