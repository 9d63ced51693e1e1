// A small OpenAI chat.completions agent with function tools, written as if Blackbox did
// not exist: it loops until the model stops calling tools, and returns the answer.
import type OpenAI from "openai";
import { toolDefinitions, type SupportTools } from "./tools.js";

const SYSTEM = "You are a customer support agent. Look the order up before you refund it.";
const MAX_TURNS = 8;

/** The task runs/refund.json was recorded with. */
export const REFUND_TASK = "My order A1001 arrived broken. Can I get my money back?";

export async function runAgent(client: OpenAI, tools: SupportTools, task: string): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: task },
  ];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const completion = await client.chat.completions.create({
      model: "gpt-4.1",
      max_completion_tokens: 1024,
      tools: toolDefinitions,
      messages,
    });
    const message = completion.choices[0]!.message;
    messages.push({ role: "assistant", content: message.content, tool_calls: message.tool_calls });
    const calls = (message.tool_calls ?? []).filter((c) => c.type === "function");
    if (calls.length === 0) return message.content ?? message.refusal ?? "";
    for (const call of calls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: await runTool(tools, call.function) });
    }
  }
  throw new Error(`the agent did not answer within ${MAX_TURNS} turns; raise MAX_TURNS or simplify the task`);
}

async function runTool(tools: SupportTools, fn: { name: string; arguments: string }): Promise<string> {
  const tool = tools[fn.name as keyof SupportTools] as ((input: unknown) => Promise<unknown>) | undefined;
  try {
    if (!tool) throw new Error(`unknown tool "${fn.name}"`);
    return JSON.stringify(await tool(JSON.parse(fn.arguments)));
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}
