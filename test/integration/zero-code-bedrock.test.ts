/**
 * Amazon Bedrock's Converse API under the register hook, with no code change:
 * @aws-sdk/client-bedrock-runtime (its default request handler sends over node:http2, which
 * Blackbox switches to fetch for provider calls: src/interception/awsSdk.ts), installed in
 * test/fixtures/sdk-versions/bedrock. A tool loop recorded against the fake provider (Converse
 * JSON, and ConverseStream's AWS event-stream frames cut into 7-byte pieces), replayed under
 * unshare -n with no AWS credentials in the environment and the tool not run; a changed
 * prompt diverging with its path; a streamed replay of a plain recording; fork --live; the
 * secret scan of every cassette.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { bedrockConverse, bedrockConverseStream, type FakeProvider } from "../helpers/fakeProvider.js";
import { BIN, hookedNode, readCassette, SDK_APPS, toolNames, useZeroCodeFixture } from "./zeroCodeHelpers.js";
import { ROOT, runProcess } from "../helpers/child.js";

const APP = join(SDK_APPS, "bedrock");
const fx = useZeroCodeFixture("bedrock");

const ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE";
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const SESSION_TOKEN = "IQoJb3JpZ2luX2VjEBbbxTOKENexampleSessionTokenValue0123456789";

/** The AWS_* variables of the test runner's own environment, none of which a child may see. */
const NO_AWS = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith("AWS_"))
    .map((k) => [k, undefined]),
);

/** The SDK's own warning that its 2027 versions need Node 22, off (it is printed on Node 20). */
const QUIET = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" };
const recordEnv = (fake: FakeProvider, extra: Record<string, string | undefined> = {}) => ({
  ...NO_AWS,
  ...QUIET,
  AWS_REGION: "us-east-1",
  AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fake.url,
  AWS_ACCESS_KEY_ID: ACCESS_KEY,
  AWS_SECRET_ACCESS_KEY: SECRET,
  AWS_SESSION_TOKEN: SESSION_TOKEN,
  ...extra,
});
/** A replay's: the endpoint still named (as a user's shell has it), no credentials at all. */
const replayEnv = (fake: FakeProvider, extra: Record<string, string | undefined> = {}) => ({
  ...NO_AWS,
  ...QUIET,
  AWS_REGION: "us-east-1",
  AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fake.url,
  ...extra,
});

type Content = Parameters<typeof bedrockConverse>[0];
const reply = (streamed: boolean, c: Content) =>
  streamed ? { eventstream: bedrockConverseStream(c) } : { json: bedrockConverse(c) };
const STDOUT = "steps: 2, text: Sunny in Lisbon.\n";

function expectNoSecrets(file: string): void {
  const text = readFileSync(file, "utf8");
  expect(text).not.toContain(ACCESS_KEY);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(SESSION_TOKEN);
  expect(text).not.toMatch(/AKIA|ASIA|AWS4-HMAC-SHA256|Signature=|X-Amz-Security-Token|x-amz-security-token/i);
  expect(text).not.toMatch(/tooluse_|inputTokens|latencyMs|stopReason/);
}

