// A plain Anthropic tool loop. Nothing here mentions Blackbox.
import Anthropic from "@anthropic-ai/sdk";
import { book_hotel, get_weather } from "./tools.mjs";

const tools = [
  {
    name: "get_weather",
    description: "Weather for a city",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    name: "book_hotel",
    description: "Book a hotel",
    input_schema: {
      type: "object",
      properties: { city: { type: "string" }, nights: { type: "integer" } },
      required: ["city", "nights"],
    },
  },
];
const run = { get_weather, book_hotel };

const client = new Anthropic(); // ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment
const messages = [{ role: "user", content: "Find me a sunny city and book 2 nights." }];

for (let turn = 0; turn < 8; turn++) {
  const reply = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 512, tools, messages });
  messages.push({ role: "assistant", content: reply.content });
  const calls = reply.content.filter((b) => b.type === "tool_use");
  if (calls.length === 0) {
    console.log(
      reply.content
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join(""),
    );
    break;
  }
  const results = [];
  for (const call of calls) {
    const output = await run[call.name](call.input);
    results.push({ type: "tool_result", tool_use_id: call.id, content: JSON.stringify(output) });
  }
  messages.push({ role: "user", content: results });
}
