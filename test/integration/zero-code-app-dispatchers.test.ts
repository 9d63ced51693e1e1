/**
 * An app that picks its own undici dispatcher: the SDK's `fetchOptions: { dispatcher }`
 * (both SDKs' documented proxy setup), or `setGlobalDispatcher(new Agent(...))` after the
 * hook put the door in the global slot. Such a fetch never reached the door: its model
 * calls went out unrecorded, and in a replay to the network. Each is recorded with its upstream leg through the app's dispatcher, and
 * replayed with no network, the tool not run and the app's dispatcher not called. A global dispatcher that wraps the door
 * (`new RetryAgent(getGlobalDispatcher())`, `getGlobalDispatcher().compose(...)`) works too.
 */
import { readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES, hookedNode, twoStepRecordedAndReplayed, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(FIXTURES, "app-dispatchers");
const fx = useZeroCodeFixture();

// How many times the app's dispatcher sees each model call: once in record (its upstream
// leg), none in replay; an interceptor composed over the door sits above it, so it sees
// the replayed calls too (answered below it, offline).
const SETUPS = [
  ["fetch-options", 1],
  ["global-after", 1],
  ["retry-agent", 1],
  ["compose", 2],
  ["rebuild", 1],
  ["dns", 2],
] as const;

describe.each(SETUPS)("the app's own dispatcher (%s)", (how, seenPerCall) => {
  it.each(["anthropic", "openai"] as const)("%s: recorded through it, replayed offline", async (provider) => {
    const dispatches = join(fx.dir, `${how}-${provider}-dispatches.log`);
    rmSync(dispatches, { force: true });
    // the dns interceptor resolves a name: the base URL names the fake by one
    const base = (url: string) => (how === "dns" ? url.replace("127.0.0.1", "localhost") : url);
    const env = {
      ANTHROPIC_BASE_URL: base(fx.fake.anthropicUrl),
      OPENAI_BASE_URL: base(fx.fake.openaiUrl),
      ANTHROPIC_API_KEY: "sk-ant-app-dispatcher-0000",
      OPENAI_API_KEY: "sk-app-dispatcher-0000",
      DISPATCH_LOG: dispatches,
    };
    await twoStepRecordedAndReplayed({
      fake: fx.fake,
      provider,
      streamed: false,
      cwd: APP,
      args: ["agent.mjs", provider, how],
      env,
      dir: fx.dir,
      name: `${how}-${provider}`,
      stdout: "text: Sunny in Lisbon.\n",
    });
    // the two recorded calls went upstream through the app's dispatcher (and the replayed ones by the interceptor over the door)
    const path = provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
    expect(readFileSync(dispatches, "utf8")).toBe(`POST ${path}\n`.repeat(2 * seenPerCall));
  });
});

it("a fetch the guard hands a door keeps what its init holds through its prototype (a Request as init, a getter)", async () => {
  const echo = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => res.end(`${req.method} ${body}`));
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/echo`;
  const code = `import { Agent, setGlobalDispatcher } from "undici";
setGlobalDispatcher(new Agent());
const url = ${JSON.stringify(url)};
const put = await fetch(url, new Request(url, { method: "PUT", body: "payload" }));
class Init { get method() { return "DELETE"; } }
const del = await fetch(url, new Init());
console.log(await put.text(), "|", await del.text());`;
  try {
    const r = await hookedNode(APP, ["--input-type=module", "-e", code], {
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: join(fx.dir, "init.json"),
    });
    expect(r.stdout).toBe("PUT payload | DELETE \n");
    expect(r.code).toBe(0);
  } finally {
    echo.close();
  }
});
