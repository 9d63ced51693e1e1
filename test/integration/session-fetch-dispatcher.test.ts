/**
 * bb.fetch given the SDK's `fetchOptions: { dispatcher }` (both SDKs' documented proxy
 * setup): a recorded call goes upstream through that dispatcher, not around it.
 */
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Dispatcher } from "undici";
import { afterAll, beforeAll, expect, test } from "vitest";
import { blackbox, loadTrace } from "../../src/index.js";
import { anthropicMessage, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());

class LoggedAgent extends Agent {
  readonly seen: string[] = [];
  dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.seen.push(`${opts.method} ${opts.path}`);
    return super.dispatch(opts, handler);
  }
}

test("a recorded call goes upstream through the SDK's fetchOptions dispatcher", async () => {
  const out = join(mkdtempSync(join(tmpdir(), "bbx-fetch-dispatcher-")), "run.json");
  const dispatcher = new LoggedAgent();
  fake.enqueue({ json: anthropicMessage({ text: "Through the proxy." }) });
  const bb = blackbox({ mode: "record", out });
  const client = new Anthropic({
    baseURL: fake.anthropicUrl,
    apiKey: "sk-ant-fetch-dispatcher-0000",
    fetch: bb.fetch,
    fetchOptions: { dispatcher } as never,
    maxRetries: 0,
  });
  const reply = await client.messages.create({
    model: "claude-haiku-4-5",
    max_tokens: 64,
    messages: [{ role: "user", content: "hi" }],
  });
  await bb.finish();
  expect(reply.content).toEqual([{ type: "text", text: "Through the proxy." }]);
  expect(dispatcher.seen).toEqual(["POST /v1/messages"]);
  expect((await loadTrace(out)).steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
  await dispatcher.close();
});
