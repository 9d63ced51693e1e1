/**
 * LangChain.js with its tool inline (no config in the folder, no code change): each tool
 * call is captured where @langchain/core runs it (src/tools/frameworks/langchain.ts), under
 * the tool's name with the model's arguments alone, and answered from the cassette in
 * offline replays, where the tool never runs. LangGraph's createReactAgent (its ToolNode),
 * and a loop of the agent's own calling tool.invoke(toolCall); both providers.
 */
import { join } from "node:path";
import { describe, it } from "vitest";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "langchain", "inline");
const fx = useZeroCodeFixture("langchain");

describe("LangChain.js, with its tool inline", () => {
  it.each([
    ["anthropic", "graph"],
    ["openai", "graph"],
    ["anthropic", "loop"],
  ] as const)(
    "%s %s: recorded under its name with the model's arguments; offline replays never run it",
    async (wire, mode) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire,
        cwd: APP,
        args: ["agent.mjs", wire, mode],
        env: {
          ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
          OPENAI_BASE_URL: fx.fake.openaiUrl,
          ANTHROPIC_API_KEY: "sk-ant-langchain-0000",
          OPENAI_API_KEY: "sk-langchain-0000",
        },
        dir: fx.dir,
        name: `${wire}-${mode}`,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});