async function recordLoop(name: string, streamed: boolean) {
  fx.fake.enqueue(
    reply(streamed, { toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    reply(streamed, { text: "Sunny in Lisbon." }),
  );
  const cassette = join(fx.dir, `${name}.json`);
  const log = join(fx.dir, `${name}.log`);
  const seen = fx.fake.requests.length;
  const r = await hookedNode(APP, ["agent.mjs", ...(streamed ? ["stream"] : [])], {
    ...recordEnv(fx.fake),
    TOOL_LOG: log,
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: cassette,
  });
  expect(r.stderr).toBe("");
  expect(r.stdout).toBe(STDOUT);
  expect(r.code).toBe(0);
  expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\n");
  const sent = fx.fake.requests.slice(seen);
  expect(sent.map((q) => q.path)).toEqual(
    Array(2).fill(
      `/model/${encodeURIComponent("anthropic.claude-3-5-haiku-20241022-v1:0")}/${streamed ? "converse-stream" : "converse"}`,
    ),
  );
  // signed as without Blackbox: the SDK's SigV4 headers reached the provider
  expect(String(sent[0]!.headers.authorization)).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/`));
  expect(sent[0]!.headers["x-amz-security-token"]).toBe(SESSION_TOKEN);
  rmSync(log);
  expectNoSecrets(cassette); // every cassette recorded here
  return { cassette, log, trace: readCassette(cassette) };
}

async function replay(name: string, cassette: string, args: string[], extra: Record<string, string | undefined> = {}) {
  const log = join(fx.dir, `${name}-replay.log`);
  const seen = fx.fake.requests.length;
  const r = await hookedNode(
    APP,
    ["agent.mjs", ...args],
    { ...replayEnv(fx.fake, extra), TOOL_LOG: log, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette },
    true,
  );
  expect(fx.fake.requests.length).toBe(seen);
  return { ...r, toolRan: existsSync(log) };
}

describe("@aws-sdk/client-bedrock-runtime, zero code", () => {
  it.each([
    ["Converse", false],
    ["ConverseStream", true],
  ] as const)(
    "%s: a tool loop recorded into a neutral cassette, replayed offline with no AWS credentials and the tool not run",
    async (label, streamed) => {
      const { cassette, trace } = await recordLoop(`loop-${label}`, streamed);
      expect(trace.steps.map((s) => s.type)).toEqual([
        "model_input",
        "model_output",
        "tool_call",
        "tool_result",
        "model_input",
        "model_output",
        "metadata",
      ]);
      expect(toolNames(trace)).toEqual(["get_weather"]);
      expect(trace.steps[0]!.payload).toEqual({
        messages: [{ role: "user", content: [{ type: "text", text: "What is the weather in Lisbon?" }] }],
        tools: [
          {
            name: "get_weather",
            description: "The weather forecast for a city.",
            inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        ],
        systemPrompt: "You are a travel agent.",
        model: "anthropic.claude-3-5-haiku-20241022-v1:0",
        params: { maxTokens: 512, temperature: 0.2 },
      });
      expect(trace.steps[1]!.payload).toEqual({
        type: "tool_calls",
        calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
      });
      const second = trace.steps[4]!.payload as { messages: Array<{ content: Array<Record<string, unknown>> }> };
      expect(second.messages[2]!.content[0]).toMatchObject({
        type: "tool_result",
        toolCallId: "call-0",
        toolName: "get_weather",
        result: { city: "Lisbon", forecast: "sunny" },
      });
      expectNoSecrets(cassette);

      const r = await replay(`loop-${label}`, cassette, streamed ? ["stream"] : []);
      expect(r.stderr).toMatch(/^$|^blackbox: /);
      expect(r.stdout).toBe(STDOUT);
      expect(r.code).toBe(0);
      expect(r.toolRan).toBe(false);
    },
  );

  it("a plain recording replays to a streamed agent (ConverseStream synthesized as event-stream frames)", async () => {
    const { cassette } = await recordLoop("plain-for-stream", false);
    const r = await replay("plain-for-stream", cassette, ["stream"]);
    expect(r.stdout).toBe(STDOUT);
    expect(r.code).toBe(0);
    expect(r.toolRan).toBe(false);
  });

  it("a changed prompt diverges, naming its path, and nothing is sent", async () => {
    const { cassette } = await recordLoop("diverge", false);
    const r = await replay("diverge", cassette, [], { TASK: "What is the weather in Porto?" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'Replay diverged at step 0 (model_input): the model request differs from the recording\n  at messages[0].content[0].text\n  recorded: "What is the weather in Lisbon?"\n  now:      "What is the weather in Porto?"\n',
    );
    expect(r.toolRan).toBe(false);
  });
});

describe("fork --live", () => {
  it("a Bedrock run forked at its tool result: the prefix replayed, the next call signed and sent with the new result", async () => {
    const { cassette, trace } = await recordLoop("fork-parent", false);
    const at = trace.steps.findIndex((s) => s.type === "tool_result");
    fx.fake.enqueue({ json: bedrockConverse({ text: "Snow in Lisbon." }) });
    const seen = fx.fake.requests.length;
    const out = join(fx.dir, "fork-child.json");
    const log = join(fx.dir, "fork.log");
    const set = JSON.stringify({ city: "Lisbon", forecast: "snow" });
    const r = await runProcess(
      process.execPath,
      [
        BIN,
        "fork",
        cassette,
        "--at",
        String(at),
        "--set",
        set,
        "--live",
        "-o",
        out,
        "--",
        process.execPath,
        "agent.mjs",
      ],
      { cwd: APP, env: { ...recordEnv(fx.fake), TOOL_LOG: log } },
    );
    expect(r.stderr).toMatch(/^blackbox: forked .* into .*fork-child\.json: .* ended: success\n$/);
    expect(r.stdout).toBe("steps: 2, text: Snow in Lisbon.\n");
    expect(r.code).toBe(0);
    expect(existsSync(log)).toBe(false); // the prefix's tool call was answered from the cassette
    const sent = fx.fake.requests.slice(seen);
    expect(sent).toHaveLength(1);
    expect(String(sent[0]!.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIA/);
    const body = sent[0]!.body as { messages: Array<{ content: Array<Record<string, any>> }> };
    expect(body.messages[2]!.content[0]!.toolResult.content).toEqual([{ json: { city: "Lisbon", forecast: "snow" } }]);
    const child = readCassette(out);
    expect(child.steps.at(-2)!.payload).toEqual({ type: "final_answer", text: "Snow in Lisbon." });
    expectNoSecrets(out);
  });
});

describe("what is refused, by name, before anything is sent", () => {
  it("guardrailConfig", async () => {
    const seen = fx.fake.requests.length;
    const out = join(fx.dir, "guardrail.json");
    const r = await hookedNode(APP, ["agent.mjs"], {
      ...recordEnv(fx.fake, { GUARDRAIL: "gr-1" }),
      TOOL_LOG: join(fx.dir, "guardrail.log"),
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: out,
    });
    expect(r.stdout).toMatch(
      /^failed: \[blackbox\] Bedrock Converse request: "guardrailConfig" asks Bedrock to run a guardrail on the call, whose assessments and interventions a replay could not give back; not supported yet\./,
    );
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(fx.fake.requests.length).toBe(seen);
  });

  it("InvokeModel with a raw model body", async () => {
    const seen = fx.fake.requests.length;
    const out = join(fx.dir, "invoke.json");
    const r = await hookedNode(APP, ["agent.mjs", "invoke"], {
      ...recordEnv(fx.fake),
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: out,
    });
    expect(r.stdout).toMatch(
      /^failed: \[blackbox\] Bedrock's InvokeModel API \(InvokeModelCommand and InvokeModelWithResponseStreamCommand of @aws-sdk\/client-bedrock-runtime, or Claude through the AnthropicBedrock client of @anthropic-ai\/bedrock-sdk\) sends the model's own request body, whose form differs for every model family/,
    );
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(fx.fake.requests.length).toBe(seen);
  });

  it.each(["record", "replay"] as const)(
    "%s: a call over node:http2 to the Bedrock endpoint is stopped and named",
    async (mode) => {
      const seen = fx.fake.requests.length;
      const r = await hookedNode(
        APP,
        ["stray-http2.mjs"],
        {
          ...(mode === "record" ? recordEnv(fx.fake) : replayEnv(fx.fake)),
          BLACKBOX_MODE: mode,
          ...(mode === "record"
            ? { BLACKBOX_OUT: join(fx.dir, "stray.json") }
            : { BLACKBOX_CASSETTE: join(fx.dir, "loop-Converse.json") }),
        },
        mode === "replay",
      );
      const what = mode === "record" ? "Blackbox cannot record" : "a replay cannot answer";
      expect(r.stdout).toBe(
        `failed: a request to the provider (an HTTP/2 connection to 127.0.0.1) went around Blackbox: it was sent with node:http2 (an AWS SDK request handler Blackbox did not switch to fetch), which ${what}, so it was stopped before it left the process. Run the command from the folder that installs @aws-sdk/client-bedrock-runtime (so Blackbox finds its @smithy/node-http-handler), and give the client no requestHandler of your own.\n`,
      );
      expect(r.code).not.toBe(0);
      expect(fx.fake.requests.length).toBe(seen);
    },
  );
});

describe("the AI SDK's @ai-sdk/amazon-bedrock (fetch, signed with aws4fetch)", () => {
  /** The package under test, as the in-code agent imports it. */
  const PACKAGE = pathToFileURL(join(ROOT, "dist", "index.js")).href;
  it.each([
    ["the hook", false],
    ["the hook", true],
    ["bb.fetch in code", false],
    ["bb.fetch in code", true],
  ] as const)(
    "through %s (streamed: %s): recorded, replayed offline (under the hook with no credentials), the tool not run",
    async (door, streamed) => {
      const inCode = door !== "the hook";
      const name = `ai-${inCode ? "code" : "hook"}-${streamed ? "stream" : "plain"}`;
      fx.fake.enqueue(
        reply(streamed, { toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
        reply(streamed, { text: "Sunny in Lisbon." }),
      );
      const cassette = join(fx.dir, `${name}.json`);
      const log = join(fx.dir, `${name}.log`);
      const args = ["agent-ai.mjs", ...(streamed ? ["stream"] : [])];
      const pkg = inCode ? { BLACKBOX_PKG: PACKAGE } : {};
      const run = (env: Record<string, string | undefined>, offline: boolean) =>
        inCode
          ? runProcess(process.execPath, args, { cwd: APP, env: { ...env, ...pkg }, offline })
          : hookedNode(APP, args, env, offline);
      const seen = fx.fake.requests.length;
      const recorded = await run(
        { ...recordEnv(fx.fake), TOOL_LOG: log, BLACKBOX_MODE: "record", BLACKBOX_OUT: cassette },
        false,
      );
      expect(recorded.stderr).toBe("");
      expect(recorded.stdout).toBe(STDOUT);
      expect(recorded.code).toBe(0);
      const sent = fx.fake.requests.slice(seen);
      expect(sent.map((q) => q.path.replace(/.*\//, ""))).toEqual(
        Array(2).fill(streamed ? "converse-stream" : "converse"),
      );
      expect(String(sent[0]!.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIA/);
      const trace = readCassette(cassette);
      expect(toolNames(trace)).toEqual(["get_weather"]);
      expect(trace.steps[0]!.payload).toMatchObject({
        systemPrompt: "You are a travel agent.",
        model: "anthropic.claude-3-5-haiku-20241022-v1:0",
      });
      expectNoSecrets(cassette);
      rmSync(log);
      // under the hook the replay needs no credentials (placeholders are set); in code, without the hook, the
      // provider refuses to build a request without some: any will do, nothing is sent
      const placeholders = inCode ? { AWS_ACCESS_KEY_ID: "placeholder", AWS_SECRET_ACCESS_KEY: "placeholder" } : {};
      const replayed = await run(
        { ...replayEnv(fx.fake), ...placeholders, TOOL_LOG: log, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette },
        true,
      );
      expect(replayed.stdout).toBe(STDOUT);
      expect(replayed.code).toBe(0);
      expect(existsSync(log)).toBe(false);
      expect(fx.fake.requests.length).toBe(seen + 2);
    },
  );
});
