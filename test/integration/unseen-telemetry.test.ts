/**
 * Known telemetry uploads riding on a recorded OpenAI client (the Agents SDK's trace
 * exporter: POST /v1/traces/ingest) get an empty success (204) in a replay instead of
 * failing the run; every other unrecorded SDK call is still refused. Through bb.fetch with
 * the real openai SDK, and under the hook with the network gone.
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import OpenAI from "openai";
import { expect, test } from "vitest";
import { blackbox } from "../../src/index.js";
import { openaiCompletion } from "../helpers/fakeProvider.js";
import { blackboxCli, SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const ctx = useZeroCodeFixture("openai-agents-tracing");

/** What the Agents SDK's OpenAITracingExporter sends. */
const ingest = (f: typeof fetch, base: string) =>
  f(`${base}/traces/ingest`, {
    method: "POST",
    headers: {
      authorization: "Bearer sk-test-telemetry-000000",
      "content-type": "application/json",
      "OpenAI-Beta": "traces=v1",
    },
    body: JSON.stringify({ data: [{ object: "trace", id: "trace_0123", workflow_name: "Agent workflow" }] }),
  });

test("bb.fetch: a replay answers the trace upload with 204 and still refuses any other unrecorded call", async () => {
  const out = join(ctx.dir, "telemetry.json");
  ctx.fake.enqueue({ json: openaiCompletion({ text: "Hello." }) }, { json: {} });
  const rec = blackbox({ mode: "record", out });
  const client = new OpenAI({ baseURL: ctx.fake.openaiUrl, apiKey: "sk-test-telemetry-000000", fetch: rec.fetch });
  await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
  expect((await ingest(rec.fetch, ctx.fake.openaiUrl)).status).toBe(200); // recorded: the upload went upstream
  await rec.finish();
  const sent = ctx.fake.requests.length;

  const bb = blackbox({ mode: "replay", cassette: out });
  const again = new OpenAI({ baseURL: ctx.fake.openaiUrl, apiKey: "sk-test-telemetry-000000", fetch: bb.fetch });
  const r = await again.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
  expect(r.choices[0]!.message.content).toBe("Hello.");
  const res = await ingest(bb.fetch, ctx.fake.openaiUrl);
  expect(res.status).toBe(204);
  expect(await res.text()).toBe("");
  // through the SDK's own request path too
  await expect(again.post("/traces/ingest", { body: { data: [] } })).resolves.toBeFalsy();
  await bb.finish();
  expect(ctx.fake.requests.length).toBe(sent); // nothing was sent

  const other = blackbox({ mode: "replay", cassette: out });
  const c = new OpenAI({ baseURL: ctx.fake.openaiUrl, apiKey: "sk-test-telemetry-000000", fetch: other.fetch });
  await expect(c.models.list()).rejects.toThrow("GET /v1/models is not recorded");
  other.dispose();
});

test("under the hook, offline: the trace upload of a replayed agent gets 204 and the replay passes", async () => {
  const agent = join(ctx.dir, "traced.mjs");
  writeFileSync(
    agent,
    `import OpenAI from "openai";
const client = new OpenAI();
const r = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
const res = await fetch(process.env.OPENAI_BASE_URL + "/traces/ingest", { method: "POST", headers: { authorization: "Bearer " + process.env.OPENAI_API_KEY, "content-type": "application/json", "OpenAI-Beta": "traces=v1" }, body: JSON.stringify({ data: [] }) });
console.log(r.choices[0].message.content, res.ok);
`,
  );
  const cassette = join(ctx.dir, "traced.json");
  const env = { OPENAI_BASE_URL: ctx.fake.openaiUrl, OPENAI_API_KEY: "sk-test-telemetry-000000" };
  ctx.fake.enqueue({ json: openaiCompletion({ text: "Hello." }) }, { json: {} });
  const rec = await blackboxCli(ctx.fake, ctx.dir, ["record", "-o", cassette, "--", "node", agent], env);
  expect(rec.stdout).toBe("Hello. true\n");
  expect(rec.code).toBe(0);
  const replay = await blackboxCli(ctx.fake, ctx.dir, ["replay", cassette, "--", "node", agent], env, true);
  expect(replay.stderr).toBe(
    "blackbox: replayed traced.json as recorded: 1 model call, 0 tool calls, ended: success\n",
  );
  expect(replay.stdout).toBe("Hello. true\n");
  expect(replay.code).toBe(0);
});

test("the OpenAI Agents SDK with tracing on, recorded, then replayed offline: its trace export gets 204", async () => {
  const app = join(SDK_APPS, "openai-agents-tracing");
  const cassette = join(ctx.dir, "agents.json");
  // NODE_ENV=test (vitest's) turns the SDK's tracing off: the app runs as a user runs it
  const env = { OPENAI_BASE_URL: ctx.fake.openaiUrl, OPENAI_API_KEY: "sk-test-agents-00000000", NODE_ENV: undefined };
  ctx.fake.enqueue({ json: openaiCompletion({ text: "Hello." }) }, { json: {} });
  const before = ctx.fake.requests.length;
  const rec = await blackboxCli(ctx.fake, app, ["record", "-o", cassette, "--", "node", "agent.mjs"], env);
  expect(rec.stdout).toBe("answer: Hello.; exported: true\n");
  expect(rec.code).toBe(0);
  // the trace went upstream when recording, as the agent sent it
  expect(ctx.fake.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
    "POST /v1/chat/completions",
    "POST /v1/traces/ingest",
  ]);
  const replay = await blackboxCli(ctx.fake, app, ["replay", cassette, "--", "node", "agent.mjs"], env, true);
  expect(replay.stderr).toBe(
    `blackbox: replayed ${cassette} as recorded: 1 model call, 0 tool calls, ended: success\n`,
  );
  expect(replay.stdout).toBe("answer: Hello.; exported: true\n");
  expect(replay.code).toBe(0);
});
