/**
 * The OpenAI Agents SDK (@openai/agents, test/fixtures/sdk-versions/openai-agents) under the
 * register hook, with no code change: its run() sends the Responses API by default, with
 * strict function tools. A triage agent hands off to a forecaster (a transfer_to_... function
 * call the SDK answers itself), which calls get_weather, then answers; recorded against the
 * fake provider, streamed and not, and replayed under unshare -n with the tool's side effect
 * absent. Tracing is off (OPENAI_AGENTS_DISABLE_TRACING=1) for the recordings; with it on, a
 * replay answers the exporter's POST /v1/traces/ingest with an empty 204 (the last test).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiResponse, openaiResponseSSE } from "../helpers/fakeProvider.js";
import { hookedNode, readCassette, SDK_APPS, toolNames, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "openai-agents");
const fx = useZeroCodeFixture("openai-agents");

const env = (extra: Record<string, string | undefined>) => ({
  OPENAI_BASE_URL: fx.fake.openaiUrl,
  OPENAI_API_KEY: "sk-agents-test-0000",
  OPENAI_AGENTS_DISABLE_TRACING: "1",
  NODE_ENV: undefined, // vitest's "test" turns the SDK's tracing off by itself
  ...extra,
});

describe("the OpenAI Agents SDK, recorded and replayed offline", () => {
  it.each(["plain", "stream"] as const)(
    "%s: a handoff, a function tool, the answer; the replay sends nothing and runs no tool",
    async (how) => {
      const reply = (c: Parameters<typeof openaiResponse>[0]) =>
        how === "stream" ? { sse: openaiResponseSSE(c) } : { json: openaiResponse(c) };
      fx.fake.enqueue(
        reply({ toolCalls: [{ name: "transfer_to_Forecaster", input: {} }] }),
        reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
        reply({ text: "Sunny in Lisbon." }),
      );
      const cassette = join(fx.dir, `agents-${how}.json`);
      const log = join(fx.dir, `agents-${how}.log`);
      const args = ["agent.mjs", ...(how === "stream" ? ["stream"] : [])];
      const seen = fx.fake.requests.length;
      const recorded = await hookedNode(
        APP,
        args,
        env({ TOOL_LOG: log, BLACKBOX_MODE: "record", BLACKBOX_OUT: cassette }),
      );
      expect(recorded.stdout).toBe("agent: Forecaster, answer: Sunny in Lisbon.\n");
      expect(recorded.code).toBe(0);
      expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\n");
      const sent = fx.fake.requests.slice(seen);
      expect(sent.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses", "/v1/responses"]);
      const trace = readCassette(cassette);
      expect(toolNames(trace)).toEqual(["get_weather"]);
      const inputs = trace.steps.filter((s) => s.type === "model_input").map((s) => s.payload as Record<string, any>);
      expect(inputs).toHaveLength(3);
      expect(inputs[0]!.tools.map((t: { name: string }) => t.name)).toEqual(["transfer_to_Forecaster"]);
      expect(inputs[1]!.tools).toEqual([expect.objectContaining({ name: "get_weather", strict: true })]);

      rmSync(log);
      const replayed = await hookedNode(
        APP,
        args,
        env({ TOOL_LOG: log, OPENAI_API_KEY: undefined, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette }),
        true,
      );
      expect(replayed.stderr).toBe("");
      expect(replayed.stdout).toBe(recorded.stdout);
      expect(replayed.code).toBe(0);
      expect(existsSync(log)).toBe(false);
      expect(fx.fake.requests.length).toBe(seen + 3);
    },
  );
});

it("with the SDK's tracing on, a replay answers its trace export with an empty success and passes", async () => {
  const cassette = join(fx.dir, "agents-plain.json");
  const log = join(fx.dir, "agents-tracing.log");
  const r = await hookedNode(
    APP,
    ["agent.mjs"],
    env({
      TOOL_LOG: log,
      OPENAI_API_KEY: undefined,
      OPENAI_AGENTS_DISABLE_TRACING: undefined,
      BLACKBOX_MODE: "replay",
      BLACKBOX_CASSETTE: cassette,
    }),
    true,
  );
  expect(r.stdout).toBe("agent: Forecaster, answer: Sunny in Lisbon.\n");
  expect(r.stderr).toBe(""); // the trace export answered, nothing refused
  expect(r.code).toBe(0);
  expect(existsSync(log)).toBe(false);
});
