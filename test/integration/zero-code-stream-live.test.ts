/**
 * A live stream recorded through the global dispatcher door (the zero-code path)
 * reaches the agent as the provider sends it, not when it ends, and is still recorded.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDispatcher } from "../../src/interception/dispatcher/door.js";
import { createSession } from "../../src/blackbox.js";
import { anthropicSSE, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());

test("the first token arrives while the provider is still streaming, and the reply is recorded", async () => {
  const out = join(mkdtempSync(join(tmpdir(), "bbx-ttft-")), "stream.json");
  const session = createSession({ mode: "record", out, providers: { anthropic: [fake.url] } });
  const undo = await installDispatcher(session);
  try {
    const text = "Lisbon will be sunny and warm all weekend long.";
    const events = anthropicSSE({ text });
    // 50-byte pieces, 20 ms apart: the whole stream takes about bytes / 50 * 20 ms
    const bytes = Buffer.byteLength(events.join(""));
    fake.enqueue({ sse: events, chunkSize: 50, delayMs: 20 });
    const client = new Anthropic({ apiKey: "sk-ant-ttft-test-0123456789", baseURL: fake.url });
    const started = Date.now();
    let firstToken = 0;
    const stream = client.messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 64,
      messages: [{ role: "user", content: "weather?" }],
    });
    stream.on("text", () => (firstToken ||= Date.now() - started));
    const message = await stream.finalMessage();
    const total = Date.now() - started;
    expect(message.content).toEqual([{ type: "text", text }]);
    expect(total).toBeGreaterThan((bytes / 50) * 20 * 0.8);
    // the first text delta comes after message_start, well before the last byte: the
    // agent must get it then, not when the stream ends
    expect(firstToken).toBeLessThan(total * 0.75);
    await session.finish();
    const trace = JSON.parse(readFileSync(out, "utf8"));
    expect(trace.steps[1].payload).toEqual({ type: "final_answer", text });
  } finally {
    undo();
    session.dispose();
  }
});
