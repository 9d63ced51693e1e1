/**
 * The Anthropic SDK's toolRunner() with a betaZodTool defined inline (no config, no code
 * change): its tool call is captured where the runner runs it (src/tools/frameworks/anthropic.ts),
 * recorded under the tool's name with the model's input alone, and answered from the
 * cassette in offline replays, where the tool never runs.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "vitest";
import { ROOT } from "../helpers/child.js";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "anthropic-tools");
const fx = useZeroCodeFixture("anthropic-tools");

describe("the Anthropic SDK's toolRunner(), with its tool inline", () => {
  it.each([
    ["a betaZodTool, ESM", "agent.mjs"],
    ["a betaTool, CommonJS", "agent.cjs"],
    ["a plain { type, name, input_schema, run } object", "plain.mjs"],
  ])(
    "%s: recorded under its name with the model's input; offline replays never run it",
    async (_, file) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire: "anthropic",
        cwd: APP,
        args: [file],
        env: { ANTHROPIC_BASE_URL: fx.fake.anthropicUrl, ANTHROPIC_API_KEY: "sk-ant-tools-0000" },
        dir: fx.dir,
        name: file,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});

it("in code, without the register hook: bb.tools() around the betaZodTool records it; offline replays never run it", async () => {
  await inlineToolRecordedAndReplayed({
    fake: fx.fake,
    wire: "anthropic",
    hook: false,
    cwd: APP,
    args: ["in-code.mjs"],
    env: {
      ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
      ANTHROPIC_API_KEY: "sk-ant-tools-0000",
      BLACKBOX_PKG: pathToFileURL(join(ROOT, "dist", "index.js")).href,
    },
    dir: fx.dir,
    name: "in-code",
    tool: "get_weather",
    input: { city: "Lisbon" },
  });
}, 60_000);
