/**
 * The Anthropic SDK's cloud clients, installed side by side (test/fixtures/sdk-versions/anthropic-clouds),
 * under the register hook with no code change:
 *   - AnthropicBedrock (Bedrock's InvokeModel) and AnthropicVertex (Vertex AI's rawPredict) do
 *     not speak the Messages API: each call is stopped in the process with a refusal naming
 *     the client, in record and in replay, wherever its base URL points (also one the hook routes);
 *   - AnthropicAws, AnthropicBedrockMantle and AnthropicFoundry do speak it: a call to a base URL
 *     Blackbox was not told of is stopped naming that base URL (as for the Anthropic client);
 *     named, it is recorded and then replayed offline.
 * Before, a Bedrock or Vertex call went by the door untouched: unrecorded, and in a replay to the cloud.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicMessage, anthropicSSE } from "../helpers/fakeProvider.js";
import { ROOT } from "../helpers/child.js";
import { hookedNode, readCassette, SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "anthropic-clouds");
const fx = useZeroCodeFixture("anthropic-clouds");

const noKeys = {
  ANTHROPIC_BASE_URL: undefined,
  ANTHROPIC_API_KEY: undefined,
  AWS_REGION: undefined,
  ANTHROPIC_BEDROCK_BASE_URL: undefined,
  ANTHROPIC_VERTEX_BASE_URL: undefined,
};
const record = (out: string, extra: Record<string, string | undefined> = {}) => ({
  ...noKeys,
  BLACKBOX_MODE: "record",
  BLACKBOX_OUT: out,
  ...extra,
});
const replay = (cassette: string, extra: Record<string, string | undefined> = {}) => ({
  ...noKeys,
  BLACKBOX_MODE: "replay",
  BLACKBOX_CASSETTE: cassette,
  ...extra,
});
/** A replay's cassette (the zero-code example's): any will do, the call is stopped before it is compared. */
const TRIP = join(ROOT, "examples", "zero-code", "runs", "trip.json");

const BEDROCK =
  "refused: 400 [blackbox] Claude on Amazon Bedrock (the AnthropicBedrock client of @anthropic-ai/bedrock-sdk) calls Bedrock's InvokeModel API, not the Anthropic Messages API, which is what Blackbox records and replays; not supported yet. " +
  "Record the agent with a client that speaks the Messages API (new Anthropic(), or AnthropicAws / AnthropicFoundry, named to Blackbox by their base URL).";
/**
 * To Bedrock's own endpoint, a provider endpoint now (src/providers/bedrock/index.ts), the call is Bedrock's
 * InvokeModel, refused as such (not as a stray call: no "a call of ..." after it).
 */
const BEDROCK_HOST =
  "refused: 400 [blackbox] Bedrock's InvokeModel API (InvokeModelCommand and InvokeModelWithResponseStreamCommand of @aws-sdk/client-bedrock-runtime, or Claude through the AnthropicBedrock client of @anthropic-ai/bedrock-sdk) sends the model's own request body, whose form differs for every model family, " +
  "so Blackbox cannot record it in the neutral form a replay and a fork need; not supported. Call the model with Bedrock's Converse API (ConverseCommand / ConverseStreamCommand: one format for every model), " +
  "or, for Claude, with a client that speaks the Messages API (new Anthropic(), or AnthropicAws / AnthropicFoundry, named to Blackbox by their base URL).";
const VERTEX =
  "refused: 400 [blackbox] Claude on Vertex AI (the AnthropicVertex client of @anthropic-ai/vertex-sdk) calls Vertex AI's rawPredict API, not the Anthropic Messages API, which is what Blackbox records and replays; not supported yet. " +
  "Record the agent with a client that speaks the Messages API (new Anthropic(), or AnthropicAws / AnthropicFoundry, named to Blackbox by their base URL).";

