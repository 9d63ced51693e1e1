/**
 * Wrapped tools beyond the happy path: JSON storage rules, a tool the model did not
 * ask for, call-N numbering kept the same in record, replay and fork, scripted fork
 * outputs checked and renumbered, and ids that must not look like provider ids.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { blackbox, ForkError, loadTrace, SessionError, verifyTrace } from "../../src/index.js";
import { anthropicKit } from "../helpers/agents.js";
import { anthropicMessage, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "bbx-tools-"));
});
afterAll(() => fake.close());

test("tool values are stored as JSON: undefined -> null, class instances -> plain objects, dates -> ISO strings; the agent gets that form in record as in replay", async () => {
  class Forecast {
    constructor(
      public city: string,
      public temp: number,
    ) {}
    get label() {
      return `${this.city} ${this.temp}`;
    }
  }
  const out = join(dir, "json.json");
  const bb = blackbox({ mode: "record", out });
  const nothing = bb.tool("nothing", async () => undefined);
  const forecast = bb.tool("forecast", async (city: string) => new Forecast(city, 21));
  const when = bb.tool("when", async () => new Date(Date.UTC(2026, 0, 2)));
  const seen = [await nothing(), await forecast("Lisbon"), await when()];
  // the agent gets the stored form now, as a replay will give it: record and replay agree
  expect(seen).toEqual([null, { city: "Lisbon", temp: 21 }, "2026-01-02T00:00:00.000Z"]);
  expect(seen[1]).not.toBeInstanceOf(Forecast);
  (seen[1] as any).city = "edited by the agent"; // a copy: the agent's edits stay out of the cassette
  await bb.finish();
  const t = await loadTrace(out);
  const results = t.steps.filter((s) => s.type === "tool_result").map((s) => (s.payload as any).result);
  expect(results).toEqual([null, { city: "Lisbon", temp: 21 }, "2026-01-02T00:00:00.000Z"]);
  const replay = blackbox({ mode: "replay", cassette: out });
  const again = replay.tools({ nothing: async () => 1, forecast: async (_city: string) => 2, when: async () => 3 });
  expect([await again.nothing(), await again.forecast("Lisbon"), await again.when()]).toEqual(results);
  await replay.finish();
  const inputs = t.steps.filter((s) => s.type === "tool_call").map((s) => (s.payload as any).toolInput);
  expect(inputs).toEqual([null, "Lisbon", null]);
  // tools the model did not ask for still get run-local ids
  expect(t.steps.filter((s) => s.type === "tool_call").map((s) => (s.payload as any).toolCallId)).toEqual([
    "call-0",
    "call-1",
    "call-2",
  ]);
});

/** An agent that first runs a wrapped tool on its own, then resumes a conversation holding a provider id. */
async function resumedAgent(bb: ReturnType<typeof blackbox>) {
  const client = anthropicKit.client(bb.fetch, fake.anthropicUrl);
  const tools = bb.tools({
    get_ctx: async () => ({ user: "ana" }),
    lookup: async ({ q }: { q: string }) => ({ q, hits: 3 }),
  });
  const ctx = await tools.get_ctx();
  const messages: any[] = [
    { role: "user", content: `context ${JSON.stringify(ctx)}` },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_01OLDCONVERSATION", name: "lookup", input: { q: "old" } }],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01OLDCONVERSATION", content: "old result" }] },
  ];
  const ask = () => client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages });
  for (let turn = 0; turn < 4; turn++) {
    const r = await ask();
    messages.push({ role: "assistant", content: r.content });
    const uses = r.content.filter((b: any) => b.type === "tool_use");
    if (uses.length === 0) return r.content[0].text as string;
    const results = [];
    for (const u of uses)
      results.push({
        type: "tool_result",
        tool_use_id: u.id,
        content: JSON.stringify(await (tools as any)[u.name](u.input)),
      });
    messages.push({ role: "user", content: results });
  }
  throw new Error("too many turns");
}

const idsOf = (payload: any): string[] =>
  payload.messages.flatMap((m: any) =>
    Array.isArray(m.content)
      ? m.content.filter((p: any) => p.toolCallId).map((p: any) => `${p.type}:${p.toolCallId}`)
      : [],
  );

