// A plain Anthropic tool loop, run under `blackbox record -- node agent.mjs`; nothing
// here mentions Blackbox. FAULT (see tools.mjs) ends it badly after the run.
import Anthropic from "@anthropic-ai/sdk";
import { get_weather } from "./tools.mjs";

const tools = [
  {
    name: "get_weather",
    description: "Weather",
    input_schema: { type: "object", properties: { city: { type: "string" } } },
  },
];
const client = new Anthropic({ maxRetries: 0 });
const messages = [{ role: "user", content: "Weather in Lisbon?" }];
for (let turn = 0; turn < 4; turn++) {
  const reply = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 256, tools, messages });
  messages.push({ role: "assistant", content: reply.content });
  const calls = reply.content.filter((b) => b.type === "tool_use");
  if (calls.length === 0) {
    console.log(`answer: ${reply.content.map((b) => b.text ?? "").join("")}`);
    break;
  }
  const results = [];
  for (const c of calls)
    results.push({ type: "tool_result", tool_use_id: c.id, content: JSON.stringify(await get_weather(c.input)) });
  messages.push({ role: "user", content: results });
}
if (process.env.FAULT === "throw-after") throw new Error("the agent crashed after its run");
if (process.env.FAULT === "reject-after") Promise.reject(new Error("nobody awaited this"));
if (process.env.FAULT === "exit-after") process.exit(3);
