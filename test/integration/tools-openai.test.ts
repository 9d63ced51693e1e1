/**
 * The openai SDK's runTools() with its tool inline (no config, no code change): each call
 * is captured where the runner runs it (src/tools/frameworks/openaiRunTools.ts), under the
 * tool's name with the model's arguments alone (never the runner), and answered from the
 * cassette in offline replays, where the tool never runs. A function tool with parse, and
 * one without (the model's JSON string, recorded as JSON), and a zodFunction() (a strict
 * tool, recorded with its strict flag).
 */
import { join } from "node:path";
import { describe, it } from "vitest";
import { inlineToolRecordedAndReplayed } from "./toolsHelpers.js";
import { SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "openai-tools");
const fx = useZeroCodeFixture("openai-tools", "openai4", "openai5");

describe("the openai SDK's runTools(), with its tool inline", () => {
  it.each([["parse"], ["raw"], ["zod"]])(
    "a function tool (%s): recorded under its name with the model's arguments; offline replays never run it",
    async (kind) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire: "openai",
        cwd: APP,
        args: ["agent.mjs", kind],
        env: { OPENAI_BASE_URL: fx.fake.openaiUrl, OPENAI_API_KEY: "sk-tools-0000" },
        dir: fx.dir,
        name: kind,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});

describe("runTools() on the older majors the same patch reads", () => {
  it.each([["openai4"], ["openai5"]])(
    "%s: recorded under its name with the model's arguments; offline replays never run it",
    async (app) => {
      await inlineToolRecordedAndReplayed({
        fake: fx.fake,
        wire: "openai",
        cwd: join(SDK_APPS, app),
        args: ["run-tools.mjs"],
        env: { OPENAI_BASE_URL: fx.fake.openaiUrl, OPENAI_API_KEY: "sk-tools-0000" },
        dir: fx.dir,
        name: app,
        tool: "get_weather",
        input: { city: "Lisbon" },
      });
    },
    60_000,
  );
});