test("call-N numbering is the same in record, replay and fork, also for a tool the model did not request", async () => {
  const parentPath = join(dir, "resumed.json");
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "lookup", input: { q: "new" } }] }) },
    { json: anthropicMessage({ text: "done" }) },
  );
  const rec = blackbox({ mode: "record", out: parentPath });
  expect(await resumedAgent(rec)).toBe("done");
  await rec.finish();
  const parent = await loadTrace(parentPath);
  // get_ctx = call-0 (no model request), the resumed toolu_ id = call-1, the new lookup = call-2
  expect(idsOf(parent.steps[2]!.payload)).toEqual(["tool_use:call-1", "tool_result:call-1"]);
  expect(idsOf(parent.steps[6]!.payload)).toEqual([
    "tool_use:call-1",
    "tool_result:call-1",
    "tool_use:call-2",
    "tool_result:call-2",
  ]);

  const rep = blackbox({ mode: "replay", cassette: parentPath });
  expect(await resumedAgent(rep)).toBe("done");
  await rep.finish();

  const forkAt = parent.steps.findIndex((s) => s.type === "tool_result" && (s.payload as any).toolName === "lookup");
  const childPath = join(dir, "resumed-fork.json");
  const fork = blackbox({
    mode: "fork",
    cassette: parentPath,
    out: childPath,
    forkAt,
    forkSet: { q: "new", hits: 0 },
    continueWith: "script",
    script: [{ type: "final_answer", text: "nothing found" }],
  });
  expect(await resumedAgent(fork)).toBe("nothing found");
  await fork.finish();
  const child = await loadTrace(childPath);
  expect(verifyTrace(child).ok).toBe(true);
  const newInput = child.steps[forkAt + 1]!;
  expect(newInput.type).toBe("model_input");
  expect(idsOf(newInput.payload)).toEqual([
    "tool_use:call-1",
    "tool_result:call-1",
    "tool_use:call-2",
    "tool_result:call-2",
  ]);
});

test("scripted fork outputs are checked up front and get run-local ids past the prefix", async () => {
  const parentPath = join(dir, "script-parent.json");
  fake.enqueue(
    { json: anthropicMessage({ toolCalls: [{ name: "lookup", input: { q: "a" } }] }) },
    { json: anthropicMessage({ text: "ok" }) },
  );
  const rec = blackbox({ mode: "record", out: parentPath });
  const client = anthropicKit.client(rec.fetch, fake.anthropicUrl);
  await anthropicKit.run(client, rec.tools({ lookup: async () => 1 }), { task: "t" });
  await rec.finish();

  const make = (script: unknown) =>
    blackbox({
      mode: "fork",
      cassette: parentPath,
      out: join(dir, "s.json"),
      forkAt: 3,
      forkSet: 2,
      continueWith: "script",
      script: script as never,
    });
  expect(() => make([{ text: "no type" }])).toThrow(ForkError);
  expect(() => make([{ text: "no type" }])).toThrow(/fork script entry 0 is not a model output/);
  expect(() => make([{ type: "final_answer" }])).toThrow(/fork script entry 0 is not a model output.*text/);
  const scriptFile = join(dir, "broken-script.json");
  writeFileSync(scriptFile, "{ not json");
  expect(() => make(scriptFile)).toThrow(`the fork script ${scriptFile} is not valid JSON`);
  expect(() => make(join(dir, "missing-script.json"))).toThrow(
    `cannot read the fork script ${join(dir, "missing-script.json")}`,
  );

  // ids in the script are replaced by run-local ones, past the copied prefix (call-0)
  const out = join(dir, "script-child.json");
  const fork = blackbox({
    mode: "fork",
    cassette: parentPath,
    out,
    forkAt: 3,
    forkSet: 2,
    continueWith: "script",
    script: [
      { type: "tool_calls", calls: [{ toolCallId: "x", toolName: "lookup", toolInput: { q: "b" } }] },
      { type: "tool_call", toolCallId: "call-0", toolName: "lookup", toolInput: { q: "c" } },
      { type: "final_answer", text: "done" },
    ],
  });
  await anthropicKit.run(anthropicKit.client(fork.fetch, fake.anthropicUrl), fork.tools({ lookup: async () => 5 }), {
    task: "t",
  });
  await fork.finish();
  const child = await loadTrace(out);
  const outputs = child.steps.filter((s, i) => i > 3 && s.type === "model_output").map((s) => s.payload as any);
  expect(outputs.map((o) => o.calls?.map((c: any) => c.toolCallId) ?? [])).toEqual([["call-1"], ["call-2"], []]);
  expect(outputs[1].type).toBe("tool_calls");
  expect(verifyTrace(child).ok).toBe(true);
});

