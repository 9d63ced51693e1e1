/**
 * finish() and the session's rules about order: calls after finish, calls still
 * running, overlapping calls, explicit outcomes, one session per conversation, and
 * a process that ends before finish() (as a child process, as users run it).
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blackbox, isBlackboxError, loadTrace, SessionError, verifyTrace } from "../../src/index.js";
import { anthropicKit, openaiKit } from "../helpers/agents.js";
import { runTs } from "../helpers/child.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "bbx-finish-"));
});
afterAll(() => fake.close());

const ask = (client: any, text = "hi") =>
  client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: text }] });

describe("finish()", () => {
  test("records the result passed to finish()", async () => {
    fake.enqueue(anthropicKit.reply({ text: "Booked a room." }));
    const out = join(dir, "explicit.json");
    const bb = blackbox({ mode: "record", out });
    await ask(anthropicKit.client(bb.fetch, fake.anthropicUrl));
    await bb.finish({ result: { booked: true, room: 12 } });
    const t = await loadTrace(out);
    expect(t.steps.at(-1)!.payload).toEqual({
      event: "run_completed",
      status: "success",
      result: { booked: true, room: 12 },
    });
  });

  test("records an error passed to finish() as run_failed agent_error", async () => {
    fake.enqueue(anthropicKit.reply({ text: "Hmm." }));
    const out = join(dir, "failed.json");
    const bb = blackbox({ mode: "record", out });
    await ask(anthropicKit.client(bb.fetch, fake.anthropicUrl));
    await bb.finish({ error: new Error("the user gave up") });
    const t = await loadTrace(out);
    expect(t.steps.at(-1)!.payload).toEqual({
      event: "run_failed",
      status: "error",
      reason: "agent_error",
      message: "the user gave up",
    });
    expect(verifyTrace(t).ok).toBe(true);
  });

  test("finish({ error: null }) is no error: the run completed, in record and in replay", async () => {
    fake.enqueue(anthropicKit.reply({ text: "Booked." }));
    const out = join(dir, "error-null.json");
    const agent = async (bb: ReturnType<typeof blackbox>) => {
      let error: Error | null = null;
      try {
        await ask(anthropicKit.client(bb.fetch, fake.anthropicUrl));
      } catch (e) {
        error = e as Error;
      }
      await bb.finish({ error });
    };
    await agent(blackbox({ mode: "record", out }));
    expect((await loadTrace(out)).steps.at(-1)!.payload).toEqual({
      event: "run_completed",
      status: "success",
      result: "Booked.",
    });
    await agent(blackbox({ mode: "replay", cassette: out }));
  });

  test("refuses calls after finish(): a model request is not sent, a wrapped tool does not run", async () => {
    fake.enqueue(anthropicKit.reply({ text: "one" }));
    const bb = blackbox({ mode: "record", out: join(dir, "after.json") });
    const client = anthropicKit.client(bb.fetch, fake.anthropicUrl);
    await ask(client);
    await bb.finish();
    const before = fake.requests.length;
    const err = await ask(client).catch((e: unknown) => e);
    expect(isBlackboxError(err)).toBe(true);
    expect((err as Error).message).toContain("[blackbox] a model call after finish(): the run is over");
    expect(fake.requests.length).toBe(before);
    let ran = false;
    const tool = bb.tool("t", async () => (ran = true));
    await expect(tool()).rejects.toThrow('the wrapped tool "t" was called after finish()');
    expect(ran).toBe(false);
    await expect(bb.finish()).rejects.toThrow("finish() was already called");
  });

  test("finish() while a tool is still running throws and writes nothing", async () => {
    const out = join(dir, "running.json");
    const bb = blackbox({ mode: "record", out });
    let release!: () => void;
    const slow = bb.tool("slow", () => new Promise<string>((r) => (release = () => r("done"))));
    const pending = slow();
    await expect(bb.finish()).rejects.toThrow(
      "finish() was called while 1 model or tool call(s) were still running; nothing was written",
    );
    expect(existsSync(out)).toBe(false);
    release();
    await pending;
    await bb.finish();
    expect(existsSync(out)).toBe(true);
  });

  test("a wrapped tool still running when the next model call is made is refused", async () => {
    fake.enqueue(anthropicKit.reply({ toolCalls: [{ name: "slow", input: {} }] }));
    const bb = blackbox({ mode: "record", out: join(dir, "order.json") });
    const client = anthropicKit.client(bb.fetch, fake.anthropicUrl);
    await ask(client);
    let release!: () => void;
    const slow = bb.tool("slow", (_input: unknown) => new Promise((r) => (release = () => r(1))));
    const p = slow({});
    const before = fake.requests.length;
    const err = await ask(client, "next").catch((e: unknown) => e);
    expect((err as Error).message).toContain("[blackbox] a wrapped tool was still running when a model call was made");
    expect(fake.requests.length).toBe(before);
    release();
    await p;
  });

  test("a wrapped tool called while a model call is still running is refused, naming the tool, and does not run", async () => {
    fake.enqueue({ ...anthropicKit.reply({ text: "slow reply" }), delayMs: 100 });
    const bb = blackbox({ mode: "record", out: join(dir, "tool-during-model.json") });
    const client = anthropicKit.client(bb.fetch, fake.anthropicUrl);
    let ran = false;
    const tool = bb.tool("get_weather", async () => (ran = true));
    const pending = ask(client);
    await new Promise((r) => setTimeout(r, 20));
    await expect(tool()).rejects.toThrow(
      'the wrapped tool "get_weather" was called while a model call was still running; its steps could not be written in order. Await each model call before running the tools it asks for.',
    );
    expect(ran).toBe(false);
    await pending;
    await bb.finish();
  });

  test("overlapping model calls on one session are rejected", async () => {
    fake.enqueue(openaiKit.reply({ text: "a" }));
    const bb = blackbox({ mode: "record", out: join(dir, "overlap.json") });
    const client = openaiKit.client(bb.fetch, fake.openaiUrl);
    const req = (t: string) =>
      client.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: t }] });
    const before = fake.requests.length;
    const [one, two] = await Promise.allSettled([req("one"), req("two")]);
    expect(one.status).toBe("fulfilled");
    expect(two.status).toBe("rejected");
    expect(String((two as PromiseRejectedResult).reason.message)).toContain(
      "[blackbox] overlapping model calls on one session",
    );
    expect(fake.requests.length - before).toBe(1);
  });

  test("one session per conversation: concurrent sessions in one process keep separate cassettes", async () => {
    const run = async (name: string, text: string) => {
      const out = join(dir, `conv-${name}.json`);
      const bb = blackbox({ mode: "record", out });
      const client = openaiKit.client(bb.fetch, fake.openaiUrl);
      await client.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: text }] });
      await bb.finish();
      return loadTrace(out);
    };
    fake.enqueue(openaiKit.reply({ text: "reply" }), openaiKit.reply({ text: "reply" }));
    const [a, b] = await Promise.all([run("a", "from A"), run("b", "from B")]);
    expect((a.steps[0]!.payload as any).messages[0].content).toBe("from A");
    expect((b.steps[0]!.payload as any).messages[0].content).toBe("from B");
    expect(a.id).toBe("conv-a");
  });

  test("mode off changes nothing: calls go straight through, tools run, finish is a no-op", async () => {
    fake.enqueue(anthropicKit.reply({ text: "plain" }));
    const bb = blackbox();
    expect(bb.mode).toBe("off");
    const m = await ask(anthropicKit.client(bb.fetch, fake.anthropicUrl));
    expect(m.content[0].text).toBe("plain");
    expect(await bb.tool("x", (a: number) => a + 1)(1)).toBe(2);
    await bb.finish();
  });

  test("a result with no JSON form is refused and leaves the session open: finish() again writes the cassette", async () => {
    fake.enqueue(anthropicKit.reply({ text: "42 rooms." }));
    const out = join(dir, "bigint.json");
    const bb = blackbox({ mode: "record", out });
    await ask(anthropicKit.client(bb.fetch, fake.anthropicUrl));
    const err = await bb.finish({ result: { rooms: 42n } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe(
      "the result passed to finish() has no JSON form (Do not know how to serialize a BigInt); pass plain data (objects, arrays, strings, numbers) as the result. The session is still open: call finish() again",
    );
    expect(existsSync(out)).toBe(false);
    await bb.finish({ result: { rooms: 42 } });
    expect((await loadTrace(out)).steps.at(-1)!.payload).toEqual({
      event: "run_completed",
      status: "success",
      result: { rooms: 42 },
    });
  });

  test("arguments with no JSON form say to pass plain data to the tool (not to return it)", async () => {
    const bb = blackbox({ mode: "record", out: join(dir, "args.json") });
    const tool = bb.tool("count", async (n: bigint) => Number(n));
    await expect(tool(1n)).rejects.toThrow(
      'the arguments of tool "count" has no JSON form (Do not know how to serialize a BigInt); pass plain data (objects, arrays, strings, numbers) to the tool',
    );
    bb.dispose();
  });

  test("a session without its files says what to pass", () => {
    expect(() => blackbox({ mode: "record" })).toThrow(SessionError);
    expect(() => blackbox({ mode: "record" })).toThrow(
      'mode "record" needs an output path: pass blackbox({ out: "runs/name.json" }) or set BLACKBOX_OUT',
    );
    expect(() => blackbox({ mode: "replay" })).toThrow('mode "replay" needs a cassette to read');
  });
});

test("finish() in the process's own SIGTERM handler says the run already ended on SIGTERM (not that finish() was called)", async () => {
  const out = join(dir, "graceful.json");
  fake.enqueue(anthropicKit.reply({ text: "Lisbon." }));
  const spec = {
    kit: "anthropic",
    session: { mode: "record", out },
    task: "Where?",
    baseURL: fake.anthropicUrl,
    end: "finish-on-SIGTERM",
  };
  const r = await runTs("test/helpers/sessionChild.ts", [JSON.stringify(spec)]);
  expect(r.stdout).toContain(
    "finish: finish() after the run ended on SIGTERM: Blackbox finished the session then, as at any process end (exit code 143), so this finish() records nothing.",
  );
  expect((await loadTrace(out)).steps.at(-1)!.payload).toEqual({
    event: "run_failed",
    status: "error",
    reason: "process_exit",
    exitCode: 143,
  });
});

describe("a process that ends before finish() still leaves a valid cassette", () => {
  const cases: Array<[string, unknown, Record<string, unknown>]> = [
    ["process.exit(3)", { exit: 3 }, { event: "run_failed", status: "error", reason: "process_exit", exitCode: 3 }],
    ["exit code 0 without finish()", { exit: 0 }, { event: "run_completed", status: "success", result: "Lisbon." }],
    [
      "an uncaught exception",
      "throw",
      { event: "run_failed", status: "error", reason: "agent_error", message: "the agent crashed" },
    ],
    ["SIGINT", "SIGINT", { event: "run_failed", status: "error", reason: "process_exit", exitCode: 130 }],
    ["SIGTERM", "SIGTERM", { event: "run_failed", status: "error", reason: "process_exit", exitCode: 143 }],
    [
      "SIGTERM while a wrapped tool runs",
      "hang-in-tool",
      { event: "run_failed", status: "error", reason: "calls_in_flight", exitCode: 143, inFlight: 1 },
    ],
  ];
  test.each(cases)("%s", async (name, end, terminal) => {
    const out = join(dir, `exit-${name.replace(/\W+/g, "-")}.json`);
    fake.enqueue(
      anthropicKit.reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
      anthropicKit.reply({ text: "Lisbon." }),
    );
    const spec = {
      kit: "anthropic",
      session: { mode: "record", out },
      task: "Where?",
      baseURL: fake.anthropicUrl,
      end,
    };
    await runTs("test/helpers/sessionChild.ts", [JSON.stringify(spec)]);
    const t = await loadTrace(out);
    expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
    expect(t.steps.at(-1)!.payload).toEqual(terminal);
    if (end === "hang-in-tool") {
      // the unfinished tool's effects are not in the cassette
      expect(t.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
    }
  });
});
