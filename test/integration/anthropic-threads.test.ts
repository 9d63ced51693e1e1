/**
 * Anthropic message threads: the SDK's tool runner sends each turn after the first as
 * `thread: {type: "continue", previous_message_id}` with only its new messages and no
 * system prompt or tools (the server holds the conversation). Blackbox records each
 * call's whole conversation: a threaded run gives the cassette the same run gives
 * unthreaded, replays offline (both doors), diverges on what the thread's history
 * holds, and a live fork hands the provider the fork's conversation as a new thread.
 */
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { blackbox, loadTrace, verifyTrace, type Trace } from "../../src/index.js";
import { ROOT, runTs } from "../helpers/child.js";
import { anthropicMessage, anthropicSSE, useFakeProvider, type FakeReply } from "../helpers/fakeProvider.js";
import { REGISTER } from "./zeroCodeHelpers.js";

const fx = useFakeProvider("bb-threads-");
const CHILD = "test/helpers/threadsChild.ts";
const path = (name: string) => join(fx.dir, `${name}.json`);

interface Outcome {
  answer?: string;
  toolRuns: number;
  error?: string;
}

/** The tool runner in a child: through bb.fetch with `session`, else under the register hook with `hookEnv`. */
async function child(
  spec: Record<string, unknown>,
  o: { offline?: boolean; hookEnv?: Record<string, string> } = {},
): Promise<Outcome> {
  const env = o.hookEnv
    ? { ...o.hookEnv, NODE_OPTIONS: `--import ${REGISTER}`, ANTHROPIC_BASE_URL: fx.fake.anthropicUrl }
    : {};
  const r = await runTs(CHILD, [JSON.stringify({ baseURL: fx.fake.anthropicUrl, ...spec })], {
    offline: o.offline,
    env,
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Outcome;
}

/** Two tool rounds (Lisbon, then Porto), then the answer; streamed when `sse`. */
function tripReplies(sse = false): FakeReply[] {
  const reply = (c: Parameters<typeof anthropicMessage>[0]): FakeReply =>
    sse ? { sse: anthropicSSE(c) } : { json: anthropicMessage(c) };
  return [
    reply({ text: "Checking Lisbon.", toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    reply({ text: "Now Porto.", toolCalls: [{ name: "get_weather", input: { city: "Porto" } }] }),
    reply({ text: "Lisbon: sunny. Go there." }),
  ];
}

const session = (mode: "record" | "replay", file: string) =>
  mode === "record"
    ? { mode, out: file, providers: { anthropic: [fx.fake.url] } }
    : { mode, cassette: file, providers: { anthropic: [fx.fake.url] } };
const modelSteps = (t: Trace) =>
  t.steps.filter((s) => s.type === "model_input" || s.type === "model_output").map((s) => s.payload);
const sentSince = (n: number) => fx.fake.requests.slice(n).map((r) => r.body as Record<string, any>);

/** Record the trip with the tool runner as `spec` says; the requests the provider got, and the cassette. */
async function recordTrip(name: string, spec: Record<string, unknown> = {}) {
  const before = fx.fake.requests.length;
  fx.fake.enqueue(...tripReplies(spec.stream === true));
  const live = await child({ session: session("record", path(name)), ...spec });
  expect(live).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 2 });
  expect(fx.fake.pending).toBe(0);
  const trace = await loadTrace(path(name));
  expect(verifyTrace(trace).ok).toBe(true);
  return { sent: sentSince(before), trace };
}

describe("the tool runner's message threads", () => {
  let threaded: Trace;

  test("record: each turn's whole conversation is recorded, though the wire carried only its new messages", async () => {
    const { sent, trace } = await recordTrip("threaded");
    threaded = trace;
    // the premise: the SDK threaded the run (a turn without history, system or tools)
    expect(sent.map((b) => b.thread?.type)).toEqual(["create", "continue", "continue"]);
    expect(sent[1]!.system).toBeUndefined();
    expect(sent[1]!.tools).toBeUndefined();
    expect(sent[1]!.messages).toHaveLength(1);
    const inputs = trace.steps.filter((s) => s.type === "model_input").map((s) => s.payload as any);
    expect(inputs).toHaveLength(3);
    for (const input of inputs) {
      expect(input.systemPrompt).toBe("You plan weekend trips. Be brief.");
      expect(input.tools.map((t: { name: string }) => t.name)).toEqual(["get_weather"]);
    }
    expect(inputs.map((i) => i.messages.length)).toEqual([1, 3, 5]);
    expect(inputs[2].messages[3]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Now Porto." },
        { type: "tool_use", toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Porto" } },
      ],
    });
    expect(inputs[2].messages[4].content[0]).toMatchObject({
      type: "tool_result",
      toolCallId: "call-1",
      result: JSON.stringify({ city: "Porto", forecast: "rain" }),
    });
  });

  test("the same run unthreaded (thread: false) records the same model steps, and each cassette replays the other offline", async () => {
    const { sent, trace } = await recordTrip("unthreaded", { thread: false });
    expect(sent.map((b) => b.thread)).toEqual([undefined, undefined, undefined]);
    expect(modelSteps(trace)).toEqual(modelSteps(threaded));
    const before = fx.fake.requests.length;
    for (const [file, spec] of [
      ["threaded", {}],
      ["threaded", { thread: false }],
      ["unthreaded", {}],
    ] as const) {
      const replayed = await child({ session: session("replay", path(file)), ...spec }, { offline: true });
      expect(replayed, `${file} replayed with ${JSON.stringify(spec)}`).toEqual({
        answer: "Lisbon: sunny. Go there.",
        toolRuns: 0,
      });
    }
    expect(fx.fake.requests.length).toBe(before);
  });

  test("streamed, under the register hook (the dispatcher door): recorded and replayed offline", async () => {
    const file = path("hook-stream");
    const before = fx.fake.requests.length;
    fx.fake.enqueue(...tripReplies(true));
    const live = await child(
      { stream: true },
      { hookEnv: { BLACKBOX_MODE: "record", BLACKBOX_OUT: file, ANTHROPIC_API_KEY: "sk-ant-threads-0000" } },
    );
    expect(live).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 2 });
    expect(sentSince(before).map((b) => [b.thread?.type, b.stream])).toEqual([
      ["create", true],
      ["continue", true],
      ["continue", true],
    ]);
    const trace = await loadTrace(file);
    // the hook records the runner's tool where the runner runs it (src/tools/frameworks/anthropic.ts), with no
    // config: the model steps are the bb.fetch run's, and the tool steps stand where its wrapped tool's do (the
    // result is what run returned, its JSON text, where bb.tool() recorded the function's object)
    const kinds = (t: typeof trace) => t.steps.map((s) => [s.type, (s.payload as { toolName?: string }).toolName]);
    expect(kinds(trace)).toEqual(kinds(threaded));
    expect(trace.steps.filter((s) => s.type === "model_input").map((s) => s.payload)).toEqual(
      threaded.steps.filter((s) => s.type === "model_input").map((s) => s.payload),
    );
    const replayed = await child(
      { stream: true },
      { offline: true, hookEnv: { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: file } },
    );
    expect(replayed).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 0 });
    expect(fx.fake.requests.length).toBe(before + 3);
  });

  test("under the hook the runner's tool is answered from the cassette: a tool that would now return another result is not run", async () => {
    const file = path("hook-plain");
    fx.fake.enqueue(...tripReplies());
    await child(
      {},
      { hookEnv: { BLACKBOX_MODE: "record", BLACKBOX_OUT: file, ANTHROPIC_API_KEY: "sk-ant-threads-0000" } },
    );
    const replayed = await child(
      { weather: { Porto: { city: "Porto", forecast: "snow" } } },
      { offline: true, hookEnv: { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: file } },
    );
    expect(replayed).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 0 });
  });
});

