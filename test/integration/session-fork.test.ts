/**
 * Forking a recorded agent: the agent re-runs, the prefix is checked against the
 * recording and copied verbatim, the fork point gets the replacement result, and
 * the rest is scripted (offline, under unshare -n) or live (the fake provider).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  blackbox,
  diffTraces,
  ForkError,
  isBlackboxError,
  loadTrace,
  SessionError,
  verifyTrace,
  type Trace,
} from "../../src/index.js";
import { kits, type Kit } from "../helpers/agents.js";
import { runTs } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

const TASK = "Lisbon or Porto this weekend?";
const STORM = { city: "Lisbon", forecast: "storm" };
let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "bbx-fork-"));
});
afterAll(() => fake.close());

describe.each(kits)("$name", (kit: Kit) => {
  const base = () => (kit.name === "anthropic" ? fake.anthropicUrl : fake.openaiUrl);
  const path = (n: string) => join(dir, `${kit.name}-${n}.json`);
  let parent: Trace;

  beforeAll(async () => {
    fake.enqueue(
      kit.reply({
        toolCalls: [
          { name: "get_weather", input: { city: "Lisbon" } },
          { name: "get_weather", input: { city: "Porto" } },
        ],
      }),
      kit.reply({ text: "Lisbon: sunny." }),
    );
    const spec = { kit: kit.name, session: { mode: "record", out: path("parent") }, task: TASK, baseURL: base() };
    const r = await runTs("test/helpers/sessionChild.ts", [JSON.stringify(spec)]);
    expect(JSON.parse(r.stdout).answer).toBe("Lisbon: sunny.");
    parent = await loadTrace(path("parent"));
    expect(parent.steps[3]!.type).toBe("tool_result");
  });

  function checkChild(child: Trace, n: number) {
    expect(verifyTrace(child)).toEqual({ ok: true, problems: [] });
    expect(child.parentId).toBe(parent.id);
    expect(child.forkedFromStepId).toBe(parent.steps[n]!.id);
    for (let i = 0; i < n; i++) {
      expect(child.steps[i]!.hash, `prefix step ${i}`).toBe(parent.steps[i]!.hash);
      expect(child.steps[i]!.timestamp).toBe(parent.steps[i]!.timestamp);
    }
    const at = child.steps[n]!;
    expect(at.type).toBe("tool_result");
    expect(at.timestamp).toBe(parent.steps[n]!.timestamp);
    expect(at.prevHash).toBe(parent.steps[n - 1]!.hash);
    const p = parent.steps[n]!.payload as any;
    expect(at.payload).toEqual({ toolCallId: p.toolCallId, toolName: p.toolName, result: STORM });
    const d = diffTraces(parent, child)!;
    expect(d.index).toBe(n);
  }

  test("scripted continuation, offline (unshare -n): nothing is sent, the child follows the fork rules", async () => {
    const spec = {
      kit: kit.name,
      task: TASK,
      weather: { Porto: { city: "Porto", forecast: "cloudy" } },
      session: {
        mode: "fork",
        cassette: path("parent"),
        out: path("scripted"),
        forkAt: 3,
        forkSet: STORM,
        continueWith: "script",
        script: [{ type: "final_answer", text: "Storm in Lisbon: go to Porto." }],
      },
    };
    const r = await runTs("test/helpers/sessionChild.ts", [JSON.stringify(spec)], { offline: true });
    expect(r.stderr).toBe("");
    // no tool ran: the fork point has the new value, and the round's other call (Porto), made as
    // recorded, is answered from the parent (its "rain", not the "cloudy" the tool would say now)
    expect(JSON.parse(r.stdout)).toEqual({ answer: "Storm in Lisbon: go to Porto.", toolRuns: 0 });
    const child = await loadTrace(path("scripted"));
    checkChild(child, 3);
    expect(child.steps.slice(4).map((s) => s.type)).toEqual([
      "tool_call",
      "tool_result",
      "model_input",
      "model_output",
      "metadata",
    ]);
    expect((child.steps[5]!.payload as any).result).toEqual({ city: "Porto", forecast: "rain" });
    // the new model request carries the replaced result
    expect(JSON.stringify(child.steps[6]!.payload)).toContain("storm");
    expect(child.steps.at(-1)!.payload).toEqual({
      event: "run_completed",
      status: "success",
      result: "Storm in Lisbon: go to Porto.",
    });
  });

  test.each(["live", "script"] as const)(
    "%s: the round's tools called last first, fork at the second's result: the first is the prefix's, answered from the parent",
    async (continueWith) => {
      if (continueWith === "live") fake.enqueue(kit.reply({ text: "Porto, then." }));
      const before = fake.requests.length;
      const out = path(`reversed-${continueWith}`);
      const bb = blackbox({
        mode: "fork",
        cassette: path("parent"),
        out,
        forkAt: 5,
        forkSet: STORM,
        continueWith,
        ...(continueWith === "script" ? { script: [{ type: "final_answer", text: "Porto, then." }] } : {}),
      });
      let runs = 0;
      const weather = async ({ city }: { city: string }) => (runs++, { city, forecast: "cloudy" });
      const answer = await kit.run(kit.client(bb.fetch, base()), bb.tools({ get_weather: weather }), {
        task: TASK,
        reverse: true,
      });
      await bb.finish();
      expect(answer).toBe("Porto, then.");
      // Porto (the fork point) got the new value, Lisbon (its result before the fork point) the recorded one
      expect(runs).toBe(0);
      expect(fake.requests.length - before).toBe(continueWith === "live" ? 1 : 0);
      const child = await loadTrace(out);
      checkChild(child, 5);
      expect(child.steps.slice(6).map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
    },
  );

  test("live continuation against the provider", async () => {
    fake.enqueue(kit.reply({ text: "Porto, then." }));
    const before = fake.requests.length;
    const bb = blackbox({
      mode: "fork",
      cassette: path("parent"),
      out: path("live"),
      forkAt: 3,
      forkSet: STORM,
      continueWith: "live",
    });
    const weather = async ({ city }: { city: string }) => ({ city, forecast: "cloudy" });
    const answer = await kit.run(kit.client(bb.fetch, base()), bb.tools({ get_weather: weather }), { task: TASK });
    await bb.finish();
    expect(answer).toBe("Porto, then.");
    expect(fake.requests.length - before).toBe(1);
    // the live request carries Blackbox's replayed ids, which the provider accepts, and the storm
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("storm");
    checkChild(await loadTrace(path("live")), 3);
    // and the CLI, as a user types it, reports the divergence at exactly N
    const d = await runCli(["diff", path("parent"), path("live"), "--json"]);
    expect(d.code).toBe(1);
    expect(JSON.parse(d.stdout).divergence.index).toBe(3);
  });

  test("the prefix is compared with the recording in strict mode", async () => {
    const bb = blackbox({
      mode: "fork",
      cassette: path("parent"),
      out: path("x"),
      forkAt: 3,
      forkSet: STORM,
      continueWith: "script",
      script: [],
    });
    const err = await kit
      .run(kit.client(bb.fetch, base()), bb.tools({ get_weather: async () => 1 }), { task: "another task" })
      .catch((e) => e);
    expect(isBlackboxError(err)).toBe(true);
    await expect(bb.finish()).rejects.toThrow("Replay diverged at step 0 (model_input)");
  });

  test("an agent that edits the tool results it gets: the copied prefix and the fork point stay as recorded and as given", async () => {
    // the agent marks each result it reads (a common edit): it gets copies, never the cassette's own values
    const editing = (tools: Record<string, (i: any) => Promise<any>>) => ({
      get_weather: async (input: any) => {
        const r = await tools.get_weather!(input);
        r.checked = true;
        return r;
      },
    });
    const weather = async ({ city }: { city: string }) => ({ city, forecast: "sunny" });
    fake.enqueue(
      kit.reply({
        toolCalls: [
          { name: "get_weather", input: { city: "Lisbon" } },
          { name: "get_weather", input: { city: "Porto" } },
        ],
      }),
      kit.reply({ text: "Both sunny." }),
    );
    const rec = blackbox({ mode: "record", out: path("edits") });
    await kit.run(kit.client(rec.fetch, base()), editing(rec.tools({ get_weather: weather })), {
      task: TASK,
      sequential: true,
    });
    await rec.finish();
    const recorded = await loadTrace(path("edits"));
    expect(recorded.steps[3]!.type).toBe("tool_result");
    expect(recorded.steps[5]!.type).toBe("tool_result");

    const given = { city: "Porto", forecast: "storm" };
    const bb = blackbox({
      mode: "fork",
      cassette: path("edits"),
      out: path("edits-fork"),
      forkAt: 5,
      forkSet: given,
      script: [{ type: "final_answer", text: "Storm in Porto." }],
    });
    const answer = await kit.run(kit.client(bb.fetch, base()), editing(bb.tools({ get_weather: weather })), {
      task: TASK,
      sequential: true,
    });
    await bb.finish();
    expect(answer).toBe("Storm in Porto.");
    expect(given).toEqual({ city: "Porto", forecast: "storm" });
    const child = await loadTrace(path("edits-fork"));
    expect(verifyTrace(child)).toEqual({ ok: true, problems: [] });
    expect(child.steps[3]).toEqual({ ...recorded.steps[3], id: child.steps[3]!.id });
    expect((child.steps[5]!.payload as any).result).toEqual({ city: "Porto", forecast: "storm" });
    // and the same agent replays the recording
    {
      const rb = blackbox({ mode: "replay", cassette: path("edits") });
      await kit.run(kit.client(rb.fetch, base()), editing(rb.tools({ get_weather: weather })), {
        task: TASK,
        sequential: true,
      });
      await rb.finish();
    }
  });

  test("the fork point must be a tool_result", () => {
    const make = (forkAt: number) =>
      blackbox({ mode: "fork", cassette: path("parent"), out: path("y"), forkAt, forkSet: 1 });
    expect(() => make(1)).toThrow(ForkError);
    expect(() => make(1)).toThrow(
      "cannot fork a recorded agent at step 1: it is a model_output, and the fork point must be a tool_result (tool_result steps: 3, 5)",
    );
    expect(() => make(99)).toThrow(`cannot fork at step 99: the cassette has steps 0 to ${parent.steps.length - 1}`);
  });

  test("a fork whose out is the cassette it forks is refused before anything runs; the parent stays", async () => {
    const before = readFileSync(path("parent"), "utf8");
    const over = (out: string) => () =>
      blackbox({
        mode: "fork",
        cassette: path("parent"),
        out,
        forkAt: 3,
        forkSet: STORM,
        continueWith: "script",
        script: [],
      });
    const message = `the fork would write its cassette over the one it forks (${path("parent")}); give it another out file, e.g. ${path("parent").replace(/\.json$/, ".fork.json")}`;
    expect(over(path("parent"))).toThrow(message);
    expect(over(join(dir, ".", `${kit.name}-parent.json`))).toThrow(SessionError); // the same file by another spelling
    expect(readFileSync(path("parent"), "utf8")).toBe(before);
  });

  test("a script that runs out says what to add", async () => {
    const bb = blackbox({
      mode: "fork",
      cassette: path("parent"),
      out: path("z"),
      forkAt: 3,
      forkSet: STORM,
      continueWith: "script",
      script: [],
    });
    const err = await kit
      .run(kit.client(bb.fetch, base()), bb.tools({ get_weather: async () => 1 }), { task: TASK })
      .catch((e) => e);
    expect(String(err.message)).toContain("[blackbox] the fork script ran out");
  });
});

test("fork --live of a thinking-enabled run is refused", async () => {
  const kit = kits[0]!;
  fake.enqueue(
    kit.reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    kit.reply({ text: "ok" }),
  );
  const out = join(dir, "thinking.json");
  const thinking = { thinking: { type: "enabled", budget_tokens: 1024 }, max_tokens: 2048 };
  const bb = blackbox({ mode: "record", out });
  await kit.run(kit.client(bb.fetch, fake.anthropicUrl), bb.tools({ get_weather: async () => "sun" }), {
    task: TASK,
    extra: thinking,
  });
  await bb.finish();
  const fork = blackbox({
    mode: "fork",
    cassette: out,
    out: join(dir, "thinking-fork.json"),
    forkAt: 3,
    forkSet: "storm",
  });
  const before = fake.requests.length;
  const err = await kit
    .run(kit.client(fork.fetch, fake.anthropicUrl), fork.tools({ get_weather: async () => "x" }), {
      task: TASK,
      extra: thinking,
    })
    .catch((e) => e);
  expect(String(err.message)).toContain("[blackbox] fork --live of a thinking-enabled run is refused");
  expect(fake.requests.length).toBe(before);
});
