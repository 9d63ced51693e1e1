/**
 * The OpenAI Agents SDK with its tool inline (no config, no code change): each function tool
 * call is captured where the runner invokes it (src/tools/frameworks/agentsSdk.ts), under the
 * tool's name with the model's arguments alone, and answered from the cassette in offline
 * replays, where the tool never runs. Tracing is off here: its uploads in a replay are
 * another matter (docs/tools.md).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "vitest";
import { ROOT } from "../helpers/child.js";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "agents-sdk");
const fx = useZeroCodeFixture("agents-sdk");

describe("the OpenAI Agents SDK, with its tool inline", () => {
  it("a tool() function tool: recorded under its name with the model's arguments; offline replays never run it", async () => {
    await inlineToolRecordedAndReplayed({
      fake: fx.fake,
      wire: "openai",
      cwd: APP,
      args: ["agent.mjs"],
      env: { OPENAI_BASE_URL: fx.fake.openaiUrl, OPENAI_API_KEY: "sk-agents-0000", OPENAI_AGENTS_DISABLE_TRACING: "1" },
      dir: fx.dir,
      name: "agents",
      tool: "get_weather",
      input: { city: "Lisbon" },
    });
  }, 60_000);
});

it("in code, without the register hook: bb.tools() around the tool() records it; offline replays never run it", async () => {
  await inlineToolRecordedAndReplayed({
    fake: fx.fake,
    wire: "openai",
    hook: false,
    cwd: APP,
    args: ["in-code.mjs"],
    env: {
      OPENAI_BASE_URL: fx.fake.openaiUrl,
      OPENAI_API_KEY: "sk-agents-0000",
      OPENAI_AGENTS_DISABLE_TRACING: "1",
      BLACKBOX_PKG: pathToFileURL(join(ROOT, "dist", "index.js")).href,
    },
    dir: fx.dir,
    name: "in-code",
    tool: "get_weather",
    input: { city: "Lisbon" },
  });
}, 60_000);
