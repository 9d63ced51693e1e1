/**
 * Gemini in a run of several conversations (docs/conversations.md): three researchers fanned
 * out with Promise.all on the real @google/genai through one session's bb.fetch, each its own
 * tool loop, against a fake provider answering after random delays. Gemini's function calls
 * carry no id, so a conversation's next request is known by its text (contents moved last:
 * src/providers/gemini/url.ts) and by its reply's call, named: each researcher is one
 * conversation of two model calls, and the replay gives every answer back, the tool not run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { blackbox } from "../../src/index.js";
import { loadRunSync } from "../../src/store/run.js";
import { startFakeProvider, toolResultsIn, type FakeProvider } from "../helpers/fakeProvider.js";
import { geminiKit } from "../helpers/geminiAgent.js";
import { geminiResponse } from "../helpers/geminiWire.js";

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider({
    respond: (req) => {
      const topic = /Research (\w+)/.exec(JSON.stringify((req.body as { contents: unknown[] }).contents[0]))![1]!;
      const results = toolResultsIn(req.body);
      const c =
        results.length === 0
          ? { toolCalls: [{ name: "get_weather", input: { city: topic } }] }
          : { text: `note on ${topic}: ${(JSON.parse(results[0]!) as { output: { t: number } }).output.t}` };
      return { json: geminiResponse(c), delayMs: Math.floor(Math.random() * 25) };
    },
  });
  dir = mkdtempSync(join(tmpdir(), "bbx-gemini-runs-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOPICS = ["tides", "comets", "glaciers"];

async function fanOut(options: Parameters<typeof blackbox>[0]) {
  const bb = blackbox(options);
  let runs = 0;
  const tools = bb.tools({
    get_weather: async ({ city }: { city: string }) => (runs++, { city, t: Math.random() }),
  });
  const notes = await Promise.all(
    TOPICS.map((t) => geminiKit.run(geminiKit.client(bb.fetch, fake.url), tools, { task: `Research ${t}` })),
  );
  await bb.finish();
  return { notes, runs };
}

it("three researchers fanned out: three conversations of two model calls, replayed with the same notes", async () => {
  const folder = join(dir, "trip") + "/";
  const recorded = await fanOut({ mode: "record", out: folder });
  expect(recorded.runs).toBe(3);
  recorded.notes.forEach((n, i) => expect(n).toMatch(`note on ${TOPICS[i]}: 0.`));
  const { index, traces } = loadRunSync(folder);
  expect(index.conversations).toHaveLength(3);
  for (const t of traces) {
    expect(t.steps.map((s) => s.type)).toEqual([
      "model_input",
      "model_output",
      "tool_call",
      "tool_result",
      "model_input",
      "model_output",
      "metadata",
    ]);
    const second = t.steps[4]!.payload as { model: string; messages: Array<{ content: unknown }> };
    expect(second.model).toBe("gemini-2.5-flash");
    expect(second.messages[2]!.content).toMatchObject([{ type: "tool_result", toolCallId: "call-0" }]);
  }
  const before = fake.requests.length;
  const replayed = await fanOut({ mode: "replay", cassette: folder });
  expect(replayed.notes).toEqual(recorded.notes);
  expect(replayed.runs).toBe(0);
  expect(fake.requests.length).toBe(before);
});
