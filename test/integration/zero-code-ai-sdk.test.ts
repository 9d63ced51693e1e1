/**
 * The Vercel AI SDK under the register hook, with no code change (ai 6 with @ai-sdk/anthropic
 * and @ai-sdk/openai, installed side by side in test/fixtures/sdk-versions/ai-sdk). It is not
 * an official SDK: its providers send the Messages API and chat completions wire formats
 * themselves, to the same endpoints, so the door records them as it does the SDKs' calls.
 * A two-step agent (a tool call, then the answer), generateText and streamText, recorded
 * against the fake provider and replayed under unshare -n with the tool's side effect
 * absent. Found by trying it (helper): a replayed text block carried `citations: null`,
 * which @ai-sdk/anthropic's reply check refuses; its base URL set in code went around the
 * session (its user-agent is neither SDK's). openai(model) is the Responses API, with `store`
 * on (its default): its second step sends the first step's items back as item references.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookedNode, SDK_APPS, twoStepRecordedAndReplayed, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "ai-sdk");
const fx = useZeroCodeFixture("ai-sdk");

const env = (extra: Record<string, string | undefined> = {}) => ({
  ANTHROPIC_BASE_URL: `${fx.fake.url}/v1`, // the AI SDK's base URL holds the /v1 the official SDK adds itself
  OPENAI_BASE_URL: `${fx.fake.url}/v1`,
  ANTHROPIC_API_KEY: "sk-ant-ai-sdk-0000",
  OPENAI_API_KEY: "sk-ai-sdk-0000",
  ...extra,
});

describe("the Vercel AI SDK, recorded and replayed offline", () => {
  it.each([
    ["anthropic", ""],
    ["anthropic", "stream"],
    ["openai", ""],
    ["openai", "stream"],
    ["responses", ""],
    ["responses", "stream"],
  ] as const)(
    "%s %s: a tool call and the answer; the replay sends nothing and runs no tool",
    async (provider, mode) => {
      const name = `${provider}-${mode || "plain"}`;
      await twoStepRecordedAndReplayed({
        fake: fx.fake,
        provider,
        streamed: mode === "stream",
        cwd: APP,
        args: ["agent.mjs", provider, ...(mode ? [mode] : [])],
        env: env(),
        dir: fx.dir,
        name,
        stdout: "steps: 2, text: Sunny in Lisbon.\n",
      });
    },
  );
});

describe("what the door stops", () => {
  it.each(["anthropic", "openai"] as const)(
    "%s with its base URL set in code, named nowhere: stopped, naming the base URL to add",
    async (provider) => {
      const seen = fx.fake.requests.length;
      const cassette = join(fx.dir, `in-code-${provider}.json`);
      const r = await hookedNode(
        APP,
        ["agent.mjs", provider],
        env({
          TOOL_LOG: join(fx.dir, "in-code.log"),
          ANTHROPIC_BASE_URL: undefined,
          OPENAI_BASE_URL: undefined,
          GATEWAY: fx.fake.url,
          BLACKBOX_MODE: "record",
          BLACKBOX_OUT: cassette,
        }),
      );
      const base = provider === "anthropic" ? fx.fake.url : `${fx.fake.url}/v1`; // Blackbox's base URLs are the official SDKs' (no /v1 for Anthropic)
      expect(r.stdout).toMatch(
        new RegExp(
          `^failed: \\[blackbox\\] a model call of an SDK client \\(user-agent "ai/6\\.0\\.326 ai-sdk/provider-utils/[^"]*"\\) went to ${base.replace(/[.]/g, "\\.")}, which is not a provider base URL Blackbox knows`,
        ),
      );
      expect(r.code).toBe(1);
      expect(existsSync(cassette)).toBe(false);
      expect(fx.fake.requests.length).toBe(seen);
    },
  );
});
