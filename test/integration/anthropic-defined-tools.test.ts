/**
 * Anthropic-defined tools your code runs (the text editor, bash, memory): the request names
 * them by type, with no input_schema, and the reply asks for them with a plain tool_use.
 * Recorded with the type as their schema, replayed offline, and a replay whose agent asks
 * for another version of the tool diverges on it.
 */
import Anthropic from "@anthropic-ai/sdk";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { blackbox, loadTrace } from "../../src/index.js";
import { anthropicMessage, useFakeProvider } from "../helpers/fakeProvider.js";

const fx = useFakeProvider("bb-defined-tools-");

/** A coding agent's loop with the text editor tool; the tool is wrapped, so replay never touches the "file". */
async function editorAgent(mode: "record" | "replay", file: string, editor = "text_editor_20250728") {
  const bb = blackbox(
    mode === "record"
      ? { mode, out: file, providers: { anthropic: [fx.fake.url] } }
      : { mode, cassette: file, providers: { anthropic: [fx.fake.url] } },
  );
  const client = new Anthropic({
    apiKey: "sk-ant-defined-0000",
    baseURL: fx.fake.anthropicUrl,
    maxRetries: 0,
    fetch: bb.fetch,
  });
  let edits = 0;
  const edit = bb.tool("str_replace_based_edit_tool", async (input: { command: string; path: string }) => {
    edits++;
    return `ran ${input.command} on ${input.path}`;
  });
  const tools = [{ type: editor, name: "str_replace_based_edit_tool", max_characters: 10000 }] as never;
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Fix the typo in README.md" }];
  try {
    for (;;) {
      const reply = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 300, tools, messages });
      messages.push({ role: "assistant", content: reply.content });
      const uses = reply.content.filter((b) => b.type === "tool_use");
      if (uses.length === 0) {
        await bb.finish();
        return { answer: reply.content.map((b) => (b.type === "text" ? b.text : "")).join(""), edits };
      }
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const u of uses)
        results.push({
          type: "tool_result",
          tool_use_id: u.id,
          content: await edit(u.input as { command: string; path: string }),
        });
      messages.push({ role: "user", content: results });
    }
  } catch (err) {
    await bb.finish().catch(() => undefined);
    return { error: String(err), edits };
  }
}

describe("the text editor tool", () => {
  const file = () => join(fx.dir, "editor.json");

  test("recorded with its type as the schema, and replayed offline without running", async () => {
    fx.fake.enqueue(
      {
        json: anthropicMessage({
          toolCalls: [{ name: "str_replace_based_edit_tool", input: { command: "view", path: "README.md" } }],
        }),
      },
      { json: anthropicMessage({ text: "Fixed." }) },
    );
    expect(await editorAgent("record", file())).toEqual({ answer: "Fixed.", edits: 1 });
    const trace = await loadTrace(file());
    const input = trace.steps.find((s) => s.type === "model_input")!.payload as { tools: unknown[] };
    expect(input.tools).toEqual([
      {
        name: "str_replace_based_edit_tool",
        inputSchema: { anthropicDefined: "text_editor_20250728", max_characters: 10000 },
      },
    ]);
    const sent = fx.fake.requests.length;
    expect(await editorAgent("replay", file())).toEqual({ answer: "Fixed.", edits: 0 });
    expect(fx.fake.requests.length).toBe(sent);
  });

  test("a replay whose agent asks for another version of the tool diverges on it", async () => {
    const r = await editorAgent("replay", file(), "text_editor_20250124");
    expect(r.error).toContain("Replay diverged at step 0 (model_input)");
    expect(r.error).toContain("at tools[0].inputSchema.anthropicDefined");
    expect(r.error).toContain('now:      "text_editor_20250124"');
  });
});
