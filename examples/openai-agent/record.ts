// Records runs/refund.json once, against the repository's fake provider (scripted model
// replies on loopback), with the real OpenAI SDK and the real tools.
//   npx tsx examples/openai-agent/record.ts
// Against the real API you would drop the fake provider and the baseURL, and set
// OPENAI_API_KEY; the rest is the same.
import OpenAI from "openai";
import { fileURLToPath } from "node:url";
import { blackbox } from "@ardaulas/blackbox";
import { openaiCompletion, startFakeProvider } from "../../test/helpers/fakeProvider.js";
import { REFUND_TASK, runAgent } from "./agent.js";
import { tools } from "./tools.js";

const out = fileURLToPath(new URL("./runs/refund.json", import.meta.url));

const fake = await startFakeProvider();
fake.enqueue(
  { json: openaiCompletion({ toolCalls: [{ name: "lookup_order", input: { orderId: "A1001" } }] }) },
  {
    json: openaiCompletion({
      toolCalls: [{ name: "issue_refund", input: { orderId: "A1001", amount: 39.9, reason: "arrived broken" } }],
    }),
  },
  {
    json: openaiCompletion({
      text: "Sorry about the kettle! I refunded the full 39.90 for order A1001 (refund RF-A1001).",
    }),
  },
);

// A fixed clock, so that re-recording gives the same bytes and a clean git diff.
let tick = Date.UTC(2026, 0, 1);
const bb = blackbox({ mode: "record", out, now: () => (tick += 250) });
try {
  const client = new OpenAI({ apiKey: "sk-proj-fake-key-for-recording", baseURL: fake.openaiUrl, fetch: bb.fetch });
  const answer = await runAgent(client, bb.tools(tools), REFUND_TASK);
  await bb.finish({ result: answer });
  console.log(`recorded ${out}\nanswer: ${answer}`);
} finally {
  await fake.close();
}