describe("Bedrock and Vertex AI clients: stopped in the process, never sent unrecorded", () => {
  it.each([
    ["bedrock", "", BEDROCK_HOST, "https://bedrock-runtime.us-east-1.amazonaws.com", "AnthropicBedrock"],
    ["bedrock", "stream", BEDROCK_HOST, "https://bedrock-runtime.us-east-1.amazonaws.com", "AnthropicBedrock"],
    ["vertex", "", VERTEX, "https://us-east5-aiplatform.googleapis.com", "AnthropicVertex"],
    ["vertex", "stream", VERTEX, "https://us-east5-aiplatform.googleapis.com", "AnthropicVertex"],
  ] as const)(
    "%s %s, the client's own endpoint, record and replay under unshare -n: the refusal, no cassette",
    async (client, mode, refusal, origin, name) => {
      const out = join(fx.dir, `${client}-${mode || "plain"}.json`);
      const args = ["agent.mjs", client, ...(mode ? [mode] : [])];
      // offline: a call that got by the door would fail as a connection error, not with this message
      const recorded = await hookedNode(APP, args, record(out), true);
      const stray = ` (a call of @anthropic-ai/sdk 1.15.0 (${name}) to ${origin}; it was stopped before it left the process.)`;
      expect(recorded.stdout).toBe(`${refusal}${client === "bedrock" ? "" : stray}\n`);
      expect(recorded.stderr).toContain(refusal.replace("refused: 400 [blackbox] ", "blackbox: ")); // the run's end names it too
      expect(recorded.code).toBe(1); // a refused call fails the run
      expect(existsSync(out)).toBe(false);

      const replayed = await hookedNode(APP, args, replay(TRIP), true);
      expect(replayed.stdout.startsWith(refusal)).toBe(true);
      expect(replayed.code).not.toBe(0);
    },
  );

  it.each([
    ["bedrock", BEDROCK],
    ["vertex", VERTEX],
  ] as const)(
    "%s to a base URL the hook routes (ANTHROPIC_BASE_URL): the same refusal, nothing reaches it",
    async (client, refusal) => {
      const seen = fx.fake.requests.length;
      const out = join(fx.dir, `${client}-routed.json`);
      const r = await hookedNode(
        APP,
        ["agent.mjs", client],
        record(out, { GATEWAY: fx.fake.url, ANTHROPIC_BASE_URL: fx.fake.url }),
      );
      expect(r.stdout.startsWith(refusal)).toBe(true);
      expect(r.code).toBe(1);
      expect(existsSync(out)).toBe(false);
      expect(fx.fake.requests.length).toBe(seen);
    },
  );
});

describe("clients that speak the Messages API on a cloud (AnthropicAws, AnthropicBedrockMantle, AnthropicFoundry)", () => {
  it.each([
    ["aws", "AnthropicAws", "https://aws-external-anthropic.us-east-1.api.aws"],
    ["mantle", "AnthropicBedrockMantle", "https://bedrock-mantle.us-east-1.api.aws/anthropic"],
    ["foundry", "AnthropicFoundry", "https://blackbox-test.services.ai.azure.com/anthropic"],
  ] as const)("%s to its own endpoint, not named: stopped naming the base URL to add", async (client, name, base) => {
    const out = join(fx.dir, `${client}-stray.json`);
    const r = await hookedNode(APP, ["agent.mjs", client], record(out), true);
    expect(r.stdout).toContain(
      `refused: 400 [blackbox] a model call of @anthropic-ai/sdk 1.15.0 (${name}) went to ${base}, which is not a provider base URL Blackbox knows`,
    );
    expect(r.stderr).toContain(
      `Name that base URL: run with ANTHROPIC_BASE_URL=${base}, or add providers: { anthropic: ["${base}"] } to blackbox.config.ts.`,
    );
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ["aws", "", ""],
    ["mantle", "", "/anthropic"],
    ["foundry", "", "/anthropic"],
    ["foundry", "stream", "/anthropic"],
  ] as const)(
    "%s %s, its base URL named by ANTHROPIC_BASE_URL: recorded, then replayed offline",
    async (client, mode, path) => {
      const out = join(fx.dir, `${client}-${mode || "plain"}-named.json`);
      const args = ["agent.mjs", client, ...(mode ? [mode] : [])];
      const text = `hi from ${client}`;
      fx.fake.enqueue(mode ? { sse: anthropicSSE({ text }) } : { json: anthropicMessage({ text }) });
      const seen = fx.fake.requests.length;
      const env = { GATEWAY: fx.fake.url, ANTHROPIC_BASE_URL: `${fx.fake.url}${path}` };
      const recorded = await hookedNode(APP, args, record(out, env));
      expect(recorded.stderr).toBe("");
      expect(recorded.stdout).toBe(mode ? `streamed: ${text}\n` : `answer: ${text}\n`);
      expect(recorded.code).toBe(0);
      expect(fx.fake.requests.slice(seen).map((q) => q.path)).toEqual([`${path}/v1/messages`]);
      const trace = readCassette(out);
      expect(trace.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
      expect(trace.steps[1]!.payload).toEqual({ type: "final_answer", text });

      const replayed = await hookedNode(APP, args, replay(out, env), true);
      expect(replayed.stderr).toBe("");
      expect(replayed.stdout).toBe(recorded.stdout);
      expect(replayed.code).toBe(0);
      expect(fx.fake.requests.length).toBe(seen + 1);
    },
  );
});
