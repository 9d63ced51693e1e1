/**
 * Mastra (@mastra/core) with its quickstart's tool inline (createTool(), no config in the
 * folder, no code change): each tool call of an Agent is captured where the agent hands its
 * tools to its loop (src/tools/frameworks/mastra.ts), under the name the model calls (the
 * key in the agent's `tools`), with the model's arguments alone (never Mastra's context:
 * the tool call id, run ids, tracing, the abort signal), and answered from the cassette in
 * offline replays, where the tool never runs. agent.generate() and agent.stream(); both
 * providers' wire formats through the AI SDK's providers.
 *
 * Mastra declares Node >= 22.13: on Node 20 this file is reported skipped, its fixture not
 * installed; it runs in the Node 24 and 22 runs of .ci/run (the zero-code-*.test.ts glob).
 */
import { join } from "node:path";
import { describe, it } from "vitest";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "mastra");
const SUPPORTED = Number(process.versions.node.split(".")[0]) >= 22;

describe.skipIf(!SUPPORTED)("Mastra's createTool inline (Mastra needs Node >= 22: skipped on Node 20)", () => {
  // a skipped suite is still collected, and its hooks never run: on Node 20 no temp folder is made (none would be
  // removed) and nothing installed
  const fx = (SUPPORTED ? useZeroCodeFixture("mastra") : undefined) as ReturnType<typeof useZeroCodeFixture>;

  it.each([
    ["anthropic", "generate"],
    ["openai", "stream"],
  ] as const)(
    "%s %s: recorded under its tools key with the model's input; offline replays never run it",
    async (wire, how) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire,
        streamed: how === "stream",
        cwd: APP,
        args: ["agent.mjs", wire, how],
        env: {
          ANTHROPIC_BASE_URL: `${fx.fake.url}/v1`, // the AI SDK's base URL holds the /v1 the official SDK adds itself
          OPENAI_BASE_URL: `${fx.fake.url}/v1`,
          ANTHROPIC_API_KEY: "sk-ant-mastra-0000",
          OPENAI_API_KEY: "sk-mastra-0000",
        },
        dir: fx.dir,
        name: `mastra-${wire}-${how}`,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    90_000,
  );
});
