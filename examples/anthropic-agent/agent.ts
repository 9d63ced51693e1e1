// A small Anthropic tool-using agent, written as if Blackbox did not exist: it takes a
// client and its tools, loops until the model stops asking for tools, returns the answer.
import type Anthropic from "@anthropic-ai/sdk";
import { toolDefinitions, type TripTools } from "./tools.js";

const SYSTEM = "You are a travel agent. Check the weather before you book, and book only where it is sunny.";
const MAX_TURNS = 8;

/** The task runs/trip.json was recorded with. */
export const TRIP_TASK = "Find me a sunny weekend: Lisbon or Porto? Book 2 nights there.";

export async function runAgent(client: Anthropic, tools: TripTools, task: string): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const reply = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      system: SYSTEM,
      tools: toolDefinitions,
      messages,
    });
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    if (uses.length === 0) {
      return reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const use of uses) {
      results.push(await runTool(tools, use));
    }
    messages.push({ role: "user", content: results });
  }
  throw new Error(`the agent did not answer within ${MAX_TURNS} turns; raise MAX_TURNS or simplify the task`);
}

async function runTool(tools: TripTools, use: Anthropic.ToolUseBlock): Promise<Anthropic.ToolResultBlockParam> {
  const fn = tools[use.name as keyof TripTools] as ((input: unknown) => Promise<unknown>) | undefined;
  try {
    if (!fn) throw new Error(`unknown tool "${use.name}"`);
    return { type: "tool_result", tool_use_id: use.id, content: JSON.stringify(await fn(use.input)) };
  } catch (err) {
    return { type: "tool_result", tool_use_id: use.id, content: (err as Error).message, is_error: true };
  }
}
