/**
 * A config may name a framework's tool object where it names a function: a Vercel AI SDK
 * tool(), a LangChain tool(), an OpenAI Agents SDK tool() (src/tools/runnerTools.ts). Its
 * function is wrapped in place and records the model's arguments alone, never what the
 * framework passes beside them (the AI SDK's toolCallId, a LangChain tool call's id, the
 * Agents SDK's run context and call details: provider ids a cassette must not hold). Each
 * agent runs its exported tool by hand, where no framework capture reaches it, and replays
 * offline without running it.
 */
import { join } from "node:path";
import { describe, it } from "vitest";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture("ai-sdk", "langchain", "agents-sdk");

describe("a config naming a framework's tool object", () => {
  it.each([
    ["a Vercel AI SDK tool()", "ai-sdk"],
    ["a LangChain tool()", "langchain"],
    ["an OpenAI Agents SDK tool()", "agents-sdk"],
  ])(
    "%s: accepted, recorded with the model's arguments alone; offline replays never run it",
    async (_, app) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire: "openai",
        noModel: true,
        cwd: join(SDK_APPS, app, "config-object"),
        args: ["agent.mjs"],
        env: {},
        dir: fx.dir,
        name: app,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});
