/**
 * LangChain 1.x's createAgent with ChatOpenAI, under the register hook with no code change
 * (test/fixtures/sdk-versions/langchain-agent): createAgent names every AI message it sends
 * back "model", which Blackbox refused as a message name, so no such agent recorded. Now
 * the name is recorded and compared: a tool call and the answer, recorded against the fake
 * provider and replayed under unshare -n with the tool's side effect absent.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { readCassette, SDK_APPS, twoStepRecordedAndReplayed, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "langchain-agent");
const fx = useZeroCodeFixture("langchain-agent");

it('createAgent with ChatOpenAI records (its AI messages named "model") and replays offline', async () => {
  await twoStepRecordedAndReplayed({
    fake: fx.fake,
    provider: "openai",
    streamed: false,
    cwd: APP,
    args: ["agent.mjs"],
    env: { OPENAI_BASE_URL: fx.fake.openaiUrl, OPENAI_API_KEY: "sk-langchain-agent-0000" },
    dir: fx.dir,
    name: "create-agent",
    stdout: "answer: Sunny in Lisbon.\n",
  });
  const trace = readCassette(join(fx.dir, "create-agent.json"));
  const second = trace.steps[4]!.payload as { messages: { role: string; name?: string }[] };
  expect(second.messages.map((m) => [m.role, m.name])).toEqual([
    ["user", undefined],
    ["assistant", "model"],
    ["user", undefined],
  ]);
});
