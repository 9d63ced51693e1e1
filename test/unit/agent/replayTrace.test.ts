import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_RAIN, DemoModelClient, demoTools, runDemoAgent } from "../../../src/agent/demo.js";
import { forkRun } from "../../../src/agent/forkRun.js";
import { runAgent } from "../../../src/agent/loop.js";
import { ScriptedModelClient } from "../../../src/agent/modelClient.js";
import { replayTrace } from "../../../src/agent/replayTrace.js";
import type { Trace } from "../../../src/trace/types.js";

const clock = (start: number) => {
  let t = start;
  return () => t++;
};
let parent: Trace;
beforeAll(async () => {
  parent = await runDemoAgent({ traceId: "demo", now: clock(1_000) });
});
const tampered = (edit: (t: Trace) => void): Trace => {
  const copy = structuredClone(parent);
  edit(copy);
  return copy;
};
const forkOf = (options: { forkIndex: number; replacement?: unknown; toolResultMutations?: Record<number, never> }) =>
  forkRun(parent, {
    client: new DemoModelClient(),
    tools: demoTools,
    now: clock(9_000),
    ...(options as object),
    forkIndex: options.forkIndex,
  });

describe("replayTrace", () => {
  it("reproduces a recording from the cassette alone", async () => {
    expect(await replayTrace(parent)).toEqual({ ok: true, steps: 11 });
  });

  it("reproduces forked children: --set form, the fork-point table and mutations", async () => {
    for (const child of [
      await forkOf({ forkIndex: 3, replacement: DEMO_RAIN }),
      await forkOf({ forkIndex: 5 }),
      await forkOf({ forkIndex: 7 }),
      await forkRun(parent, {
        forkIndex: 4,
        toolResultMutations: { 3: DEMO_RAIN },
        client: new DemoModelClient(),
        tools: demoTools,
        now: clock(9_000),
      }),
    ]) {
      expect(await replayTrace(child), child.forkedFromStepId).toEqual({ ok: true, steps: child.steps.length });
    }
  });

  it("reproduces runs that ended with unknown_tool, max_steps_exceeded and a tool error", async () => {
    const call = { type: "tool_call" as const, toolCallId: "", toolName: "get_weather", toolInput: { city: "Oslo" } };
    const runs = [
      await runAgent({
        traceId: "a",
        task: "x",
        toolDefinitions: [],
        tools: demoTools,
        now: clock(1),
        maxSteps: 2,
        client: new ScriptedModelClient([call, call]),
      }),
      await runAgent({
        traceId: "b",
        task: "x",
        toolDefinitions: [],
        tools: demoTools,
        now: clock(1),
        client: new ScriptedModelClient([{ ...call, toolName: "nope" }]),
      }),
    ];
    expect(runs[0]!.steps[3]!.payload).toMatchObject({ error: expect.stringContaining("no forecast") });
    for (const run of runs) expect(await replayTrace(run)).toEqual({ ok: true, steps: run.steps.length });
  });

  it("finds a tampered tool result at the next request, with the path and both values", async () => {
    const t = tampered((c) => {
      (c.steps[3]!.payload as { result: { forecast: string } }).result.forecast = "snow";
    });
    const r = await replayTrace(t);
    expect(r.ok).toBe(false);
    expect(r.divergence).toMatchObject({
      index: 4,
      path: "payload.messages[2].content[0].result.forecast",
      recorded: "sunny",
      actual: "snow",
    });
    expect(r.divergence!.message).toBe(
      'step 4 (model_input) differs at payload.messages[2].content[0].result.forecast: recorded "sunny", replayed "snow"',
    );
  });

  it("finds a tampered model output at the tool call that follows it", async () => {
    const t = tampered((c) => {
      (c.steps[5]!.payload as { toolInput: { setting: string } }).toolInput.setting = "indoor";
    });
    const r = await replayTrace(t);
    expect(r.divergence).toMatchObject({
      index: 6,
      path: "payload.toolInput.setting",
      recorded: "outdoor",
      actual: "indoor",
    });
  });

  it("finds a tampered outcome", async () => {
    const t = tampered((c) => {
      (c.steps[10]!.payload as { result: string }).result = "Stay home.";
    });
    expect((await replayTrace(t)).divergence).toMatchObject({
      index: 10,
      path: "payload.result",
      recorded: "Stay home.",
    });
  });

  it("reports a cassette cut short, and one with a step too many", async () => {
    const short = tampered((c) => void c.steps.pop());
    const r1 = await replayTrace(short);
    expect(r1.divergence).toMatchObject({ index: 10 });
    expect(r1.divergence!.message).toContain("cassette: 10 steps, replay: 11");

    const cut = tampered((c) => void c.steps.splice(9));
    const r2 = await replayTrace(cut);
    expect(r2.divergence!.message).toBe(
      "step 9: the replayed run asked the model for one more turn than the cassette recorded (cassette: 9 steps, replay: 9)",
    );
  });

  it("says there is nothing to replay when the cassette holds no run of the built-in agent", async () => {
    const r = await replayTrace({ ...parent, steps: parent.steps.filter((s) => s.type === "metadata") });
    expect(r.ok).toBe(false);
    expect(r.divergence!.message).toBe(
      'trace "demo" has no model_input step, so there is no run of the built-in agent to replay. Replay a recorded agent by running it: blackbox replay <cassette> -- <command>',
    );
  });
});
