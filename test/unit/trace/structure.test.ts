/**
 * verify's step structure (src/trace/structure.ts): each way of editing a real cassette and
 * recomputing every hash is refused with its step and path; every cassette the code writes
 * still verifies.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DemoModelClient, demoTools, runDemoAgent } from "../../../src/agent/demo.js";
import { forkRun } from "../../../src/agent/forkRun.js";
import { runAgent } from "../../../src/agent/loop.js";
import { ScriptedModelClient } from "../../../src/agent/modelClient.js";
import { createSession } from "../../../src/blackbox.js";
import { stepHash } from "../../../src/trace/canonical.js";
import type { JsonValue, ModelOutput, Trace } from "../../../src/trace/types.js";
import { verifyTrace } from "../../../src/trace/verify.js";

const fixture = (name: string): Trace =>
  JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8"));

/** Recomputes index, id, prevHash and hash of every step: what a careful editor does. */
function rechain(t: Trace): Trace {
  let prev: string | null = null;
  t.steps.forEach((s, i) => {
    s.index = i;
    s.id = `${t.id}:${i}`;
    s.prevHash = prev;
    s.hash = stepHash(s);
    prev = s.hash;
  });
  return t;
}
const edited = (t: Trace, edit: (t: Trace) => void): Trace => {
  const copy = structuredClone(t);
  edit(copy);
  return rechain(copy);
};
const problemsOf = (t: Trace) =>
  verifyTrace(t).problems.map((p) => ({ step: p.stepIndex, path: p.path, message: p.message }));

let demo: Trace; // 0 in, 1 out(call-0), 2 call, 3 result, 4 in, 5 out(call-1), 6 call, 7 result, 8 in, 9 final, 10 run_completed
beforeAll(async () => {
  let t = 1_767_225_600_000;
  demo = await runDemoAgent({ traceId: "trip", now: () => (t += 7) });
  expect(demo.steps.map((s) => s.type).join(",")).toBe(
    "model_input,model_output,tool_call,tool_result,model_input,model_output,tool_call,tool_result,model_input,model_output,metadata",
  );
});

