/**
 * One conformance suite, run against every provider with the real SDKs and the
 * fake provider on loopback: record, replay (in-process and offline in a child
 * process), what strict replay compares and what it does not, refusals, finish().
 */
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import {
  blackbox,
  BlackboxUnsupportedError,
  isBlackboxError,
  loadTrace,
  ReplayDivergenceError,
  verifyTrace,
  type Trace,
} from "../../src/index.js";
import { createSession } from "../../src/blackbox.js";
import { installInterception } from "../../src/interception/index.js";
import { publicSession } from "../../src/publicSession.js";
import type { Session, SessionOptions } from "../../src/session/types.js";
import { kits, type Kit } from "../helpers/agents.js";
import { BEDROCK_ACCESS_KEY, BEDROCK_APP, bedrockKit } from "../helpers/bedrockAgent.js";
import { runTs } from "../helpers/child.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { GEMINI_TEST_KEY, geminiKit } from "../helpers/geminiAgent.js";

const TASK = "Plan a weekend: Lisbon or Porto?";
const PROVIDER_IDS = /toolu_|msg_01|"call_|chatcmpl-|resp_|tooluse_/;

/**
 * The two doors a model call comes in by, both in this process: `bb.fetch` given to the SDK, and
 * the register hook's interception (the global dispatcher door and its fetch guard) with the
 * SDK on its own fetch, as under `--import @ardaulas/blackbox/register`.
 */
interface Door {
  name: string;
  open(options: SessionOptions): Promise<Session>;
  /** The fetch the agent gives its SDK client: undefined for the hook, whose SDK keeps its own. */
  fetch(bb: Session): typeof fetch | undefined;
}
const opened: Session[] = [];
const doors: Door[] = [
  {
    name: "bb.fetch",
    open: async (options) => remember(blackbox(options)),
    fetch: (bb) => bb.fetch,
  },
  {
    name: "the hook's interception",
    open: async (options) => {
      // as ANTHROPIC_BASE_URL and OPENAI_BASE_URL would name the fake provider to the hook
      const engine = createSession({
        ...options,
        providers: {
          anthropic: [fake.anthropicUrl],
          openai: [fake.openaiUrl],
          gemini: [fake.geminiUrl],
          bedrock: [fake.url],
        },
      });
      // the AWS SDK's request handler is switched in the copy its app installs
      engine.adopt(await installInterception(engine, [process.cwd(), BEDROCK_APP]));
      return remember(publicSession(engine));
    },
    fetch: () => undefined,
  },
];
function remember(bb: Session): Session {
  opened.push(bb);
  return bb;
}
// a session's doors stay until dispose(): the hook's are process-wide
afterEach(() => {
  for (const bb of opened.splice(0).reverse()) bb.dispose();
});

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "bbx-conf-"));
});
afterAll(() => fake.close());

