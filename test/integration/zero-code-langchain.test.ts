/**
 * LangChain.js under the register hook, with no code change (@langchain/anthropic and
 * @langchain/openai 1.x, which call the official SDKs, and LangGraph's createReactAgent;
 * installed side by side in test/fixtures/sdk-versions/langchain). A tool call, then the
 * answer: a loop of the agent's own over bindTools(), the same streamed, and the prebuilt
 * ReAct agent; recorded against the fake provider and replayed under unshare -n with the
 * tool's side effect absent. Found by trying it (helper): ChatOpenAI puts the tool's name on
 * every tool message, which Blackbox refused as a message name, so no OpenAI run recorded.
 * ChatOpenAI with `useResponsesApi: true` (`responses`) sends the Responses API.
 */
import { join } from "node:path";
import { describe, it } from "vitest";
import { SDK_APPS, twoStepRecordedAndReplayed, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "langchain");
const fx = useZeroCodeFixture("langchain");

const env = (extra: Record<string, string | undefined> = {}) => ({
  ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
  OPENAI_BASE_URL: fx.fake.openaiUrl,
  ANTHROPIC_API_KEY: "sk-ant-langchain-0000",
  OPENAI_API_KEY: "sk-langchain-0000",
  ...extra,
});

describe("LangChain.js, recorded and replayed offline", () => {
  it.each([
    ["anthropic", "loop"],
    ["anthropic", "stream"],
    ["anthropic", "graph"],
    ["openai", "loop"],
    ["openai", "stream"],
    ["openai", "graph"],
    ["responses", "loop"],
    ["responses", "stream"],
    ["responses", "graph"],
  ] as const)(
    "%s %s: a tool call and the answer; the replay sends nothing and runs no tool",
    async (provider, mode) => {
      const name = `${provider}-${mode}`;
      await twoStepRecordedAndReplayed({
        fake: fx.fake,
        provider,
        streamed: mode === "stream",
        cwd: APP,
        args: ["agent.mjs", provider, mode],
        env: env(),
        dir: fx.dir,
        name,
        stdout: "answer: Sunny in Lisbon.\n",
      });
    },
  );
});
