/**
 * A framework version outside a target's range (src/tools/frameworks/): the app's own
 * dependency is named in one line at start, and its tool still runs (it is not recorded, and
 * that is said, not skipped in silence; the closing warning names it too); a copy another package brings along is not the app's and
 * says nothing (the LangChain apps of tools-langchain.test.ts, whose @langchain/anthropic
 * brings the same old SDK, print nothing).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicMessage } from "../helpers/fakeProvider.js";
import { hookedNode, readCassette, SDK_APPS, toolNames, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture("langchain");

describe("a framework version Blackbox does not capture", () => {
  it("@anthropic-ai/sdk 0.122.0's toolRunner(): one line naming it and its version; the tool runs", async () => {
    fx.fake.enqueue(
      { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }) },
      { json: anthropicMessage({ text: "Sunny in Lisbon." }) },
    );
    const log = join(fx.dir, "old.log");
    const cassette = join(fx.dir, "old.json");
    const r = await hookedNode(join(SDK_APPS, "langchain", "old-anthropic"), ["agent.mjs"], {
      ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
      ANTHROPIC_API_KEY: "sk-ant-old-0000",
      TOOL_LOG: log,
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: cassette,
    });
    const [versionLine, unseen] = r.stderr.split("\n");
    expect(versionLine).toBe(
      "blackbox: the Anthropic SDK's toolRunner() (@anthropic-ai/sdk 0.122.0) is not a version whose tool calls Blackbox captures (>=1.14.0 <2.0.0): its tools run and are not recorded; use a version in that range, or name the tools in blackbox.config (docs/tools.md)",
    );
    // the recording's closing warning names the tool that ran unrecorded
    expect(unseen).toContain('ran outside Blackbox\'s view and is not in the cassette: "get_weather" (1 call)');
    expect(r.stdout).toBe("answer: Sunny in Lisbon.\n");
    expect(r.code).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\n");
    expect(toolNames(readCassette(cassette))).toEqual([]);
  }, 60_000);
});
