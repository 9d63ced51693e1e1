/**
 * Replays that drift, chains Blackbox cannot see, and forks of a chained Responses API run
 * (test/fixtures/responses/agent.mjs, the real openai SDK, the fake provider):
 * - a changed prompt diverges at step 0, naming the path, through either door;
 * - a previous_response_id no call of the run returned is refused by name before anything is sent;
 * - `fork --script` at a tool result: the agent's chains on the replayed and the scripted
 *   replies (Blackbox's ids) resolve;
 * - `fork --live` at a tool result: the provider gets whole history, stateless (store: false,
 *   no previous_response_id, no item ids), for the fork's first live call and for
 *   the agent's later chain on that call's reply, and the fake provider (which answers an
 *   unknown id with the API's 400) takes every request;
 * - no key and no provider id in any cassette.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openaiResponse, openaiResponseSSE } from "../helpers/fakeProvider.js";
import {
  ANSWER,
  LEAKS,
  printed,
  queueLoop,
  recordSession,
  replaySession,
  runAgent,
  type Run,
} from "./responsesHelpers.js";
import { DONE_LINE, readCassette, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture();
const CHAINED: Run = { door: "hook", call: "create", history: "chained" };
const cassette = () => join(fx.dir, "chained.json");
/** The Lisbon tool_result: the fork point. */
const AT = 3;

beforeAll(async () => {
  queueLoop(fx.fake, false);
  const r = await runAgent(fx.fake, CHAINED, recordSession(cassette()), join(fx.dir, "record.log"));
  expect(printed(r)).toMatchObject({ text: ANSWER, calls: 3 });
  expect(readCassette(cassette()).steps[AT]).toMatchObject({
    type: "tool_result",
    payload: { result: "sunny in Lisbon" },
  });
});

describe("a replay that drifts", () => {
  it.each(["hook", "fetch"] as const)("%s: a changed prompt diverges at step 0, naming the path", async (door) => {
    const seen = fx.fake.requests.length;
    const log = join(fx.dir, `drift-${door}.log`);
    const r = await runAgent(
      fx.fake,
      { ...CHAINED, door },
      replaySession(cassette()),
      log,
      { AGENT_TASK: "Weather in Oslo?" },
      true,
    );
    const said =
      "Replay diverged at step 0 (model_input): the model request differs from the recording\n" +
      '  at messages[0].content\n  recorded: "Weather in Lisbon, Porto and Faro?"\n  now:      "Weather in Oslo?"';
    expect(printed(r).failed).toContain(`[blackbox] ${said}`);
    if (door === "hook") expect(r.stderr).toContain(said);
    expect(r.code).not.toBe(0);
    expect(existsSync(log)).toBe(false);
    expect(fx.fake.requests.length).toBe(seen);
  });
});

