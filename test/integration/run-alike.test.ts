/**
 * Two conversations alike all along in one run (docs/conversations.md#conversations-that-are-alike): the same
 * first request, the same reply, the same tool call, a tool that returns another random value each time. The
 * second researcher calls the tool first, so the first conversation that asked for it takes the call; the
 * request that carries each result back says whose it was, and each cassette holds its own. In process, in
 * code, against the fake provider; the replay serves each researcher a conversation whole.
 */
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { blackbox } from "../../src/index.js";
import { loadRunSync } from "../../src/store/run.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { fanoutRespondAlike } from "./runHelpers.js";

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider({ respond: fanoutRespondAlike });
  dir = mkdtempSync(join(tmpdir(), "bb-run-alike-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOOLS = [
  {
    name: "lookup",
    description: "Look up a fact about a topic",
    input_schema: { type: "object" as const, properties: { topic: { type: "string" } }, required: ["topic"] },
  },
];
const lookup = async ({ topic }: { topic: string }) => ({
  topic,
  fact: `${topic}-${Math.random().toString(36).slice(2, 8)}`,
});

/** A researcher's tool loop; `before`: awaited before it calls its tool (to set who calls first). */
async function researcher(
  fetch: typeof globalThis.fetch,
  tools: { lookup: typeof lookup },
  before: Promise<void>,
  called: () => void,
) {
  const client = new Anthropic({ apiKey: "sk-ant-test-alike-0000", baseURL: fake.anthropicUrl, fetch, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Research tides." }];
  for (;;) {
    const msg = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 256,
      system: "You are a researcher.",
      tools: TOOLS,
      messages,
    });
    messages.push({ role: "assistant", content: msg.content });
    const use = msg.content.find((b) => b.type === "tool_use");
    if (!use) return msg.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    await before;
    const out = await tools.lookup(use.input as { topic: string });
    called();
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: use.id, content: JSON.stringify(out) }],
    });
  }
}

/** Both researchers at once, the second calling its tool first. */
async function pair(bb: ReturnType<typeof blackbox>): Promise<string[]> {
  const tools = bb.tools({ lookup });
  let secondCalled!: () => void;
  const second = new Promise<void>((r) => (secondCalled = r));
  return Promise.all([
    researcher(bb.fetch, tools, second, () => undefined),
    researcher(bb.fetch, tools, Promise.resolve(), secondCalled),
  ]);
}

it("each cassette holds the tool result its own conversation carried back, and the replay serves each whole", async () => {
  const folder = join(dir, "alike") + "/";
  const rec = blackbox({ mode: "record", out: folder });
  const answers = await pair(rec);
  await rec.finish();
  expect(answers[0]).not.toBe(answers[1]); // two random facts
  const { traces } = loadRunSync(folder);
  expect(traces).toHaveLength(2);
  for (const t of traces) {
    const result = t.steps.find((s) => s.type === "tool_result")!.payload as { result: { fact: string } };
    const next = t.steps.filter((s) => s.type === "model_input")[1]!;
    expect(JSON.stringify(next.payload)).toContain(result.result.fact);
  }
  const before = fake.requests.length;
  const rep = blackbox({ mode: "replay", cassette: folder });
  const replayed = await pair(rep);
  await rep.finish();
  expect(fake.requests.length).toBe(before);
  expect([...replayed].sort()).toEqual([...answers].sort());
});