test("the agent ending before the fork point is reported, and nothing is written", async () => {
  const parentPath = join(dir, "script-parent.json");
  const out = join(dir, "never.json");
  const fork = blackbox({
    mode: "fork",
    cassette: parentPath,
    out,
    forkAt: 3,
    forkSet: 2,
    continueWith: "script",
    script: [],
  });
  const client = anthropicKit.client(fork.fetch, fake.anthropicUrl);
  // one model call (replayed), then the agent stops without calling lookup
  await client.messages.create({
    model: "claude-sonnet-4-6",
    max_tokens: 1024,
    system: "You are a travel agent.",
    tools: [
      {
        name: "lookup",
        description: "The lookup tool",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ],
    messages: [{ role: "user", content: "t" }],
  });
  await expect(fork.finish()).rejects.toThrow(
    "the agent ended before reaching the fork point: it never called the wrapped tool whose result is step 3",
  );
  const { existsSync } = await import("node:fs");
  expect(existsSync(out)).toBe(false);
});

test("a default trace id that would look like a provider id is neutralised; an explicit one is refused", async () => {
  const out = join(dir, "resp_2024conv7.json");
  const bb = blackbox({ mode: "record", out });
  await bb.tool("t", async () => 1)();
  await bb.finish();
  const t = await loadTrace(out);
  expect(t.id).toBe("resp-2024conv7");
  expect(verifyTrace(t).ok).toBe(true);
  expect(() => blackbox({ mode: "record", out, traceId: "msg_01ABCDEF" })).toThrow(SessionError);
  expect(() => blackbox({ mode: "record", out, traceId: "msg_01ABCDEF" })).toThrow(
    'traceId "msg_01ABCDEF" looks like a provider id (msg_01ABCDEF), which a cassette must not contain; choose another id',
  );
});

test("replay and fork refuse a cassette that fails verify (an edit, even re-parsed cleanly, must not drive the agent)", async () => {
  const { readFileSync } = await import("node:fs");
  const src = join(dir, "json.json");
  const edited = join(dir, "edited.json");
  writeFileSync(edited, readFileSync(src, "utf8").replace('"Lisbon"', '"Porto"'));
  for (const make of [
    () => blackbox({ mode: "replay", cassette: edited }),
    () => blackbox({ mode: "fork", cassette: edited, out: join(dir, "f.json"), forkAt: 3, forkSet: 1 }),
  ]) {
    expect(make).toThrow(`${edited} fails verify, so it cannot be replayed or forked:`);
    expect(make).toThrow(/steps\[\d+\]\.hash: hash does not match/);
  }
});

test("arguments with no JSON form: the TypeError's stack starts at the agent's call, none of Blackbox's frames", async () => {
  const bb = blackbox({ mode: "replay", cassette: join(dir, "json.json") });
  const t = bb.tool("nothing", async (_arg: unknown) => 1);
  const err = (await t(10n).catch((e: Error) => e)) as Error;
  expect(err).toBeInstanceOf(TypeError);
  expect(err.message).toContain('the arguments of tool "nothing"');
  const frames = (err.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l));
  expect(frames[0]).toContain("session-tools.test.ts");
  expect(err.stack).not.toMatch(/src[/\\](session|trace)[/\\]/);
});

test("a divergence report prints a cassette's control and bidi characters as escapes, not raw (a hostile name or value cannot drive the terminal)", async () => {
  const name = "weather\u001b]0;pwned\u0007\u202e";
  const file = join(dir, "escapes.json");
  const rec = blackbox({ mode: "record", out: file });
  await rec.tools({ [name]: async (city: string) => `sunny in ${city}` })[name]!("Lisbon\u001b[2J");
  await rec.finish({ result: "done" });
  const bb = blackbox({ mode: "replay", cassette: file });
  const err = await bb.tools({ [name]: async (city: string) => city })[name]!("Porto\u202e").catch((e: Error) => e);
  expect(err).toBeInstanceOf(Error);
  const message = (err as Error).message;
  expect(message).toContain('the wrapped tool "weather\\u001b]0;pwned\\u0007\\u202e" was called with other arguments');
  expect(message).toContain('recorded: "Lisbon\\u001b[2J"');
  expect(message).toContain('now:      "Porto\\u202e"');
  expect(message).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/); // newlines only between the report's lines
});
