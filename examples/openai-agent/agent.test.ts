// Replay as a plain unit test: the committed cassette answers every model call and every
// wrapped tool, so this runs offline, with no API key, and refunds nothing.
import OpenAI from "openai";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { blackbox, ReplayDivergenceError } from "@ardaulas/blackbox";
import { REFUND_TASK, runAgent } from "./agent.js";
import { issue_refund, lookup_order, refunds } from "./tools.js";

const cassette = fileURLToPath(new URL("./runs/refund.json", import.meta.url));

// The real tools, counting their runs.
const ran: string[] = [];
const counted = {
  lookup_order: (input: { orderId: string }) => (ran.push("lookup_order"), lookup_order(input)),
  issue_refund: (input: { orderId: string; amount: number; reason: string }) => (
    ran.push("issue_refund"),
    issue_refund(input)
  ),
};

test("the agent still refunds order A1001, without running a tool", async () => {
  const bb = blackbox({ mode: "replay", cassette });
  const answer = await runAgent(new OpenAI({ apiKey: "unused", fetch: bb.fetch }), bb.tools(counted), REFUND_TASK);
  await bb.finish({ result: answer });
  expect(answer).toContain("refund RF-A1001");
  expect(ran).toEqual([]);
  expect(refunds).toEqual([]);
});

test("a changed task fails the replay at the first model call, saying where", async () => {
  const bb = blackbox({ mode: "replay", cassette });
  const client = new OpenAI({ apiKey: "unused", fetch: bb.fetch, maxRetries: 0 });
  await expect(runAgent(client, bb.tools(counted), "Where is my order A1002?")).rejects.toThrow(
    "[blackbox] Replay diverged at step 0 (model_input)",
  );
  const err = await bb.finish().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ReplayDivergenceError);
  expect((err as ReplayDivergenceError).path).toBe("messages[0].content");
  expect(ran).toEqual([]);
});