const everyKit = [...kits, geminiKit, bedrockKit];
describe.each(
  doors.flatMap((door) => everyKit.map((kit) => ({ door, kit, name: `${kit.name} through ${door.name}` }))),
)("$name", ({ door, kit }: { door: Door; kit: Kit }) => {
  const base = () =>
    kit.name === "anthropic"
      ? fake.anthropicUrl
      : kit.name === "gemini"
        ? fake.geminiUrl
        : kit.name === "bedrock"
          ? fake.url
          : fake.openaiUrl;
  let toolRuns = 0;
  const weather = async ({ city }: { city: string }) => {
    toolRuns++;
    if (city === "Atlantis") throw new Error("no such city: Atlantis");
    return { city, forecast: city === "Lisbon" ? "sunny" : "rain" };
  };
  const script = () => [
    kit.reply({
      text: "Let me check both.",
      toolCalls: [
        { name: "get_weather", input: { city: "Lisbon" } },
        { name: "get_weather", input: { city: "Porto" } },
      ],
    }),
    kit.reply({ toolCalls: [{ name: "get_weather", input: { city: "Atlantis" } }] }),
    kit.reply({ text: "Go to Lisbon: it will be sunny." }),
  ];
  const path = (name: string) => join(dir, `${kit.name}-${name}.json`);

  async function record(name: string, replies = script(), extra?: Record<string, unknown>) {
    fake.enqueue(...replies);
    const before = fake.requests.length;
    const bb = await door.open({ mode: "record", out: path(name) });
    const answer = await kit.run(kit.client(door.fetch(bb), base()), bb.tools({ get_weather: weather }), {
      task: TASK,
      extra,
    });
    await bb.finish();
    return { answer, sent: fake.requests.slice(before), trace: await loadTrace(path(name)) };
  }

  async function replay(
    name: string,
    o: {
      task?: string;
      extra?: Record<string, unknown>;
      system?: string;
      toolDescription?: string;
      match?: "strict" | "sequence";
    } = {},
  ) {
    const bb = await door.open({ mode: "replay", cassette: path(name), match: o.match });
    const before = fake.requests.length;
    let answer: string | undefined;
    let agentError: unknown;
    try {
      answer = await kit.run(kit.client(door.fetch(bb), base()), bb.tools({ get_weather: weather }), {
        task: o.task ?? TASK,
        extra: o.extra,
        system: o.system,
        toolDescription: o.toolDescription,
      });
    } catch (err) {
      agentError = err;
    }
    let finishError: unknown;
    await bb.finish().catch((err) => (finishError = err));
    expect(fake.requests.length, "replay must send nothing").toBe(before);
    return { answer, agentError, finishError };
  }

  let recorded: { answer: string; trace: Trace };
  test("records parallel tool calls, a tool error and the answer into a verified, provider-neutral cassette", async () => {
    toolRuns = 0;
    recorded = await record("base");
    expect(recorded.answer).toBe("Go to Lisbon: it will be sunny.");
    expect(toolRuns).toBe(3);
    const t = recorded.trace;
    expect(t.steps.map((s) => s.type)).toEqual([
      "model_input",
      "model_output",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "model_input",
      "model_output",
      "tool_call",
      "tool_result",
      "model_input",
      "model_output",
      "metadata",
    ]);
    expect(t.steps[1]!.payload).toEqual({
      type: "tool_calls",
      text: "Let me check both.",
      calls: [
        { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
        { toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Porto" } },
      ],
    });
    expect(t.steps[9]!.payload).toEqual({
      toolCallId: "call-2",
      toolName: "get_weather",
      error: "no such city: Atlantis",
    });
    expect(t.steps[12]!.payload).toEqual({
      event: "run_completed",
      status: "success",
      result: "Go to Lisbon: it will be sunny.",
    });
    // the next request carries the tool round as structured parts with the same ids
    const input = t.steps[6]!.payload as any;
    expect(input.messages[1].content.map((p: any) => [p.type, p.toolCallId ?? null])).toEqual([
      ["text", null],
      ["tool_use", "call-0"],
      ["tool_use", "call-1"],
    ]);
    expect(input.messages[2].content.map((p: any) => [p.type, p.toolCallId])).toEqual([
      ["tool_result", "call-0"],
      ["tool_result", "call-1"],
    ]);
    expect(input.systemPrompt).toBe("You are a travel agent.");
    expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
    const text = readFileSync(path("base"), "utf8");
    expect(text).not.toMatch(PROVIDER_IDS);
    expect(text).not.toMatch(/sk-ant-test|sk-proj-test|AIza|usage|input_tokens|finish_reason|stop_reason|responseId/i);
  });

  test("replays in-process with the same answer, without running any tool or sending anything", async () => {
    toolRuns = 0;
    const r = await replay("base");
    expect(r.agentError).toBeUndefined();
    expect(r.finishError).toBeUndefined();
    expect(r.answer).toBe(recorded.answer);
    expect(toolRuns).toBe(0);
  });

  // the child starts a session of its own, through bb.fetch: once per provider
  // (Bedrock's offline replay in a child: test/integration/zero-code-bedrock.test.ts)
  if (door === doors[0] && kit.name !== "bedrock")
    test("replays in a child process with no network at all (unshare -n)", async () => {
      const spec = { kit: kit.name, session: { mode: "replay", cassette: path("base") }, task: TASK };
      const r = await runTs("test/helpers/sessionChild.ts", [JSON.stringify(spec)], { offline: true });
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout)).toEqual({ answer: recorded.answer, toolRuns: 0 });
      expect(r.code).toBe(0);
    });

  test.each([
    ["the task (a message's text)", { task: "Plan a weekend: Faro?" }, "messages[0].content"],
    ["the system prompt", { system: "You are a pirate." }, "systemPrompt"],
    ["the model", { extra: { model: "other-model" } }, "model"],
    ["temperature", { extra: { temperature: 0.3 } }, "params.temperature"],
    ["a tool's description", { toolDescription: "Weather, in Celsius" }, "tools[0].description"],
  ])("strict replay fails when %s changes, naming the path", async (_what, change, where) => {
    const r = await replay("base", change);
    expect(isBlackboxError(r.agentError)).toBe(true);
    expect(String((r.agentError as Error).message)).toContain("[blackbox] Replay diverged at step 0 (model_input)");
    expect(r.finishError).toBeInstanceOf(ReplayDivergenceError);
    const e = r.finishError as ReplayDivergenceError;
    expect(e.stepIndex).toBe(0);
    expect(e.path).toContain(where);
    expect(e.message).toContain(`at ${e.path}`);
    expect(e.message).toContain("recorded:");
  });

  test("strict replay fails at the step whose tool result the agent changed (an unwrapped tool)", async () => {
    const bb = await door.open({ mode: "replay", cassette: path("base") });
    const unwrapped = async ({ city }: { city: string }) => ({ city, forecast: "snow" });
    // wrapped calls are served from the cassette; here the agent bypasses the wrapper
    const err = await kit
      .run(kit.client(door.fetch(bb), base()), { get_weather: unwrapped }, { task: TASK })
      .catch((e) => e);
    expect(isBlackboxError(err)).toBe(true);
    const f = await bb.finish().catch((e) => e);
    expect(f).toBeInstanceOf(ReplayDivergenceError);
    // the recording ran wrapped tools here: the agent did not call them
    expect(f.message).toContain('the recording ran the wrapped tool "get_weather" here');
  });

  test.each([["metadata, user and store", kitFields(kit)]])(
    "strict replay ignores fields it does not compare (%s)",
    async (_what, extra) => {
      const r = await replay("base", { extra });
      expect(r.agentError).toBeUndefined();
      expect(r.finishError).toBeUndefined();
      expect(r.answer).toBe(recorded.answer);
    },
  );

  test("sequence mode serves the recording in order without comparing", async () => {
    const r = await replay("base", { task: "something else entirely", match: "sequence" });
    expect(r.agentError).toBeUndefined();
    expect(r.answer).toBe(recorded.answer);
    // the outcome still matches: the recorded last reply
    expect(r.finishError).toBeUndefined();
  });

  test("a refused call reaches the agent as the SDK's own 400, not retried, and finish() rethrows the typed error", async () => {
    const bb = await door.open({ mode: "replay", cassette: path("base") });
    let fetches = 0;
    const through = door.fetch(bb) ?? globalThis.fetch;
    const counting: typeof fetch = (i, init) => (fetches++, through(i, init));
    const err = await kit
      .run(kit.client(counting, base()), bb.tools({ get_weather: weather }), { task: "different" })
      .catch((e) => e);
    expect(err.status ?? err.$metadata?.httpStatusCode).toBe(400); // the AWS SDK's status is in $metadata
    expect(kit.errorText?.(err) ?? err.message).toMatch(
      kit.name === "bedrock" ? /^\[blackbox\] Replay diverged/ : /^400 \[blackbox\] Replay diverged/,
    );
    expect(isBlackboxError(err)).toBe(true);
    expect(fetches).toBe(1);
    await expect(bb.finish()).rejects.toBeInstanceOf(ReplayDivergenceError);
  });

  test("a divergence under sequence mode does not suggest sequence mode; under strict it does", async () => {
    for (const match of ["sequence", "strict"] as const) {
      const bb = await door.open({ mode: "replay", cassette: path("base"), match });
      await kit
        .run(kit.client(door.fetch(bb), base()), bb.tools({ get_weather: weather }), { task: TASK, maxTurns: 1 })
        .catch(() => undefined);
      const e = await bb.finish().catch((x) => x);
      expect(e).toBeInstanceOf(ReplayDivergenceError);
      expect(e.message).toContain("If the change is intended, re-record the run (blackbox record -- <command>)");
      if (match === "sequence") expect(e.message).not.toContain("--match sequence");
      else expect(e.message).toContain("or replay with --match sequence");
    }
  });

  test("replay checks that every recorded model call was made", async () => {
    const bb = await door.open({ mode: "replay", cassette: path("base") });
    const c = kit.client(door.fetch(bb), base());
    // one model call and its tool round, then the agent stops
    await kit.run(c, bb.tools({ get_weather: weather }), { task: TASK, maxTurns: 1 }).catch(() => undefined);
    const e = await bb.finish().catch((x) => x);
    expect(e).toBeInstanceOf(ReplayDivergenceError);
    expect(e.message).toContain(
      "Replay diverged at step 6 (model_input): the agent finished after 1 model call(s), but the recording made 3",
    );
  });

  test("replay compares the outcome passed to finish()", async () => {
    const bb = await door.open({ mode: "replay", cassette: path("base") });
    await kit.run(kit.client(door.fetch(bb), base()), bb.tools({ get_weather: weather }), { task: TASK });
    const e = await bb.finish({ result: "Porto" }).catch((x) => x);
    expect(e).toBeInstanceOf(ReplayDivergenceError);
    expect(e.message).toContain("the run ended differently from the recording");
    expect(e.message).toContain('"Porto"');
  });

  test("a replayed wrapped tool throws the recorded error without running", async () => {
    toolRuns = 0;
    const bb = await door.open({ mode: "replay", cassette: path("base") });
    await kit.run(kit.client(door.fetch(bb), base()), bb.tools({ get_weather: weather }), { task: TASK });
    await bb.finish();
    expect(toolRuns).toBe(0);
  });

  test("a length stop is recorded and replayed", async () => {
    const r = await record("length", [kit.reply({ text: "Lisbon is", stop: kit.lengthStop })]);
    const out = r.trace.steps[1]!.payload as any;
    expect(out).toEqual({ type: "final_answer", text: "Lisbon is", stop: "length" });
    const bb = await door.open({ mode: "replay", cassette: path("length") });
    const c = kit.client(door.fetch(bb), base());
    if (kit.name === "anthropic") {
      const m = await c.messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 1024,
        system: "You are a travel agent.",
        tools: [
          {
            name: "get_weather",
            description: "The get_weather tool",
            input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        ],
        messages: [{ role: "user", content: TASK }],
      });
      expect(m.stop_reason).toBe("max_tokens");
    } else {
      expect(await kit.run(c, { get_weather: weather }, { task: TASK })).toBe("Lisbon is [cut]");
    }
    await bb.finish();
  });

  test("refuses what a replay could not give back, before anything is sent", async () => {
    const bb = await door.open({ mode: "record", out: path("refused") });
    const before = fake.requests.length;
    const c = kit.client(door.fetch(bb), base());
    const image =
      kit.name === "bedrock"
        ? c.send(
            new (
              await import(join(BEDROCK_APP, "node_modules/@aws-sdk/client-bedrock-runtime/dist-cjs/index.js"))
            ).ConverseCommand({
              modelId: "m",
              messages: [
                { role: "user", content: [{ image: { format: "png", source: { bytes: new Uint8Array([137, 80]) } } }] },
              ],
            }),
          )
        : kit.name === "gemini"
          ? c.models.generateContent({
              model: "gemini-2.5-flash",
              contents: [{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] }],
            })
          : kit.name === "anthropic"
            ? c.messages.create({
                model: "m",
                max_tokens: 10,
                messages: [
                  {
                    role: "user",
                    content: [
                      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
                    ],
                  },
                ],
              })
            : c.chat.completions.create({
                model: "m",
                messages: [
                  { role: "user", content: [{ type: "image_url", image_url: { url: "https://x.invalid/a.png" } }] },
                ],
              });
    const err = await image.catch((e: unknown) => e);
    expect(isBlackboxError(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/\[blackbox\].*image/i);
    expect(fake.requests.length).toBe(before);
    await expect(bb.finish()).rejects.toBeInstanceOf(BlackboxUnsupportedError);
    expect(existsSync(path("refused"))).toBe(false);
  });

  test("a key the session used in a tool result is redacted by the default rules; with them off, the write is refused saying where", async () => {
    const key =
      kit.name === "bedrock"
        ? BEDROCK_ACCESS_KEY // the access key id the request's SigV4 Authorization header carries
        : kit.name === "anthropic"
          ? "sk-ant-test-key-000000000000"
          : kit.name === "gemini"
            ? GEMINI_TEST_KEY
            : "sk-proj-test-key-000000000000";
    const leaky = async () => ({ debug: `using ${key}` });
    const run = async (out: string, redact?: { defaults: boolean }) => {
      fake.enqueue(
        kit.reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
        kit.reply({ text: "done" }),
      );
      const bb = await door.open({ mode: "record", out: path(out), redact });
      await kit.run(kit.client(door.fetch(bb), base()), bb.tools({ get_weather: leaky }), { task: TASK });
      return bb.finish().catch((x) => x);
    };
    expect(await run("leak-redacted")).toBeUndefined();
    const kind =
      kit.name === "bedrock"
        ? "AWS_KEY"
        : kit.name === "anthropic"
          ? "ANTHROPIC_KEY"
          : kit.name === "gemini"
            ? "GOOGLE_KEY"
            : "OPENAI_KEY";
    expect(readFileSync(path("leak-redacted"), "utf8")).not.toContain(key);
    expect((await loadTrace(path("leak-redacted"))).steps[3]!.payload).toMatchObject({
      result: { debug: `using <${kind}_1>` },
    });
    const e = await run("leak", { defaults: false });
    expect(e.message).toContain("refusing to write");
    expect(e.message).toContain("API key");
    expect(e.message).toContain("steps[3].payload.result.debug");
    expect(existsSync(path("leak"))).toBe(false);
  });

  test("redacts what the rules name in the prompt, tool inputs and results, streamed and not; a replay compares through the same rules", async () => {
    const email = "ann.customer@example.com";
    const cc = "bob.partner@example.org";
    const aws = ["AKIA", "EXAMPLE7EXAMPLE7"].join("");
    const redact = { detect: ["email" as const], paths: [{ path: "result.account", tool: "get_weather" }] };
    const task = `Plan a weekend for ${email}, cc ${cc}: Lisbon or Porto?`;
    const tool = async ({ city }: { city: string }) => ({
      city,
      forecast: "sunny",
      account: `acct-${city}`,
      note: aws,
    });
    for (const stream of [false, true]) {
      const name = `redacted-${stream ? "stream" : "plain"}`;
      const reply = stream ? kit.streamReply : kit.reply;
      fake.enqueue(
        reply({
          text: `Checking for ${email}.`,
          toolCalls: [{ name: "get_weather", input: { city: "Lisbon", to: email } }],
        }),
        reply({ text: "Lisbon: sunny." }),
      );
      const bb = await door.open({ mode: "record", out: path(name), redact });
      await kit.run(kit.client(door.fetch(bb), base()), bb.tools({ get_weather: tool }), { task, stream });
      await bb.finish();
      const text = readFileSync(path(name), "utf8");
      for (const raw of [email, cc, aws, "acct-Lisbon"]) expect(text).not.toContain(raw);
      const t = await loadTrace(path(name));
      expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
      expect(JSON.stringify(t.steps[0]!.payload)).toContain("Plan a weekend for <EMAIL_1>, cc <EMAIL_2>");
      expect(t.steps[1]!.payload).toMatchObject({ calls: [{ toolInput: { city: "Lisbon", to: "<EMAIL_1>" } }] });
      expect(t.steps[3]!.payload).toMatchObject({ result: { account: "<ACCOUNT_1>", note: "<AWS_KEY_1>" } });

      // the agent sends the real values again: they equal the recorded placeholders
      const rb = await door.open({ mode: "replay", cassette: path(name), redact });
      const answer = await kit.run(kit.client(door.fetch(rb), base()), rb.tools({ get_weather: tool }), {
        task,
        stream,
      });
      expect(answer).toBe("Lisbon: sunny.");
      await rb.finish();
      // one value where the recording had another is a change
      const changed = await door.open({ mode: "replay", cassette: path(name), redact });
      const other = task.replace(cc, email);
      await kit
        .run(kit.client(door.fetch(changed), base()), changed.tools({ get_weather: tool }), { task: other, stream })
        .catch(() => undefined);
      const e = await changed.finish().catch((x) => x);
      expect(e).toBeInstanceOf(ReplayDivergenceError);
      expect(e.message).toContain("<EMAIL_2>");
    }
  });
});

