/**
 * The Vercel AI SDK with its tool inline (no config in the folder, no code change): each
 * tool call is captured where the SDK runs it (src/tools/frameworks/aiSdk.ts), under the
 * name the model calls, with the model's input alone (never `execute`'s second argument,
 * which holds the provider's tool call id), and answered from the cassette in offline
 * replays, where the tool never runs. tool() and a plain object; generateText, streamText
 * and the ToolLoopAgent class; both providers' wire formats.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "vitest";
import { ROOT } from "../helpers/child.js";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "ai-sdk", "inline");
/** The package under test, as the in-code agents import it. */
const PACKAGE = pathToFileURL(join(ROOT, "dist", "index.js")).href;
const fx = useZeroCodeFixture("ai-sdk");

describe("the Vercel AI SDK, with its tool inline", () => {
  it.each([
    ["anthropic", "generate", ""],
    ["openai", "stream", "plain"],
    ["anthropic", "agent", "plain"],
  ] as const)(
    "%s %s %s: recorded under its name with the model's input; offline replays never run it",
    async (wire, how, plain) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire,
        streamed: how === "stream",
        cwd: APP,
        args: ["agent.mjs", wire, how, ...(plain ? [plain] : [])],
        env: {
          ANTHROPIC_BASE_URL: `${fx.fake.url}/v1`, // the AI SDK's base URL holds the /v1 the official SDK adds itself
          OPENAI_BASE_URL: `${fx.fake.url}/v1`,
          ANTHROPIC_API_KEY: "sk-ant-ai-sdk-0000",
          OPENAI_API_KEY: "sk-ai-sdk-0000",
        },
        dir: fx.dir,
        name: `${wire}-${how}-${plain || "tool"}`,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});

describe("the Vercel AI SDK in code, without the register hook: bb.tools() around its tools", () => {
  it.each([
    ["anthropic", "generate"],
    ["openai", "stream"],
  ] as const)(
    "%s %s: the tool() is recorded under its key with the model's input; offline replays never run it",
    async (wire, how) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire,
        streamed: how === "stream",
        hook: false,
        cwd: join(SDK_APPS, "ai-sdk", "in-code"),
        args: ["agent.mjs", wire, how],
        env: {
          ANTHROPIC_BASE_URL: `${fx.fake.url}/v1`,
          OPENAI_BASE_URL: `${fx.fake.url}/v1`,
          ANTHROPIC_API_KEY: "sk-ant-ai-sdk-0000",
          OPENAI_API_KEY: "sk-ai-sdk-0000",
          BLACKBOX_PKG: PACKAGE,
        },
        dir: fx.dir,
        name: `in-code-${wire}-${how}`,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});
