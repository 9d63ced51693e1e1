/**
 * An app that picks its own undici dispatcher: the SDK's `fetchOptions: { dispatcher }`
 * (both SDKs' documented proxy setup), or `setGlobalDispatcher(new Agent(...))` after the
 * hook put the door in the global slot; with the global fetch or undici's own. Such a
 * fetch never reached the door: its model calls went out unrecorded, and in a replay to
 * the network. Each is recorded with its upstream leg through the app's dispatcher, and
 * replayed with no network, the tool not run and the app's dispatcher not called. A global dispatcher that wraps the door
 * (`new RetryAgent(getGlobalDispatcher())`, `getGlobalDispatcher().compose(...)`) works too.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES, twoStepRecordedAndReplayed, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(FIXTURES, "app-dispatchers");
const fx = useZeroCodeFixture();

// How many times the app's dispatcher sees each model call: once in record (its upstream
// leg), none in replay; an interceptor composed over the door sits above it, so it sees
// the replayed calls too (answered below it, offline).
const SETUPS = [
  ["fetch-options", 1],
  ["global-after", 1],
  ["undici-fetch", 1],
  ["undici-global", 1],
  ["retry-agent", 1],
  ["compose", 2],
] as const;

describe.each(SETUPS)("the app's own dispatcher (%s)", (how, seenPerCall) => {
  it.each(["anthropic", "openai"] as const)("%s: recorded through it, replayed offline", async (provider) => {
    const dispatches = join(fx.dir, `${how}-${provider}-dispatches.log`);
    rmSync(dispatches, { force: true });
    const env = {
      ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
      OPENAI_BASE_URL: fx.fake.openaiUrl,
      ANTHROPIC_API_KEY: "sk-ant-app-dispatcher-0000",
      OPENAI_API_KEY: "sk-app-dispatcher-0000",
      DISPATCH_LOG: dispatches,
    };
    await twoStepRecordedAndReplayed({ fake: fx.fake, provider, streamed: false, cwd: APP, args: ["agent.mjs", provider, how], env, dir: fx.dir, name: `${how}-${provider}`, stdout: "text: Sunny in Lisbon.\n" });
    // the two recorded calls went upstream through the app's dispatcher (and the replayed ones by the interceptor over the door)
    const path = provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
    expect(readFileSync(dispatches, "utf8")).toBe(`POST ${path}\n`.repeat(2 * seenPerCall));
  });
});
