/** Shared by the run tests (docs/conversations.md): the fan-out fixture and a fake provider that answers it. */
import { join } from "node:path";
import { ROOT } from "../helpers/child.js";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiResponse,
  openaiResponseSSE,
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
export const fanoutRespond = (req: FakeRequest): FakeReply => respondTo(req, false);

/** The same, but a model that answers the same request the same way: two researchers of one topic stay alike. */
export const fanoutRespondAlike = (req: FakeRequest): FakeReply => respondTo(req, true);

function respondTo(req: FakeRequest, alike: boolean): FakeReply {
  if (req.path.endsWith("/responses")) return responsesReply(req, alike);
  const body = req.body as { messages: Array<{ role: string; content: unknown }>; stream?: boolean; tools?: unknown };
  const openai = req.path.includes("chat/completions");
  const results = toolResultsIn(body);
  const prompt = JSON.stringify(body.messages.find((m) => m.role === "user")?.content ?? "");
  const content = contentFor(!!body.tools, prompt, results[results.length - 1], body.messages.length, alike);
  const delayMs = Math.floor(Math.random() * 25);
  if (body.stream) return { sse: openai ? openaiSSE(content) : anthropicSSE(content), chunkSize: 37, delayMs };
  return { json: openai ? openaiCompletion(content) : anthropicMessage(content), delayMs };
}

/** A researcher asks for a lookup, then answers with the fact its result holds; the orchestrator sums up. */
function contentFor(
  tools: boolean,
  prompt: string,
  result: string | undefined,
  length: number,
  alike: boolean,
): FakeContent {
  if (!tools) return { text: `summary of ${length} message(s): ${prompt.length} characters` };
  if (result === undefined) {
    // a model answers the same request differently: the two researchers of one topic part here
    const topic = /Research (\w+)/.exec(prompt)![1]!;
    const input = { topic, depth: alike ? topic.length : 1 + Math.floor(Math.random() * 1000) };
    return { toolCalls: [{ name: "lookup", input }] };
  }
  return { text: `note: ${(JSON.parse(result) as { fact: string }).fact}` };
}

/** The Responses API: a chained turn carries only its function_call_output items. */
function responsesReply(req: FakeRequest, alike: boolean): FakeReply {
  const body = req.body as { input: unknown; stream?: boolean; tools?: unknown };
  const items = Array.isArray(body.input) ? (body.input as Array<{ type?: string; output?: string }>) : [];
  const result = items.filter((i) => i.type === "function_call_output").pop()?.output;
  const prompt = typeof body.input === "string" ? JSON.stringify(body.input) : "";
  const content = contentFor(!!body.tools, prompt, result, items.length, alike);
  const delayMs = Math.floor(Math.random() * 25);
  return body.stream
    ? { sse: openaiResponseSSE(content), chunkSize: 41, delayMs }
    : { json: openaiResponse(content), delayMs };
}