describe("the SDK's failover: a lost thread is sent again whole", () => {
  test("recorded through a thread_not_found (the SDK resends the history as a new thread), replayed offline", async () => {
    const file = path("failover");
    const [first, second, third] = tripReplies();
    const lost: FakeReply = {
      status: 404,
      json: {
        type: "error",
        error: { type: "not_found_error", message: "thread not found", details: { error_code: "thread_not_found" } },
      },
    };
    const before = fx.fake.requests.length;
    fx.fake.enqueue(first!, lost, second!, third!);
    const live = await child({ session: session("record", file) });
    expect(live).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 2 });
    const sent = sentSince(before);
    expect(sent.map((b) => [b.thread?.type, b.messages.length])).toEqual([
      ["create", 1],
      ["continue", 1],
      ["create", 3],
      ["continue", 1],
    ]);
    const trace = await loadTrace(file);
    // the refused turn is not a step: the cassette is the run without the loss
    expect(modelSteps(trace)).toEqual(modelSteps(await loadTrace(path("threaded"))));
    const replayed = await child({ session: session("replay", file) }, { offline: true });
    expect(replayed).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 0 });
  });
});

describe("a wrapped tool given to the runner as its run", () => {
  // The runner calls run(input, { toolUse, toolUseBlock, signal }): the context holds the
  // provider's tool_use id, so recorded with the input it put a provider id in the cassette
  // and every replay diverged on it (bbx_call-0 is not toolu_01...).
  const toolInputs = (t: Trace) =>
    t.steps.filter((s) => s.type === "tool_call").map((s) => (s.payload as { toolInput: unknown }).toolInput);

  test("bb.tool() as run, streamed and run eagerly: recorded with its input alone, replayed offline", async () => {
    const spec = { direct: true, stream: true, runToolsEagerly: true };
    const { trace } = await recordTrip("direct", spec);
    expect(toolInputs(trace)).toEqual([{ city: "Lisbon" }, { city: "Porto" }]);
    expect(readFileSync(path("direct"), "utf8")).not.toContain("toolu_");
    // the model steps are the threaded run's, whose tool is called with its input
    expect(modelSteps(trace)).toEqual(modelSteps(await loadTrace(path("threaded"))));
    const replayed = await child({ session: session("replay", path("direct")), ...spec }, { offline: true });
    expect(replayed).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 0 });
  });

  test("zero code: the config names the function given as run (the register hook wraps it)", async () => {
    const file = path("direct-hook");
    const config = join(fx.dir, "threads.config.mjs");
    writeFileSync(
      config,
      `export default { tools: [{ module: ${JSON.stringify(join(ROOT, "test/helpers/threadsTools.ts"))}, exports: ["get_weather"] }] };\n`,
    );
    fx.fake.enqueue(...tripReplies());
    const live = await child(
      { direct: true },
      {
        hookEnv: {
          BLACKBOX_MODE: "record",
          BLACKBOX_OUT: file,
          BLACKBOX_CONFIG: config,
          ANTHROPIC_API_KEY: "sk-ant-threads-0000",
        },
      },
    );
    expect(live).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 2 });
    const trace = await loadTrace(file);
    expect(toolInputs(trace)).toEqual([{ city: "Lisbon" }, { city: "Porto" }]);
    expect(readFileSync(file, "utf8")).not.toContain("toolu_");
    const replayed = await child(
      { direct: true },
      { offline: true, hookEnv: { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: file, BLACKBOX_CONFIG: config } },
    );
    expect(replayed).toEqual({ answer: "Lisbon: sunny. Go there.", toolRuns: 0 });
  });
});

