/**
 * blackbox(options) checks its options as the environment's are checked (src/config/env.ts):
 * a mistyped value is an error that names the option and its choices, never a silent
 * default. The dangerous ones: a mistyped `match` turned strict replay into sequence
 * replay (nothing compared), and a fork given a `script` without `continueWith` went
 * live, to the provider.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blackbox, loadTrace, SessionError } from "../../src/index.js";
import { anthropicKit as kit } from "../helpers/agents.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

const TASK = "Lisbon or Porto this weekend?";
let fake: FakeProvider;
let dir: string;
let parent: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "bbx-options-"));
  parent = join(dir, "parent.json");
  fake.enqueue(
    kit.reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    kit.reply({ text: "Lisbon: sunny." }),
  );
  const bb = blackbox({ mode: "record", out: parent });
  await kit.run(
    kit.client(bb.fetch, fake.anthropicUrl),
    bb.tools({ get_weather: async ({ city }) => ({ city, forecast: "sunny" }) }),
    { task: TASK },
  );
  await bb.finish();
});
afterAll(() => fake.close());

describe("blackbox() options", () => {
  test("a mistyped match is refused, not replayed without comparing", async () => {
    expect(() => blackbox({ mode: "replay", cassette: parent, match: "strikt" as never })).toThrow(SessionError);
    expect(() => blackbox({ mode: "replay", cassette: parent, match: "Sequence" as never })).toThrow(
      'blackbox(): match "Sequence" is not valid; pass one of "strict", "sequence"',
    );
    // the right spelling still compares: another task diverges at step 0
    const bb = blackbox({ mode: "replay", cassette: parent, match: "strict" });
    const tools = bb.tools({ get_weather: async () => ({}) });
    await kit.run(kit.client(bb.fetch, "http://127.0.0.1:9"), tools, { task: "another task" }).catch(() => undefined);
    await expect(bb.finish()).rejects.toThrow("Replay diverged at step 0 (model_input)");
  });

  test("an unknown mode names the modes (not a missing cassette)", () => {
    expect(() => blackbox({ mode: "recrod" as never, out: join(dir, "x.json") })).toThrow(
      'blackbox(): mode "recrod" is not valid; pass one of "off", "record", "replay", "fork"',
    );
  });

  test("an unknown option, a value of the wrong type, or no options object says what to pass", () => {
    expect(() => blackbox({ mode: "record", output: join(dir, "x.json") } as never)).toThrow(
      'blackbox(): unknown option "output"; the options are mode, out, cassette, forkAt, forkSet, continueWith, script, scriptedTools, match, traceId, providers, strictTools, mcpLive, now, redact',
    );
    expect(() => blackbox({ mode: "record", out: 42 as never })).toThrow(
      'blackbox(): out must be a string, not number (for example "runs/name.json")',
    );
    expect(() => blackbox({ mode: "record", out: join(dir, "x.json"), traceId: 5 as never })).toThrow(
      "blackbox(): traceId must be a string, not number",
    );
    expect(() =>
      blackbox({ mode: "fork", cassette: parent, out: join(dir, "x.json"), forkAt: "3" as never, forkSet: 1 }),
    ).toThrow("blackbox(): forkAt must be a number, not string");
    expect(() => blackbox({ mode: "record", out: join(dir, "x.json"), providers: "http://proxy" as never })).toThrow(
      "blackbox(): providers must be an object, not string",
    );
    expect(() => blackbox("record" as never)).toThrow("blackbox() takes an options object, not a string");
    // mode off is checked too: the same options must not fail only once recording is switched on
    expect(() => blackbox({ mode: "off", match: "bad" as never })).toThrow('blackbox(): match "bad" is not valid');
    expect(() => blackbox({ mode: "off", scriptedTools: "never" as never })).toThrow(
      'blackbox(): scriptedTools "never" is not valid',
    );
  });

  test("a mistyped continueWith is refused, not continued live", () => {
    const opts = {
      mode: "fork" as const,
      cassette: parent,
      out: join(dir, "f.json"),
      forkAt: 3,
      forkSet: { forecast: "rain" },
    };
    expect(() => blackbox({ ...opts, continueWith: "scrip" as never, script: [] })).toThrow(
      'blackbox(): continueWith "scrip" is not valid; pass one of "live", "script"',
    );
  });

  test("a fork given a script continues from it without continueWith: nothing reaches the provider", async () => {
    const out = join(dir, "scripted.json");
    const before = fake.requests.length;
    const bb = blackbox({
      mode: "fork",
      cassette: parent,
      out,
      forkAt: 3,
      forkSet: { city: "Lisbon", forecast: "rain" },
      script: [{ type: "final_answer", text: "Rain in Lisbon: stay in." }],
    });
    const answer = await kit.run(kit.client(bb.fetch, fake.anthropicUrl), bb.tools({ get_weather: async () => ({}) }), {
      task: TASK,
    });
    await bb.finish();
    expect(answer).toBe("Rain in Lisbon: stay in.");
    expect(fake.requests.length).toBe(before);
    expect((await loadTrace(out)).steps.at(-1)!.payload).toEqual({
      event: "run_completed",
      status: "success",
      result: "Rain in Lisbon: stay in.",
    });
  });

  test("a tool named like a provider id is refused when it is wrapped, not at finish() after the whole run", () => {
    const bb = blackbox({ mode: "record", out: join(dir, "named.json") });
    expect(() => bb.tools({ toolu_01: async () => ({}) })).toThrow(
      'bb.tools(): tool name "toolu_01" looks like a provider id (toolu_01), which a cassette must not contain; give the tool another name',
    );
    expect(() => bb.tool("call_9", async () => ({}))).toThrow(
      'bb.tool(): tool name "call_9" looks like a provider id (call_9)',
    );
    expect(() => bb.tool("call_9", async () => ({}))).toThrow(SessionError);
    expect(Object.keys(bb.tools({ call_api: async () => ({}), send_msg_to_user: async () => ({}) }))).toEqual([
      "call_api",
      "send_msg_to_user",
    ]);
    bb.dispose();
  });

  test("mode off (an app run without Blackbox: production) wraps any tool name: it records nothing a name could spoil", async () => {
    for (const bb of [blackbox(), blackbox({ mode: "off" })]) {
      const tools = bb.tools({ get_msg_2: async () => "read", call_v2: async (n: number) => n + 1 });
      expect(await tools.get_msg_2()).toBe("read");
      expect(await bb.tool("toolu_01", async () => "ran")()).toBe("ran");
      expect(await tools.call_v2(1)).toBe(2);
    }
    // the same names still fail early once the run is recorded
    expect(() =>
      blackbox({ mode: "record", out: join(dir, "off-names.json") }).tools({ get_msg_2: async () => "read" }),
    ).toThrow('bb.tools(): tool name "get_msg_2" looks like a provider id (msg_2)');
  });
});
