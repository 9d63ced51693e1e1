/**
 * LangChain.js with its tool inline (no config in the folder, no code change): each tool
 * call is captured where @langchain/core runs it (src/tools/frameworks/langchain.ts), under
 * the tool's name with the model's arguments alone, and answered from the cassette in
 * offline replays, where the tool never runs. LangGraph's createReactAgent (its ToolNode),
 * and a loop of the agent's own calling tool.invoke(toolCall); both providers. The legacy
 * AgentExecutor of @langchain/classic (createToolCallingAgent) runs its tools the same way.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "vitest";
import { ROOT } from "../helpers/child.js";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "langchain", "inline");
/** The package under test, as the in-code agents import it. */
const PACKAGE = pathToFileURL(join(ROOT, "dist", "index.js")).href;
const fx = useZeroCodeFixture("langchain", "langchain-classic");

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

describe("LangChain.js's legacy AgentExecutor (@langchain/classic), with its tool inline", () => {
  it.each([["anthropic"], ["openai"]] as const)(
    "%s: recorded under its name with the model's arguments; offline replays never run it",
    async (wire) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire,
        // createToolCallingAgent streams the model unless told not to.
        streamed: true,
        cwd: join(SDK_APPS, "langchain-classic"),
        args: ["agent.mjs", wire],
        env: {
          ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
          OPENAI_BASE_URL: fx.fake.openaiUrl,
          ANTHROPIC_API_KEY: "sk-ant-langchain-0000",
          OPENAI_API_KEY: "sk-langchain-0000",
        },
        dir: fx.dir,
        name: `classic-${wire}`,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});

describe("LangChain.js in code, without the register hook: bb.tools() around its tool", () => {
  it.each([["anthropic"], ["openai"]] as const)(
    "%s: the tool() is recorded under its name with the model's arguments; offline replays never run it",
    async (wire) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire,
        hook: false,
        cwd: join(SDK_APPS, "langchain", "in-code"),
        args: ["agent.mjs", wire],
        env: {
          ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
          OPENAI_BASE_URL: fx.fake.openaiUrl,
          ANTHROPIC_API_KEY: "sk-ant-langchain-0000",
          OPENAI_API_KEY: "sk-langchain-0000",
          BLACKBOX_PKG: PACKAGE,
        },
        dir: fx.dir,
        name: `in-code-${wire}`,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});
