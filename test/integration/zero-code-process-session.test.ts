/**
 * An agent that calls blackbox() with no mode, run under the register hook: it gets
 * the hook's session, so its bb.tools() are recorded, and replayed without running.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../helpers/child.js";
import { anthropicMessage } from "../helpers/fakeProvider.js";
import { hookedNode, readCassette, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture();

test("blackbox() without a mode is the hook's session: bb.tools() are recorded, then replayed without running", async () => {
  const agent = join(fx.dir, "agent.mjs");
  const sideEffect = join(fx.dir, "booked.txt");
  writeFileSync(
    agent,
    `import Anthropic from "@anthropic-ai/sdk";
import { writeFileSync } from "node:fs";
import { blackbox } from ${JSON.stringify(join(ROOT, "dist", "index.js"))};
const bb = blackbox();
const tools = bb.tools({ book: async ({ city }) => { writeFileSync(${JSON.stringify(sideEffect)}, city); return { booked: city }; } });
const client = new Anthropic({ fetch: bb.fetch });
const ask = (messages) => client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages });
const first = await ask([{ role: "user", content: "book Lisbon" }]);
const use = first.content.find((b) => b.type === "tool_use");
const result = await tools.book(use.input);
const second = await ask([
  { role: "user", content: "book Lisbon" },
  { role: "assistant", content: first.content },
  { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: JSON.stringify(result) }] },
]);
console.log("mode:", bb.mode, "answer:", second.content[0].text);
`,
  );
  const out = join(fx.dir, "run.json");
  fx.fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "book", input: { city: "Lisbon" } }] }) },
    { json: anthropicMessage({ text: "Booked." }) },
  );
  const env = { ANTHROPIC_BASE_URL: fx.fake.anthropicUrl, ANTHROPIC_API_KEY: "sk-ant-process-session-0123456789" };
  const recorded = await hookedNode(fx.dir, [agent], { ...env, BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
  expect(recorded.stderr).toBe("");
  expect(recorded.stdout).toContain("mode: record answer: Booked.");
  const trace = readCassette(out);
  expect(trace.steps.map((s) => s.type)).toEqual([
    "model_input",
    "model_output",
    "tool_call",
    "tool_result",
    "model_input",
    "model_output",
    "metadata",
  ]);
  expect(trace.steps[3]!.payload).toEqual({ toolCallId: "call-0", toolName: "book", result: { booked: "Lisbon" } });

  const { rmSync } = await import("node:fs");
  rmSync(sideEffect);
  const replayed = await hookedNode(fx.dir, [agent], { ...env, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out }, true);
  expect(replayed.stderr).toBe("");
  expect(replayed.stdout).toContain("mode: replay answer: Booked.");
  expect(replayed.code).toBe(0);
  expect(existsSync(sideEffect)).toBe(false);
});