describe("a chain that started outside the recorded run", () => {
  it.each(["record", "replay"] as const)("%s: refused by name before anything is sent", async (mode) => {
    const seen = fx.fake.requests.length;
    const out = join(fx.dir, "outside.json");
    const session = mode === "record" ? recordSession(out) : replaySession(cassette());
    const r = await runAgent(fx.fake, CHAINED, session, join(fx.dir, "outside.log"), {
      AGENT_PREVIOUS: "resp_0elsewhere",
    });
    expect(printed(r).failed).toContain(
      '[blackbox] OpenAI responses.create: previous_response_id "resp_0elsewhere" names a response no call of this run returned: the chain started outside the recorded run, so the provider holds history Blackbox cannot see. Start the chain within the recorded run (its first call without previous_response_id), or send the whole history in input.',
    );
    expect(r.code).not.toBe(0);
    expect(fx.fake.requests.length).toBe(seen);
    if (mode === "record") {
      expect(r.stderr).toContain(`No cassette was written to ${out}.`);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe("forks of a chained run at a tool result", () => {
  it("fork --script: the agent chains on the replayed and the scripted replies, offline", async () => {
    const script = join(fx.dir, "script.json");
    writeFileSync(
      script,
      JSON.stringify([
        { type: "tool_calls", calls: [{ toolCallId: "call-9", toolName: "get_weather", toolInput: { city: "Faro" } }] },
        { type: "final_answer", text: "Rain in Lisbon: stay in Faro." },
      ]),
    );
    const out = join(fx.dir, "fork-script.json");
    const log = join(fx.dir, "fork-script.log");
    const seen = fx.fake.requests.length;
    const r = await runAgent(
      fx.fake,
      CHAINED,
      {
        cli: ["fork", cassette(), "--at", String(AT), "--set", '"rain in Lisbon"', "--script", script, "-o", out],
        options: {},
      },
      log,
      {},
      true,
    );
    expect(r.stderr).toMatch(DONE_LINE);
    expect(printed(r)).toEqual({
      text: "Rain in Lisbon: stay in Faro.",
      calls: 3,
      status: "completed",
      ids: ["bbx-resp-0", "bbx-resp-1", "bbx-resp-2"],
    });
    expect(r.code).toBe(0);
    // after the fork point: Porto (the same round, made as recorded) is answered from the parent, and only
    // Faro (the script's call) runs
    expect(readFileSync(log, "utf8")).toBe("get_weather Faro\n");
    expect(fx.fake.requests.length).toBe(seen);
    const fork = readCassette(out);
    expect(readFileSync(out, "utf8")).not.toMatch(LEAKS);
    expect(fork.steps[AT]!.payload).toMatchObject({ result: "rain in Lisbon" });
    // the chained second call, expanded: the whole conversation with the new result in it
    const second = fork.steps[6]!.payload as { messages: Array<{ content: unknown }> };
    expect(JSON.stringify(second.messages)).toContain('"result":"rain in Lisbon"');
    expect(fork.steps.filter((s) => s.type === "model_input")).toHaveLength(3);
  });

  it.each(["hook", "fetch"] as const)(
    "%s, fork --live: whole history upstream, stateless, for every call after the fork point",
    async (door) => {
      fx.fake.enqueue(
        { sse: openaiResponseSSE({ toolCalls: [{ name: "get_weather", input: { city: "Faro" } }] }) },
        { sse: openaiResponseSSE({ text: "Rain in Lisbon, sun in Faro." }) },
      );
      const out = join(fx.dir, `fork-live-${door}.json`);
      const seen = fx.fake.requests.length;
      const set = "rain in Lisbon";
      const r = await runAgent(
        fx.fake,
        { door, call: "create-stream", history: "chained" },
        {
          cli: ["fork", cassette(), "--at", String(AT), "--set", JSON.stringify(set), "--live", "-o", out],
          options: { mode: "fork", cassette: cassette(), out, forkAt: AT, forkSet: set, continueWith: "live" },
        },
        join(fx.dir, `fork-live-${door}.log`),
      );
      expect(printed(r)).toMatchObject({ text: "Rain in Lisbon, sun in Faro.", calls: 3 });
      expect(r.code).toBe(0);
      const sent = fx.fake.requests.slice(seen).map((q) => q.body as Record<string, unknown>);
      expect(sent).toHaveLength(2);
      for (const body of sent) {
        expect(body.previous_response_id).toBeUndefined();
        expect(body.store).toBe(false);
        // no item id (Blackbox's are not the API's, and the API's tie an item to a stored response); call ids
        // are the agent's to pair, Blackbox's own (bbx_call-N) for the replayed calls, as in chat completions
        const input = body.input as Array<Record<string, unknown>>;
        expect(input.filter((i) => "id" in i)).toEqual([]);
      }
      // the first live call carries the replayed prefix and the new result, the second the first's reply too
      const items = (b: Record<string, unknown>) => b.input as Array<Record<string, unknown>>;
      expect(items(sent[0]!).map((i) => i.type ?? i.role)).toEqual([
        "user",
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
      ]);
      expect(items(sent[0]!)[4]).toMatchObject({ output: set });
      expect(items(sent[1]!).slice(0, 6)).toEqual(items(sent[0]!));
      expect(
        items(sent[1]!)
          .slice(6)
          .map((i) => i.type),
      ).toEqual(["function_call", "function_call_output"]);
      const fork = readCassette(out);
      expect(readFileSync(out, "utf8")).not.toMatch(LEAKS);
      expect(fork.steps[AT]!.payload).toMatchObject({ result: set });
      expect(fork.steps.at(-2)!.payload).toEqual({ type: "final_answer", text: "Rain in Lisbon, sun in Faro." });
    },
  );
});

describe("a reply only the wire shows", () => {
  it.each(["plain", "streamed"] as const)(
    "%s: a refusal and a length stop are recorded as stops and replayed offline",
    async (how) => {
      const reply = (c: Parameters<typeof openaiResponse>[0]) =>
        how === "streamed" ? { sse: openaiResponseSSE(c) } : { json: openaiResponse(c) };
      for (const [what, content, stop] of [
        ["refusal", { refusal: "I can't help with that." }, "refusal"],
        ["length", { text: "Lisbon is", incomplete: "max_output_tokens" }, "length"],
      ] as const) {
        const run: Run = { door: "fetch", call: how === "streamed" ? "stream" : "create", history: "whole" };
        fx.fake.enqueue(reply(content));
        const out = join(fx.dir, `${what}-${how}.json`);
        const recorded = await runAgent(fx.fake, run, recordSession(out), join(fx.dir, `${what}.log`));
        const text = "refusal" in content ? content.refusal : content.text;
        const status = what === "length" ? "incomplete" : "completed";
        expect(printed(recorded)).toMatchObject({ text, calls: 1, status });
        const trace = readCassette(out);
        expect(trace.steps[1]!.payload).toEqual({ type: "final_answer", text, stop });
        const replayed = await runAgent(fx.fake, run, replaySession(out), join(fx.dir, `${what}.log`), {}, true);
        expect(printed(replayed)).toEqual({ text, calls: 1, status, ids: ["bbx-resp-0"] });
        expect(replayed.code).toBe(0);
      }
    },
  );

  it("structured output (text.format): recorded as responseFormat, the JSON reply replayed offline", async () => {
    const run: Run = { door: "hook", call: "stream", history: "whole" };
    const report = JSON.stringify({ city: "Lisbon", sky: "sunny" });
    fx.fake.enqueue({ sse: openaiResponseSSE({ text: report }) });
    const out = join(fx.dir, "structured.json");
    const extra = { AGENT_FORMAT: "1" };
    const recorded = await runAgent(fx.fake, run, recordSession(out), join(fx.dir, "structured.log"), extra);
    expect(printed(recorded)).toMatchObject({ text: report, calls: 1 });
    expect(fx.fake.requests.at(-1)!.body).toMatchObject({ text: { format: { type: "json_schema", name: "report" } } });
    expect(readCassette(out).steps[0]!.payload).toMatchObject({
      params: { responseFormat: { type: "json_schema", json_schema: { name: "report", strict: true } } },
    });
    const replayed = await runAgent(fx.fake, run, replaySession(out), join(fx.dir, "structured.log"), extra, true);
    expect(printed(replayed)).toMatchObject({ text: report, calls: 1 });
    expect(replayed.code).toBe(0);
    // without the format the request is another one: a divergence at params.responseFormat
    const plain = await runAgent(fx.fake, run, replaySession(out), join(fx.dir, "structured.log"), {}, true);
    expect(printed(plain).failed).toContain("at params.responseFormat");
  });

  it("a reasoning model's loop: its reasoning items (encrypted content included) left out, replayed offline", async () => {
    const run: Run = { door: "fetch", call: "create", history: "whole" };
    queueLoop(fx.fake, false, { reasoning: "gAAAA-encrypted-reasoning-0000" });
    const out = join(fx.dir, "thinker.json");
    const extra = { AGENT_REASONING: "1" };
    const recorded = await runAgent(fx.fake, run, recordSession(out), join(fx.dir, "reasoning.log"), extra);
    expect(printed(recorded)).toMatchObject({ text: ANSWER, calls: 3 });
    // the agent sent the reasoning items back, as the API asks of a stateless reasoning loop
    expect(JSON.stringify(fx.fake.requests.at(-1)!.body)).toContain("gAAAA-encrypted-reasoning-0000");
    const text = readFileSync(out, "utf8");
    expect(text).not.toMatch(/encrypted|reasoning_tokens|"type": ?"reasoning"/);
    expect(text).not.toMatch(LEAKS);
    const replayed = await runAgent(
      fx.fake,
      run,
      replaySession(out),
      join(fx.dir, "reasoning-replay.log"),
      extra,
      true,
    );
    expect(printed(replayed)).toMatchObject({ text: ANSWER, calls: 3 });
    expect(replayed.code).toBe(0);
    expect(existsSync(join(fx.dir, "reasoning-replay.log"))).toBe(false);
  });
});