describe("threads Blackbox cannot see the start of", () => {
  test.each(["record", "replay"] as const)(
    "%s refuses a turn continuing a reply this run never had, sending nothing",
    async (mode) => {
      const file = mode === "record" ? path("unknown-thread") : path("threaded");
      const bb = blackbox(session(mode, file));
      const before = fx.fake.requests.length;
      const res = await bb.fetch(`${fx.fake.anthropicUrl}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "sk-ant-threads-0000" },
        body: JSON.stringify({
          model: "claude-sonnet-4-6",
          max_tokens: 50,
          messages: [{ role: "user", content: "And tomorrow?" }],
          thread: { type: "continue", previous_message_id: "msg_01earlier" },
        }),
      });
      expect(res.status).toBe(400);
      const message = ((await res.json()) as { error: { message: string } }).error.message;
      expect(message).toContain(
        'continues message thread reply "msg_01earlier" (thread.previous_message_id), which no reply of this run started',
      );
      expect(message).toContain("pass thread: false to toolRunner()");
      expect(fx.fake.requests.length).toBe(before);
      await expect(bb.finish()).rejects.toThrow("msg_01earlier");
      if (mode === "record") await expect(loadTrace(file)).rejects.toThrow("does not exist");
    },
  );

  test("an unknown thread type is refused by name", async () => {
    const bb = blackbox(session("record", path("odd-thread")));
    const client = new Anthropic({
      apiKey: "sk-ant-threads-0000",
      baseURL: fx.fake.anthropicUrl,
      maxRetries: 0,
      fetch: bb.fetch,
    });
    const err = await client.messages
      .create({
        model: "claude-sonnet-4-6",
        max_tokens: 50,
        messages: [{ role: "user", content: "Hi" }],
        thread: { type: "branch" },
      } as never)
      .catch((e: unknown) => e);
    expect(String(err)).toContain('"thread" is {"type":"branch"}');
    await expect(bb.finish()).rejects.toThrow("thread");
  });
});

describe("tool runner features Blackbox cannot record: refused by name, before anything is sent", () => {
  /** The tool runner in process, recording; `during` gets it at each reply. The refusal the agent got, and finish()'s. */
  async function refusedRun(name: string, reply: FakeReply, during: (runner: any) => void) {
    const bb = blackbox(session("record", path(name)));
    const client = new Anthropic({
      apiKey: "sk-ant-threads-0000",
      baseURL: fx.fake.anthropicUrl,
      maxRetries: 0,
      fetch: bb.fetch,
    });
    const get_weather = bb.tool("get_weather", async ({ city }: { city: string }) =>
      JSON.stringify({ city, forecast: "sunny" }),
    );
    const tool = (n: string) =>
      betaTool({
        name: n,
        description: `The ${n} tool.`,
        inputSchema: { type: "object", properties: { city: { type: "string" } } },
        run: (input: unknown) => get_weather(input as { city: string }),
      });
    const runner = client.beta.messages.toolRunner({
      model: "claude-sonnet-4-6",
      max_tokens: 200,
      system: "You plan weekend trips.",
      messages: [{ role: "user", content: "Lisbon?" }],
      tools: [tool("get_weather")],
    });
    const before = fx.fake.requests.length;
    fx.fake.enqueue(reply);
    let error: unknown;
    try {
      for await (const _ of runner) during(Object.assign(runner, { tool }));
    } catch (err) {
      error = err;
    }
    expect(fx.fake.requests.length - before).toBe(1); // the first turn only
    expect(fx.fake.pending).toBe(0);
    const finished = await bb.finish().then(
      () => "finished",
      (e: unknown) => String(e),
    );
    return { error: String(error), finished };
  }

  test("addTools(): the tool_addition blocks come in a system message", async () => {
    const first = { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }) };
    const { error, finished } = await refusedRun("add-tools", first, (runner) =>
      runner.addTools(runner.tool("get_tides")),
    );
    const says =
      'messages[3] is a "system" message, which Blackbox does not support yet: a system prompt goes in "system", and the tool runner\'s addTools() and removeTools()';
    expect(error).toContain(says);
    expect(finished).toContain(says);
  });

  test("compactBeforeNextTurn(): the compaction request is not sent (its reply could not be given back)", async () => {
    const { error, finished } = await refusedRun(
      "compact",
      { json: anthropicMessage({ text: "Lisbon: sunny." }) },
      (runner) => runner.compactBeforeNextTurn(),
    );
    const says = '"compaction" asks for a summary of the conversation (the tool runner\'s compactBeforeNextTurn())';
    expect(error).toContain(says);
    expect(finished).toContain(says);
  });
});

describe("forking a threaded run", () => {
  const STORM = { city: "Lisbon", forecast: "storm" };

  test("live: the provider gets the fork's whole conversation as a new thread, then the thread goes on as the SDK sends it", async () => {
    const before = fx.fake.requests.length;
    const first = anthropicMessage({
      text: "Storm. Checking Porto.",
      toolCalls: [{ name: "get_weather", input: { city: "Porto" } }],
    });
    fx.fake.enqueue({ json: first }, { json: anthropicMessage({ text: "Porto then." }) });
    const forked = await child({
      session: {
        mode: "fork",
        cassette: path("threaded"),
        out: path("fork-live"),
        forkAt: 3,
        forkSet: STORM,
        continueWith: "live",
        providers: { anthropic: [fx.fake.url] },
      },
    });
    expect(forked).toEqual({ answer: "Porto then.", toolRuns: 1 });
    const sent = sentSince(before);
    expect(sent).toHaveLength(2);
    // the first live turn continued a replayed reply the provider never saw: sent whole, as a new thread
    expect(sent[0]!.thread).toEqual({ type: "create" });
    expect(sent[0]!.system).toBe("You plan weekend trips. Be brief.");
    expect(sent[0]!.tools.map((t: { name: string }) => t.name)).toEqual(["get_weather"]);
    expect(sent[0]!.messages).toHaveLength(3);
    expect(sent[0]!.messages[2].content[0].content).toBe(JSON.stringify(STORM));
    // the next continues the provider's own reply: as the SDK sent it
    expect(sent[1]!.thread).toEqual({ type: "continue", previous_message_id: first.id });
    expect(sent[1]!.system).toBeUndefined();
    expect(sent[1]!.messages).toHaveLength(1);
    const trace = await loadTrace(path("fork-live"));
    expect(verifyTrace(trace).ok).toBe(true);
    const inputs = trace.steps.filter((s) => s.type === "model_input").map((s) => s.payload as any);
    expect(inputs.map((i) => i.messages.length)).toEqual([1, 3, 5]);
    expect(inputs[2].systemPrompt).toBe("You plan weekend trips. Be brief.");
  });

  test("live: the new thread's history goes without its cache_control, as the SDK sends a history again", async () => {
    // each turn's breakpoints were for the request that first sent it; all of them in one request can be more than the API takes (4)
    const before = fx.fake.requests.length;
    fx.fake.enqueue({ json: anthropicMessage({ text: "Storm: stay home." }) });
    const forked = await child({
      cache: true,
      session: {
        mode: "fork",
        cassette: path("threaded"),
        out: path("fork-cache"),
        forkAt: 3,
        forkSet: STORM,
        continueWith: "live",
        providers: { anthropic: [fx.fake.url] },
      },
    });
    expect(forked).toEqual({ answer: "Storm: stay home.", toolRuns: 0 });
    const sent = sentSince(before);
    expect(sent.map((b) => b.thread)).toEqual([{ type: "create" }]);
    expect(sent[0]!.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Lisbon or Porto this weekend?" }],
    });
    expect(JSON.stringify(sent[0])).not.toContain("cache_control");
  });

  test("scripted, offline: the thread goes on from the scripted replies", async () => {
    const forked = await child(
      {
        session: {
          mode: "fork",
          cassette: path("threaded"),
          out: path("fork-script"),
          forkAt: 3,
          forkSet: STORM,
          continueWith: "script",
          script: [
            { type: "tool_calls", calls: [{ toolName: "get_weather", toolInput: { city: "Faro" } }] },
            { type: "final_answer", text: "Faro, then." },
          ],
        },
      },
      { offline: true },
    );
    expect(forked).toEqual({ answer: "Faro, then.", toolRuns: 1 });
    const trace = await loadTrace(path("fork-script"));
    const inputs = trace.steps.filter((s) => s.type === "model_input").map((s) => s.payload as any);
    expect(inputs.map((i) => i.messages.length)).toEqual([1, 3, 5]);
    expect(inputs[2].messages[4].content[0].result).toBe(JSON.stringify({ city: "Faro", forecast: "rain" }));
  });
});
