import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_RAIN, DemoModelClient, demoTools, runDemoAgent } from "../../../src/agent/demo.js";
import { forkRun, type ForkRunOptions } from "../../../src/agent/forkRun.js";
import { runAgent } from "../../../src/agent/loop.js";
import { ScriptedModelClient } from "../../../src/agent/modelClient.js";
import { ForkError } from "../../../src/errors.js";
import { verifyTrace } from "../../../src/trace/verify.js";
import type { JsonValue, ModelInput, Trace } from "../../../src/trace/types.js";

const clock = (start: number) => {
  let t = start;
  return () => t++;
};
let parent: Trace;
beforeAll(async () => {
  parent = await runDemoAgent({ traceId: "demo", now: clock(1_000) });
});
const fork = (options: Partial<ForkRunOptions> & { forkIndex: number }, from = parent) =>
  forkRun(from, { client: new DemoModelClient(), tools: demoTools, now: clock(5_000), ...options });

/** The invariants every child satisfies; `shared` = how many steps are hash-identical. */
function expectForkInvariants(child: Trace, from: Trace, forkIndex: number, shared: number) {
  expect(child.parentId).toBe(from.id);
  expect(child.forkedFromStepId).toBe(from.steps[forkIndex]!.id);
  for (let i = 0; i < shared; i++) {
    expect(child.steps[i]!.hash, `step ${i}`).toBe(from.steps[i]!.hash);
    expect(child.steps[i]!.timestamp).toBe(from.steps[i]!.timestamp);
  }
  expect(child.steps[shared]!.hash).not.toBe(from.steps[shared]!.hash);
  expect(child.steps[shared]!.prevHash).toBe(shared === 0 ? null : from.steps[shared - 1]!.hash);
  expect(verifyTrace(child)).toEqual({ ok: true, problems: [] });
}
const messagesAt = (t: Trace, i: number) => (t.steps[i]!.payload as unknown as ModelInput).messages;
const resultOf = (t: Trace) => (t.steps.at(-1)!.payload as { result: string }).result;

describe("forkRun: fork-point table without mutations", () => {
  it("model_input: prefix before the model call, the loop starts from the same prompt", async () => {
    const child = await fork({ forkIndex: 4 });
    expectForkInvariants(child, parent, 4, 4);
    expect(child.steps[4]!.type).toBe("model_input");
    expect(child.steps[4]!.payload).toEqual(parent.steps[4]!.payload);
    expect(resultOf(child)).toBe(resultOf(parent));
  });

  it("model_input: diverges at forkIndex even when the clock reads the parent's own timestamp", async () => {
    const frozen = parent.steps[4]!.timestamp;
    const child = await fork({ forkIndex: 4, now: () => frozen });
    expectForkInvariants(child, parent, 4, 4);
    expect(child.steps[4]!.timestamp).toBe(frozen + 1);
  });

  it("model_input at step 0: nothing is shared and the first step starts a new chain", async () => {
    const child = await fork({ forkIndex: 0 });
    expectForkInvariants(child, parent, 0, 0);
    expect(child.steps).toHaveLength(parent.steps.length);
  });

  it("model_output: prefix includes its model_input; the first new step is a new model_input at forkIndex", async () => {
    const child = await fork({ forkIndex: 5 });
    expectForkInvariants(child, parent, 5, 5);
    expect(child.steps[4]!.type).toBe("model_input");
    expect(child.steps[5]!.type).toBe("model_input");
    expect(messagesAt(child, 5)).toEqual(messagesAt(parent, 4));
    expect(child.steps[6]!.payload).toMatchObject({
      type: "tool_call",
      toolCallId: "call-1",
      toolName: "find_activities",
    });
  });

  it("tool_call: prefix ends before tool execution; the unfinished round is left out and ids continue past it", async () => {
    const child = await fork({ forkIndex: 6 });
    expectForkInvariants(child, parent, 6, 6);
    expect(child.steps[6]!.type).toBe("model_input");
    expect(messagesAt(child, 6)).toEqual(messagesAt(parent, 4));
    // call-1 is in the copied prefix (step 5), so the continued run starts at call-2
    expect(child.steps[7]!.payload).toMatchObject({
      type: "tool_call",
      toolCallId: "call-2",
      toolName: "find_activities",
    });
    expect(child.steps[8]!.payload).toMatchObject({ toolCallId: "call-2" });
  });

  it("tool_result: prefix holds the round up to its tool_call; the loop starts fresh", async () => {
    const child = await fork({ forkIndex: 7 });
    expectForkInvariants(child, parent, 7, 7);
    expect(child.steps[6]!.type).toBe("tool_call");
    expect(child.steps[7]!.type).toBe("model_input");
    expect(child.steps[8]!.payload).toMatchObject({ toolCallId: "call-2" });
  });
});

