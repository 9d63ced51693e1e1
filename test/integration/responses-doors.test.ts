/**
 * The OpenAI Responses API through both doors, with the real openai SDK against the fake
 * provider speaking /v1/responses (JSON, and the API's event sequence cut in 7-byte
 * pieces): a three-call tool loop (two parallel calls, one of them a tool error, then one
 * more call, then the answer), sent as whole history or chained on previous_response_id,
 * through `responses.create`, `create({ stream: true })` and `responses.stream()`:
 * - the register hook (`blackbox record|replay -- node agent.mjs`, tools named in the
 *   config) and bb.fetch (`blackbox()` in the agent, tools wrapped with bb.tools);
 * - each recorded, then replayed by a child process under `unshare -n` that runs no tool;
 * - every recording holds the same steps, whatever the door, the entry point or the
 *   history's form (the chained and whole-history cassettes compared step by step), and
 *   each replays the others, streamed or not;
 * - no key and no provider id in any cassette.
 * The agent is test/fixtures/responses/agent.mjs.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Trace } from "../../src/trace/types.js";
import {
  ANSWER,
  LEAKS,
  name,
  printed,
  queueLoop,
  recordSession,
  replaySession,
  runAgent,
  type Run,
} from "./responsesHelpers.js";
import { DONE_LINE, readCassette, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture();

const RUNS: Run[] = (["hook", "fetch"] as const).flatMap((door) =>
  (["create", "create-stream", "stream"] as const).flatMap((call) =>
    (["whole", "chained"] as const).map((history) => ({ door, call, history })),
  ),
);

/** A step's payload without what differs between runs by design (nothing: timestamps are outside payloads). */
const payloads = (t: Trace) => t.steps.filter((s) => s.type !== "metadata").map((s) => [s.type, s.payload]);

describe.each(RUNS.map((r) => [name(r), r] as const))("%s", (_name, run) => {
  const cassette = () => join(fx.dir, `${name(run)}.json`);
  const log = () => join(fx.dir, `${name(run)}.log`);

  it("records the loop: three model calls, three tool calls (one an error), no key or provider id", async () => {
    queueLoop(fx.fake, run.call !== "create");
    const seen = fx.fake.requests.length;
    const r = await runAgent(fx.fake, run, recordSession(cassette()), log());
    expect(printed(r)).toMatchObject({ text: ANSWER, calls: 3 });
    expect(r.stderr).toMatch(run.door === "hook" ? DONE_LINE : /^$/);
    expect(r.code).toBe(0);
    expect(readFileSync(log(), "utf8")).toBe("get_weather Lisbon\nget_weather Porto\nget_weather Faro\n");
    const sent = fx.fake.requests.slice(seen).map((q) => q.body as Record<string, unknown>);
    expect(sent.map((b) => b.previous_response_id ?? null)).toEqual(
      run.history === "chained" ? [null, printed(r).ids![0], printed(r).ids![1]] : [null, null, null],
    );
    const text = readFileSync(cassette(), "utf8");
    expect(text).not.toMatch(LEAKS);
    const trace = readCassette(cassette()); // verifies: hash chain, neutrality
    expect(trace.steps.map((s) => s.type)).toEqual([
      ...["model_input", "model_output", "tool_call", "tool_result", "tool_call", "tool_result"],
      ...["model_input", "model_output", "tool_call", "tool_result", "model_input", "model_output", "metadata"],
    ]);
    expect(trace.steps[5]!.payload).toMatchObject({ toolName: "get_weather", error: expect.stringContaining("Porto") });
    expect(trace.steps[10]!.payload).toMatchObject({
      tools: [{ name: "get_weather", strict: true }],
      systemPrompt: "You are a weather bot.",
      params: { maxTokens: 300 },
    });
    expect(trace.steps[11]!.payload).toEqual({ type: "final_answer", text: ANSWER });
  });

  it("replays offline in a child process under unshare -n: the same answer, Blackbox's ids, no tool run", async () => {
    rmSync(log(), { force: true });
    const seen = fx.fake.requests.length;
    const r = await runAgent(fx.fake, run, replaySession(cassette()), log(), {}, true);
    expect(r.stderr).toMatch(run.door === "hook" ? DONE_LINE : /^$/);
    expect(printed(r)).toEqual({
      text: ANSWER,
      calls: 3,
      status: "completed",
      ids: ["bbx-resp-0", "bbx-resp-1", "bbx-resp-2"],
    });
    expect(r.code).toBe(0);
    expect(existsSync(log())).toBe(false);
    expect(fx.fake.requests.length).toBe(seen);
  });
});

describe("one conversation, one cassette", () => {
  it("every recording holds the same steps, step by step: door, entry point, whole history or chained", () => {
    const first = payloads(readCassette(join(fx.dir, `${name(RUNS[0]!)}.json`)));
    for (const run of RUNS.slice(1)) {
      expect(payloads(readCassette(join(fx.dir, `${name(run)}.json`))), name(run)).toEqual(first);
    }
  });

  it.each(
    [
      [RUNS[0]!, { door: "hook", call: "stream", history: "chained" }],
      [RUNS[0]!, { door: "fetch", call: "create-stream", history: "chained" }],
      [
        { door: "hook", call: "create-stream", history: "chained" },
        { door: "fetch", call: "create", history: "whole" },
      ],
      [
        { door: "fetch", call: "stream", history: "whole" },
        { door: "hook", call: "create", history: "chained" },
      ],
    ].map(([a, b]) => [name(a as Run), name(b as Run), a, b]) as Array<[string, string, Run, Run]>,
  )("the %s recording is replayed offline by the %s agent", async (_a, _b, recorded, agent) => {
    const log = join(fx.dir, `cross-${name(agent)}.log`);
    const r = await runAgent(fx.fake, agent, replaySession(join(fx.dir, `${name(recorded)}.json`)), log, {}, true);
    expect(printed(r)).toMatchObject({ text: ANSWER, calls: 3 });
    expect(r.code).toBe(0);
    expect(existsSync(log)).toBe(false);
  });
});
