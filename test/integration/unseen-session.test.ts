/**
 * In code (blackbox()): tools the agent runs by hand beside bb.fetch are named in a
 * warning when the cassette is written and when a replay starts; strictTools refuses
 * both (no cassette written; the replay refused before the agent makes a call). And an
 * in-code replay that diverged, whose agent caught the error and never called finish(),
 * fails the process at its end naming the divergence.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, expect, test, vi } from "vitest";
import { blackbox, SessionError } from "../../src/index.js";
import { runProcess } from "../helpers/child.js";
import { anthropicMessage, openaiCompletion } from "../helpers/fakeProvider.js";
import { useZeroCodeFixture } from "./zeroCodeHelpers.js";

const ctx = useZeroCodeFixture();
afterEach(() => vi.restoreAllMocks());

/** A plain SDK loop that runs lookup() itself: the model asks for it once, then answers. */
async function agent(f: typeof fetch): Promise<string> {
  const client = new OpenAI({ baseURL: ctx.fake.openaiUrl, apiKey: "sk-test-session-000000", fetch: f });
  const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "look it up" }];
  for (;;) {
    const m = (await client.chat.completions.create({ model: "gpt-4o", messages, tools })).choices[0]!.message;
    messages.push(m);
    if (!m.tool_calls?.length) return m.content ?? "";
    for (const c of m.tool_calls) messages.push({ role: "tool", tool_call_id: c.id, content: "found" });
  }
}

const queue = () =>
  ctx.fake.enqueue(
    { json: openaiCompletion({ toolCalls: [{ name: "lookup", input: {} }] }) },
    { json: openaiCompletion({ text: "Found it." }) },
  );

function stderrLines(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

test("a record warns when it writes a cassette whose tools ran unrecorded, and a replay of it warns when it starts", async () => {
  const out = join(ctx.dir, "warned.json");
  queue();
  const warned = stderrLines();
  const rec = blackbox({ mode: "record", out });
  expect(await agent(rec.fetch)).toBe("Found it.");
  await rec.finish();
  expect(existsSync(out)).toBe(true);
  expect(warned).toHaveLength(1);
  expect(warned[0]).toMatch(
    /^blackbox: warning: .*warned\.json: the model asked for 1 tool call that ran outside Blackbox's view and is not in the cassette: "lookup" \(1 call\)\./,
  );
  expect(warned[0]).toContain("bb.tools({ lookup })");
  const bb = blackbox({ mode: "replay", cassette: out });
  expect(warned).toHaveLength(2); // before the agent's first call
  expect(warned[1]).toContain("A replay runs that tool for real");
  expect(await agent(bb.fetch)).toBe("Found it.");
  await bb.finish();
});

test("strictTools: the record writes no cassette (finish() throws); a replay is refused when the session is made", async () => {
  const out = join(ctx.dir, "strict.json");
  queue();
  const warned = stderrLines();
  const rec = blackbox({ mode: "record", out, strictTools: true });
  await agent(rec.fetch);
  const err = await rec.finish().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SessionError);
  expect((err as Error).message).toMatch(
    /^strict tools \(--strict-tools, strictTools, BLACKBOX_STRICT_TOOLS=1\): the model asked for 1 tool call/,
  );
  expect((err as Error).message).toContain(`No cassette was written to ${out}.`);
  expect(existsSync(out)).toBe(false);

  const loose = join(ctx.dir, "loose.json");
  queue();
  const again = blackbox({ mode: "record", out: loose });
  await agent(again.fetch);
  await again.finish();
  expect(() => blackbox({ mode: "replay", cassette: loose, strictTools: true })).toThrow(
    /^strict tools .*: the replay was refused before the agent started, since .*loose\.json: the model asked for 1 tool call/,
  );
  expect(warned).toHaveLength(1); // the loose record's warning; the refusal is thrown, not printed
});

test("an in-code replay that diverged, caught by the agent, with no finish(): the process ends non-zero naming the divergence", async () => {
  const out = join(ctx.dir, "exit.json");
  ctx.fake.enqueue({ json: openaiCompletion({ text: "Hello." }) });
  const rec = blackbox({ mode: "record", out });
  const client = new OpenAI({ baseURL: ctx.fake.openaiUrl, apiKey: "sk-test-session-000000", fetch: rec.fetch });
  await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
  await rec.finish();
  const script = join(ctx.dir, "caught.mjs");
  writeFileSync(
    script,
    `import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { blackbox } from "@ardaulas/blackbox";
const bb = blackbox({ mode: "replay", cassette: process.argv[2] });
const client = new OpenAI({ baseURL: "http://127.0.0.1:9/v1", apiKey: "sk-test-session-000000", fetch: bb.fetch });
try {
  await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: process.argv[3] }] });
  console.log("served");
} catch (err) {
  console.log("caught:", err.constructor.name);
}
`,
  );
  const diverged = await runProcess(process.execPath, [script, out, "something else"], { cwd: ctx.dir, offline: true });
  expect(diverged.stdout).toBe("caught: BadRequestError\n");
  expect(diverged.stderr).toMatch(
    /^blackbox: the replay of .*exit\.json failed and the process ended without finish\(\) \(the agent caught the error\): Replay diverged at step 0 \(model_input\): the model request differs from the recording\n/,
  );
  expect(diverged.stderr).not.toContain("    at ");
  expect(diverged.code).toBe(1);
  // the same replay that did not diverge and never called finish(): the process ends as it would
  const served = await runProcess(process.execPath, [script, out, "hi"], { cwd: ctx.dir, offline: true });
  expect(served.stdout).toBe("served\n");
  expect(served.stderr).toBe("");
  expect(served.code).toBe(0);
});

test("the Anthropic SDK too: a tool_use the agent answered by hand is named, and strictTools refuses its cassette", async () => {
  const run = async (bb: ReturnType<typeof blackbox>) => {
    const client = new Anthropic({
      baseURL: ctx.fake.anthropicUrl,
      apiKey: "sk-ant-test-session-0000",
      fetch: bb.fetch,
    });
    const tools = [{ name: "search_docs", input_schema: { type: "object" as const } }];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "find it" }];
    for (;;) {
      const m = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, tools, messages });
      messages.push({ role: "assistant", content: m.content });
      const uses = m.content.filter((b) => b.type === "tool_use");
      if (!uses.length) return;
      messages.push({
        role: "user",
        content: uses.map((u) => ({ type: "tool_result" as const, tool_use_id: u.id, content: "found" })),
      });
    }
  };
  const queueAnthropic = () =>
    ctx.fake.enqueue(
      {
        json: anthropicMessage({
          toolCalls: [
            { name: "search_docs", input: {} },
            { name: "search_docs", input: { q: 2 } },
          ],
        }),
      },
      { json: anthropicMessage({ text: "Found." }) },
    );
  const out = join(ctx.dir, "anthropic.json");
  queueAnthropic();
  const warned = stderrLines();
  const rec = blackbox({ mode: "record", out });
  await run(rec);
  await rec.finish();
  expect(warned[0]).toContain(
    `2 tool calls that ran outside Blackbox's view and are not in the cassette: "search_docs" (2 calls)`,
  );
  queueAnthropic();
  const strict = blackbox({ mode: "record", out: join(ctx.dir, "anthropic-strict.json"), strictTools: true });
  await run(strict);
  await expect(strict.finish()).rejects.toThrow(
    /^strict tools .*"search_docs" \(2 calls\).*No cassette was written to/s,
  );
  expect(existsSync(join(ctx.dir, "anthropic-strict.json"))).toBe(false);
});