describe("forkRun: mutations", () => {
  it("model_input with a mutated earlier tool_result: divergence at the mutation, the agent sees the new value", async () => {
    const child = await fork({ forkIndex: 4, toolResultMutations: { 3: DEMO_RAIN } });
    expectForkInvariants(child, parent, 4, 3);
    expect(child.steps[3]!.timestamp).toBe(parent.steps[3]!.timestamp);
    expect(child.steps[3]!.payload).toEqual({ toolCallId: "call-0", toolName: "get_weather", result: DEMO_RAIN });
    expect(messagesAt(child, 4)[2]!.content).toEqual([
      { type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: DEMO_RAIN },
    ]);
    expect(child.steps[5]!.payload).toMatchObject({
      toolCallId: "call-1",
      toolInput: { city: "Lisbon", setting: "indoor" },
    });
    expect(resultOf(child)).toContain("plan indoors");
  });

  describe("on a run with a parallel tool turn (tool_result steps with no model_input between them)", () => {
    let par: Trace;
    beforeAll(async () => {
      par = await runAgent({
        traceId: "par",
        task: "two forecasts",
        toolDefinitions: [],
        tools: demoTools,
        now: clock(2_000),
        client: new ScriptedModelClient([
          {
            type: "tool_calls",
            calls: [
              { toolCallId: "", toolName: "get_weather", toolInput: { city: "Lisbon" } },
              { toolCallId: "", toolName: "get_weather", toolInput: { city: "Porto" } },
            ],
          },
          { type: "final_answer", text: "done" },
        ]),
      });
      // 0 mi, 1 mo, 2 tc, 3 tr, 4 tc, 5 tr, 6 mi, 7 mo, 8 metadata
    });
    const scripted = (text: string) => new ScriptedModelClient([{ type: "final_answer", text }]);

    it("model_input: both mutated results reach the next request in call order, and steps between are re-chained", async () => {
      const child = await fork({ forkIndex: 6, toolResultMutations: { 3: "L", 5: "P" }, client: scripted("ok") }, par);
      expectForkInvariants(child, par, 6, 3);
      expect(child.steps[4]!.payload).toEqual(par.steps[4]!.payload);
      expect(child.steps[4]!.timestamp).toBe(par.steps[4]!.timestamp);
      expect(child.steps[4]!.hash).not.toBe(par.steps[4]!.hash);
      expect(messagesAt(child, 6)[2]!.content).toEqual([
        { type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: "L" },
        { type: "tool_result", toolCallId: "call-1", toolName: "get_weather", result: "P" },
      ]);
    });

    it("tool_call: the prefix keeps the mutation; the unfinished round is not sent", async () => {
      const child = await fork({ forkIndex: 4, toolResultMutations: { 3: "L" }, client: scripted("ok") }, par);
      expectForkInvariants(child, par, 4, 3);
      expect(child.steps[4]!.type).toBe("model_input");
      expect(messagesAt(child, 4)).toEqual([{ role: "user", content: "two forecasts" }]);
    });

    it("tool_result: the prefix up to the tool_call is re-chained after the mutation", async () => {
      const child = await fork({ forkIndex: 5, toolResultMutations: { 3: "L" }, client: scripted("ok") }, par);
      expectForkInvariants(child, par, 5, 3);
      expect(child.steps[4]!.type).toBe("tool_call");
      expect(child.steps[5]!.type).toBe("model_input");
    });
  });

  it("model_output with a mutation is always refused: its own model_input lies in between", async () => {
    await expect(fork({ forkIndex: 5, toolResultMutations: { 3: DEMO_RAIN } })).rejects.toThrow(
      "Cannot fork at step 5 with a mutation at step 3: model_input step 4 lies between them",
    );
  });
});