function kitFields(kit: Kit): Record<string, unknown> {
  if (kit.name === "gemini") return { labels: { team: "travel" }, serviceTier: "standard" };
  if (kit.name === "bedrock") return { requestMetadata: { user: "u-1" } };
  return kit.name === "anthropic"
    ? { metadata: { user_id: "u-1" }, service_tier: "auto" }
    : { user: "u-1", store: true, metadata: { a: "b" }, service_tier: "default" };
}

describe("beyond messages.create and chat.completions.create", () => {
  test("other SDK calls pass through unrecorded when recording, and are refused in replay", async () => {
    const out = join(dir, "other.json");
    fake.enqueue({ json: { object: "list", data: [{ id: "gpt-4.1", object: "model", created: 0, owned_by: "x" }] } });
    const bb = blackbox({ mode: "record", out });
    const client = kits[1]!.client(bb.fetch, fake.openaiUrl);
    const models = await client.models.list();
    expect(models.data[0].id).toBe("gpt-4.1");
    fake.enqueue(kits[1]!.reply({ text: "hello" }));
    await client.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] });
    await bb.finish();
    const t = await loadTrace(out);
    expect(t.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);

    const rb = blackbox({ mode: "replay", cassette: out });
    const rc = kits[1]!.client(rb.fetch, fake.openaiUrl);
    const before = fake.requests.length;
    const err = await rc.models.list().catch((e: unknown) => e);
    expect(isBlackboxError(err)).toBe(true);
    expect((err as Error).message).toContain(
      "[blackbox] GET /v1/models is not recorded (only messages.create, chat.completions.create, responses.create and Gemini generateContent are), so replay cannot answer it",
    );
    expect(fake.requests.length).toBe(before);
  });

  test("an OpenAI refusal is recorded and replayed as a refusal", async () => {
    const out = join(dir, "refusal.json");
    fake.enqueue({
      json: (await import("../helpers/fakeProvider.js")).openaiCompletion({ refusal: "I can't help with that." }),
    });
    const bb = blackbox({ mode: "record", out });
    const kit = kits[1]!;
    expect(await kit.run(kit.client(bb.fetch, fake.openaiUrl), {}, { task: "something bad" })).toBe(
      "REFUSED: I can't help with that.",
    );
    await bb.finish();
    const t = await loadTrace(out);
    expect(t.steps[1]!.payload).toEqual({ type: "final_answer", text: "I can't help with that.", stop: "refusal" });
    const rb = blackbox({ mode: "replay", cassette: out });
    expect(await kit.run(kit.client(rb.fetch, fake.openaiUrl), {}, { task: "something bad" })).toBe(
      "REFUSED: I can't help with that.",
    );
    await rb.finish();
  });

  test("a Responses API call with a built-in tool is refused by name before anything is sent", async () => {
    const bb = blackbox({ mode: "record", out: join(dir, "responses.json") });
    const client = kits[1]!.client(bb.fetch, fake.openaiUrl);
    const before = fake.requests.length;
    const err = await client.responses
      .create({ model: "gpt-4.1", input: "hi", tools: [{ type: "web_search" }] })
      .catch((e: unknown) => e);
    expect(isBlackboxError(err)).toBe(true);
    expect((err as Error).message).toContain(
      '[blackbox] OpenAI responses.create: tools[0] is the built-in web search tool (type "web_search"), which runs on OpenAI\'s side',
    );
    expect(fake.requests.length).toBe(before);
  });
});

test("two providers behind one origin: the longest base URL decides", async () => {
  const session = createSession({
    mode: "record",
    out: join(dir, "shared-origin.json"),
    providers: { anthropic: [fake.url], openai: [`${fake.url}/v1`] },
  });
  expect(session.route(`${fake.url}/v1/messages`)).toBe("anthropic");
  expect(session.route(`${fake.url}/v1/chat/completions`)).toBe("openai");
  expect(session.route("http://127.0.0.1:1/elsewhere")).toBeUndefined();
  session.dispose();
});
