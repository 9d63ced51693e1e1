// Records runs/trip.json once, against the repository's fake provider (scripted model
// replies on loopback), with the real Anthropic SDK and the real tools.
//   npx tsx examples/anthropic-agent/record.ts
// Against the real API you would drop the fake provider and the baseURL, and set
// ANTHROPIC_API_KEY; the rest is the same.
import Anthropic from "@anthropic-ai/sdk";
import { fileURLToPath } from "node:url";
import { blackbox } from "@ardaulas/blackbox";
import { anthropicMessage, startFakeProvider } from "../../test/helpers/fakeProvider.js";
import { runAgent, TRIP_TASK } from "./agent.js";
import { tools } from "./tools.js";

const out = fileURLToPath(new URL("./runs/trip.json", import.meta.url));

const fake = await startFakeProvider();
fake.enqueue(
  {
    json: anthropicMessage({
      text: "Let me check the weather in both cities.",
      toolCalls: [
        { name: "get_weather", input: { city: "Lisbon" } },
        { name: "get_weather", input: { city: "Porto" } },
      ],
    }),
  },
  {
    json: anthropicMessage({
      text: "Lisbon is sunny. Booking it.",
      toolCalls: [{ name: "book_hotel", input: { city: "Lisbon", nights: 2 } }],
    }),
  },
  {
    json: anthropicMessage({
      text: "Booked 2 nights in Lisbon (confirmation HTL-LIS-2): sunny and 24°C, while Porto expects rain.",
    }),
  },
);

// A fixed clock, so that re-recording gives the same bytes and a clean git diff.
let tick = Date.UTC(2026, 0, 1);
const bb = blackbox({ mode: "record", out, now: () => (tick += 250) });
try {
  const client = new Anthropic({
    apiKey: "sk-ant-fake-key-for-recording",
    baseURL: fake.anthropicUrl,
    fetch: bb.fetch,
  });
  const answer = await runAgent(client, bb.tools(tools), TRIP_TASK);
  await bb.finish({ result: answer });
  console.log(`recorded ${out}\nanswer: ${answer}`);
} finally {
  await fake.close();
}