describe("forkRun: the replacement (--set) form", () => {
  it("copies 0..N-1, puts the new result at N with the parent's id, name and timestamp, then goes on", async () => {
    const child = await fork({ forkIndex: 3, replacement: DEMO_RAIN });
    expectForkInvariants(child, parent, 3, 3);
    expect(child.steps[3]!).toMatchObject({
      type: "tool_result",
      timestamp: parent.steps[3]!.timestamp,
      payload: { toolCallId: "call-0", toolName: "get_weather", result: DEMO_RAIN },
    });
    expect(child.steps[4]!.type).toBe("model_input");
    expect(child.steps[5]!.payload).toMatchObject({ toolCallId: "call-1", toolInput: { setting: "indoor" } });
    expect(resultOf(child)).toContain("rainy, 14°C");
    expect(resultOf(parent)).toContain("sunny, 24°C");
  });

  it("takes a child id when given one", async () => {
    const child = await fork({ forkIndex: 7, replacement: { activities: ["a nap"] }, traceId: "nap" });
    expect(child.id).toBe("nap");
    expect(child.steps.every((s, i) => s.id === `nap:${i}`)).toBe(true);
    expect(resultOf(child)).toContain(": a nap.");
  });
});

describe("forkRun: refusals", () => {
  const refuses = async (
    options: Partial<ForkRunOptions> & { forkIndex: number },
    message: string | RegExp,
    from = parent,
  ) => {
    const error = await fork(options, from).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ForkError);
    expect((error as Error).message).toMatch(message);
  };

  it("a metadata fork point", () =>
    refuses(
      { forkIndex: 10 },
      "Cannot fork at step 10: it is a metadata step (a terminal run marker), so there is nothing to continue. Fork at an earlier",
    ));
  it("an index out of range", async () => {
    await refuses(
      { forkIndex: 11 },
      'Fork index 11 is out of range: trace "demo" has 11 steps (0..10). Pick a step index from blackbox show.',
    );
    await refuses({ forkIndex: -1 }, /Fork index -1 is out of range/);
    await refuses({ forkIndex: 1.5 }, /Fork index 1.5 is out of range/);
  });
  it("a model_input between the earliest mutation and the fork point", () =>
    refuses(
      { forkIndex: 8, toolResultMutations: { 3: DEMO_RAIN } },
      /model_input step 4 lies between them and records the history before the mutation.*Fork at step 4 or earlier/,
    ));
  it("a mutation of a step that is not a tool_result", () =>
    refuses(
      { forkIndex: 4, toolResultMutations: { 2: "x" } },
      "Cannot mutate step 2: it is a tool_call step, and toolResultMutations only replace tool_result steps.",
    ));
  it("a mutation at or after the fork point", () =>
    refuses(
      { forkIndex: 4, toolResultMutations: { 7: "x" } },
      "Cannot mutate step 7: mutations apply to tool_result steps before the fork point (4).",
    ));
  it("--set at a step that is not a tool_result", () =>
    refuses(
      { forkIndex: 4, replacement: "x" },
      "Cannot set a result at step 4: it is a model_input step, and --set replaces a tool result. Pick the index of a tool_result step",
    ));
  it("a replacement and mutations together", () =>
    refuses(
      { forkIndex: 7, replacement: "x", toolResultMutations: { 3: "y" } as Record<number, JsonValue> },
      /either a replacement result at the fork point or toolResultMutations, not both/,
    ));
  it("a trace the built-in agent cannot continue", () =>
    refuses(
      { forkIndex: 0 },
      /has no model_input step with messages and tools, so the built-in agent cannot continue it/,
      {
        ...parent,
        steps: parent.steps.map((s) => (s.type === "model_input" ? { ...s, payload: { note: "imported" } } : s)),
      },
    ));
});