describe("verify refuses a cassette whose step structure was edited (hashes recomputed)", () => {
  const cases: Array<[string, (t: Trace) => void, { step: number; path: string; message: RegExp }]> = [
    [
      "cut off, no terminal step",
      (t) => void t.steps.pop(),
      {
        step: 9,
        path: "steps[9].type",
        message: /^the cassette ends at step 9 without a terminal metadata step .*cut off/,
      },
    ],
    [
      "a tool_result deleted",
      (t) => void t.steps.splice(3, 1),
      {
        step: 3,
        path: "steps[3].type",
        message: /^expected the tool_result of call-0 \(tool_call at step 2\), found a model_input/,
      },
    ],
    [
      "tool_call and tool_result swapped",
      (t) => void ([t.steps[2], t.steps[3]] = [t.steps[3]!, t.steps[2]!]),
      { step: 2, path: "steps[2].type", message: /^a tool_result for "call-0" without its tool_call right before it/ },
    ],
    [
      "a tool_result duplicated",
      (t) => void t.steps.splice(4, 0, structuredClone(t.steps[3]!)),
      {
        step: 4,
        path: "steps[4].type",
        message: /^a second tool_result for call-0: its tool_call \(step 2\) was already answered/,
      },
    ],
    [
      "an extra tool_result with another value",
      (t) => {
        const r = structuredClone(t.steps[3]!);
        (r.payload as { result: JsonValue }).result = "sunny forever";
        t.steps.splice(4, 0, r);
      },
      { step: 4, path: "steps[4].type", message: /^a second tool_result for call-0/ },
    ],
    [
      "an extra tool round no model output asked for",
      (t) => {
        const [c, r] = [structuredClone(t.steps[2]!), structuredClone(t.steps[3]!)];
        (c.payload as { toolCallId: string }).toolCallId = (r.payload as { toolCallId: string }).toolCallId = "call-7";
        t.steps.splice(4, 0, c, r);
      },
      {
        step: 4,
        path: "steps[4].payload.toolCallId",
        message: /^no model output asked for call-7 \(step 1 asked for call-0\)/,
      },
    ],
    [
      "a tool round repeated",
      (t) => void t.steps.splice(4, 0, structuredClone(t.steps[2]!), structuredClone(t.steps[3]!)),
      { step: 4, path: "steps[4].payload.toolCallId", message: /^call-0 already has a tool round at step 2/ },
    ],
    [
      "two terminal steps",
      (t) => void t.steps.push(structuredClone(t.steps[10]!)),
      {
        step: 10,
        path: "steps[10].payload.event",
        message: /^step 10 is a terminal "run_completed" step, but 1 step\(s\) follow it/,
      },
    ],
    [
      "the terminal step in the middle",
      (t) => void t.steps.splice(4, 0, t.steps.pop()!),
      {
        step: 4,
        path: "steps[4].payload.event",
        message: /^step 4 is a terminal "run_completed" step, but 6 step\(s\) follow it/,
      },
    ],
    [
      'toolCallId "banana"',
      (t) => {
        for (const k of [2, 3]) (t.steps[k]!.payload as { toolCallId: string }).toolCallId = "banana";
      },
      {
        step: 2,
        path: "steps[2].payload.toolCallId",
        message: /^toolCallId is "banana"; tool-call ids are Blackbox's call-N/,
      },
    ],
    [
      "a negative timestamp",
      (t) => void (t.steps[0]!.timestamp = -5),
      {
        step: 0,
        path: "steps[0].timestamp",
        message: /^timestamp is -5; a step's timestamp is a whole, non-negative number/,
      },
    ],
    [
      "a fractional timestamp",
      (t) => void (t.steps[2]!.timestamp += 0.5),
      { step: 2, path: "steps[2].timestamp", message: /^timestamp is \d+\.5; a step's timestamp is a whole/ },
    ],
    [
      "a timestamp going back",
      (t) => void (t.steps[6]!.timestamp = t.steps[0]!.timestamp),
      { step: 6, path: "steps[6].timestamp", message: /^timestamp \d+ is earlier than the step before its tool round/ },
    ],
  ];
  for (const [name, edit, expected] of cases) {
    it(name, () => {
      const t = edited(demo, edit);
      const problems = problemsOf(t);
      expect(problems.length, JSON.stringify(problems)).toBeGreaterThan(0);
      // every problem is a structure problem: the hash chain itself is intact
      expect(problems.filter((p) => /\.(hash|prevHash|index|id)$/.test(p.path))).toEqual([]);
      expect(problems).toContainEqual({
        step: expected.step,
        path: expected.path,
        message: expect.stringMatching(expected.message),
      });
      expect(problems[0]!.message).toMatch(
        /The cassette was edited or corrupted after recording: restore it from version control or re-record the run\.$/,
      );
    });
  }

  it("a toolName that is an object with its own toString and valueOf keys (String() of it throws) is a problem, not a crash", () => {
    const t = edited(demo, (t) => {
      for (const k of [2, 3])
        (t.steps[k]!.payload as unknown as { toolName: unknown }).toolName = { toString: "x", valueOf: [] };
    });
    // schema first: a wrong type is the schema's problem, and the structure is not read from it
    expect(problemsOf(t)).toContainEqual({
      step: 2,
      path: "steps[2].payload.toolName",
      message: "expected a string, got an object",
    });
  });
});

describe("a recorded agent's cassette (tool_calls outputs, parallel calls)", () => {
  const parallel = fixture("parallel.json"); // 0 marker, 1 in, 2 out(call-0, call-1), 3-6 two rounds, 7 in, 8 final, 9 run_completed

  it("calls out of call order are refused", () => {
    const t = edited(parallel, (t) => void t.steps.splice(3, 4, t.steps[5]!, t.steps[6]!, t.steps[3]!, t.steps[4]!));
    expect(problemsOf(t)).toContainEqual({
      step: 5,
      path: "steps[5].payload.toolCallId",
      message: expect.stringMatching(/^call-0 comes after a later call of the same round/),
    });
  });

  it("a tool round under another tool's name is refused", () => {
    const t = edited(parallel, (t) => {
      for (const k of [3, 4]) (t.steps[k]!.payload as { toolName: string }).toolName = "get_time";
    });
    expect(problemsOf(t)).toContainEqual({
      step: 3,
      path: "steps[3].payload.toolName",
      message: expect.stringMatching(
        /^toolName is "get_time", but the model output at step 2 asked call-0 for "get_weather"/,
      ),
    });
  });

  it("an extra round reusing an id no model output gave out is refused; a new id is a wrapped tool the model did not request", () => {
    const reused = edited(parallel, (t) => {
      const [c, r] = [structuredClone(t.steps[3]!), structuredClone(t.steps[4]!)];
      t.steps.splice(7, 0, c, r);
    });
    expect(problemsOf(reused)).toContainEqual({
      step: 7,
      path: "steps[7].payload.toolCallId",
      message: expect.stringMatching(/^call-0 already has a tool round at step 3/),
    });
    const unrequested = edited(parallel, (t) => {
      const [c, r] = [structuredClone(t.steps[3]!), structuredClone(t.steps[4]!)];
      (c.payload as { toolCallId: string }).toolCallId = (r.payload as { toolCallId: string }).toolCallId = "call-2";
      t.steps.splice(7, 0, c, r);
    });
    expect(problemsOf(unrequested)).toEqual([]);
  });

  it("a fork child without the replacement tool_result at the fork point is refused (the --set 1e999 child)", () => {
    // what a recorded agent's fork at step 4 wrote when the replacement could not be stored:
    // the prefix, then the agent's next request, which carries a result for call-0 anyway
    const t = structuredClone(parallel);
    t.id = "child";
    t.parentId = "parallel";
    t.forkedFromStepId = "parallel:4";
    const next = structuredClone(t.steps[7]!);
    t.steps.splice(4);
    t.steps.push(next, structuredClone(parallel.steps[8]!), structuredClone(parallel.steps[9]!));
    rechain(t);
    expect(problemsOf(t)).toContainEqual({
      step: 4,
      path: "steps[4].type",
      message: expect.stringMatching(
        /^step 4 is the fork point, so it must be the tool_result of call-0 \(tool_call at step 3\) with the replacement result, but it is a model_input whose messages already carry a result for call-0/,
      ),
    });
  });
});

describe("replay never serves what the structure does not allow", () => {
  const dir = mkdtempSync(join(tmpdir(), "bbx-structure-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, edit] of [
    [
      "an orphan tool_result",
      (t: Trace) =>
        void t.steps.splice(5, 0, {
          ...structuredClone(t.steps[4]!),
          payload: { toolCallId: "call-0", toolName: "get_weather", result: "tampered" },
        }),
    ],
    ["a deleted tool_result", (t: Trace) => void t.steps.splice(4, 1)],
  ] as const) {
    it(`${name}: --match sequence replay refuses the cassette before the agent runs`, () => {
      const file = join(dir, `${name.replace(/\W+/g, "-")}.json`);
      writeFileSync(file, JSON.stringify(edited(fixture("parallel.json"), edit), null, 2));
      expect(() => createSession({ mode: "replay", cassette: file, match: "sequence" })).toThrow(
        /fails verify, so it cannot be replayed or forked:\n {2}step \d+ steps\[\d+\]\.type: /,
      );
    });
  }
});

describe("every cassette the code writes verifies", () => {
  it("the golden fixtures", () => {
    for (const name of [
      "basic.json",
      "parallel.json",
      "fork-child.json",
      "failed-agent-error.json",
      "failed-process-exit.json",
      "failed-calls-in-flight.json",
      "failed-max-steps.json",
      "failed-unknown-tool.json",
    ]) {
      expect(verifyTrace(fixture(name)), name).toEqual({ ok: true, problems: [] });
    }
  });

  // Built-in loop runs of random scripts (single and parallel calls, unknown tools, failing
  // tools, the turn limit) on a clock that may go back, and forkRun at every step they allow.
  const call = fc.record({
    toolName: fc.constantFrom("echo", "fail", "nope"),
    toolInput: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  });
  const output: fc.Arbitrary<ModelOutput> = fc.oneof(
    call.map((c) => ({ type: "tool_call" as const, toolCallId: "", ...c })),
    fc
      .array(call, { minLength: 1, maxLength: 3 })
      .map((calls) => ({ type: "tool_calls" as const, calls: calls.map((c) => ({ toolCallId: "", ...c })) })),
  );
  const tools = {
    echo: (x: JsonValue) => x,
    fail: () => {
      throw new Error("tool failed");
    },
  };
  const clockOf = (ticks: number[]) => {
    let k = 0;
    return () => 1_767_225_600_000 + ticks[k++ % ticks.length]!;
  };

  it("built-in runs and their forks, property", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(output, { maxLength: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 20 }),
        fc.jsonValue({ maxDepth: 2 }),
        async (script, maxSteps, ticks, replacement) => {
          const client = new ScriptedModelClient([...script, { type: "final_answer", text: "done" }]);
          const parent = await runAgent({
            traceId: "p",
            task: "t",
            toolDefinitions: [],
            tools,
            now: clockOf(ticks),
            maxSteps,
            client,
          });
          expect(verifyTrace(parent)).toEqual({ ok: true, problems: [] });
          for (const at of parent.steps.filter((s) => s.type !== "metadata")) {
            const again = () => new ScriptedModelClient([...script, { type: "final_answer", text: "done" }]);
            const child = await forkRun(parent, {
              forkIndex: at.index,
              client: again(),
              tools,
              now: clockOf(ticks.slice().reverse()),
              maxSteps: maxSteps + 2,
            });
            expect(verifyTrace(child), `fork at ${at.index}`).toEqual({ ok: true, problems: [] });
            if (at.type === "tool_result") {
              const set = await forkRun(parent, {
                forkIndex: at.index,
                replacement: replacement as JsonValue,
                client: again(),
                tools,
                now: clockOf(ticks),
                maxSteps: maxSteps + 2,
              });
              expect(verifyTrace(set), `fork --set at ${at.index}`).toEqual({ ok: true, problems: [] });
              expect(set.steps[at.index]!.type).toBe("tool_result");
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a fork of a fork: the grandchild's prefix holds its parent's fork point, which it does not name", async () => {
    const forkAt = (parent: Trace, at: number) =>
      forkRun(parent, { forkIndex: at, client: new DemoModelClient(), tools: demoTools });
    for (let a = 1; a < demo.steps.length - 1; a++) {
      const child = await forkAt(demo, a);
      expect(verifyTrace(child), `child at ${a}`).toEqual({ ok: true, problems: [] });
      for (let b = a + 1; b < child.steps.length - 1; b++) {
        const grandchild = await forkAt(child, b);
        expect(verifyTrace(grandchild), `child at ${a}, grandchild at ${b}`).toEqual({ ok: true, problems: [] });
      }
    }
  });

  it("a fork child's prefix is still checked where no earlier fork can have left a turn open", async () => {
    const child = await forkRun(demo, {
      forkIndex: 7,
      replacement: { forecast: "rain" },
      client: new DemoModelClient(),
      tools: demoTools,
    });
    const firstResult = child.steps.findIndex((st) => st.type === "tool_result");
    expect(firstResult).toBeLessThan(7);
    const swapped = edited(child, (t) => {
      const r = t.steps[firstResult]!;
      t.steps[firstResult] = t.steps[firstResult - 1]!;
      t.steps[firstResult - 1] = r;
    });
    expect(problemsOf(swapped).length).toBeGreaterThan(0);
    const renamed = edited(
      child,
      (t) => ((t.steps[firstResult]!.payload as { toolName: string }).toolName = "other_tool"),
    );
    expect(problemsOf(renamed).some((p) => p.step === firstResult)).toBe(true);
  });

  it("the demo run and its forks with --set", async () => {
    expect(verifyTrace(demo)).toEqual({ ok: true, problems: [] });
    for (const at of [3, 7]) {
      const child = await forkRun(demo, {
        forkIndex: at,
        replacement: { forecast: "rain" },
        client: new DemoModelClient(),
        tools: demoTools,
      });
      expect(verifyTrace(child)).toEqual({ ok: true, problems: [] });
    }
  });
});
