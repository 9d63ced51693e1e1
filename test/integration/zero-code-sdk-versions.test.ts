/**
 * Other SDK versions side by side, each installed in its own folder: openai 5.x (the
 * global fetch), and openai 4.x and @anthropic-ai/sdk 0.39, whose Node shims use
 * node-fetch (which a global dispatcher never sees). The hook loads that app's own `<sdk>/shims/web` (CJS and ESM) so its calls
 * are recorded, then replayed offline, plain and streamed (`stream: true` and each SDK's stream helper).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { anthropicMessage, anthropicSSE, openaiCompletion, openaiSSE } from "../helpers/fakeProvider.js";
import { hookedNode, readCassette, SDK_APPS, useZeroCodeFixture } from "./zeroCodeHelpers.js";
import { existsSync as exists } from "node:fs";

const VERSIONS = SDK_APPS;
// openai 7 declares Node >= 22: it is part of the run on Node 24 (see .ci/run).
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
const APPS = ["openai4", "openai5", "anthropic0", ...(NODE_MAJOR >= 22 ? ["openai7"] : [])];
const fx = useZeroCodeFixture(...APPS);

const cases = APPS.flatMap((app) => ["agent.mjs", "agent.cjs"].map((agent) => ({ app, agent })));

test.each(cases)("$app ($agent) is recorded through the global fetch and replayed offline", async ({ app, agent }) => {
  const APP = join(VERSIONS, app);
  const out = join(fx.dir, `${app}-${agent}.json`);
  const openai = app.startsWith("openai");
  fx.fake.enqueue({
    json: openai ? openaiCompletion({ text: `hi from ${agent}` }) : anthropicMessage({ text: `hi from ${agent}` }),
  });
  const env = openai
    ? { OPENAI_BASE_URL: fx.fake.openaiUrl, OPENAI_API_KEY: "sk-openai4-fake-key-0123456789" }
    : { ANTHROPIC_BASE_URL: fx.fake.anthropicUrl, ANTHROPIC_API_KEY: "sk-ant-old-fake-key-0123456789" };
  const recorded = await hookedNode(APP, [agent], { ...env, BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
  expect(recorded.stderr).toBe("");
  expect(recorded.stdout).toContain(`answer: hi from ${agent}`);
  expect(recorded.code).toBe(0);
  const trace = readCassette(out);
  expect(trace.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);

  const replayed = await hookedNode(APP, [agent], { ...env, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out }, true);
  expect(replayed.stderr).toBe("");
  expect(replayed.stdout).toContain(`answer: hi from ${agent}`);
  expect(replayed.code).toBe(0);
});

const streamCases = APPS.flatMap((app) => ["stream.mjs", "stream.cjs"].map((agent) => ({ app, agent })));

test.each(streamCases)(
  "$app ($agent): streamed calls (stream: true, the SDK's stream helper) are recorded and replayed offline",
  async ({ app, agent }) => {
    const APP = join(VERSIONS, app);
    const out = join(fx.dir, `${app}-${agent}.json`);
    const openai = app.startsWith("openai");
    const weather = { text: "Checking.", toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] };
    fx.fake.enqueue(
      { sse: openai ? openaiSSE({ text: `hi from ${agent}` }) : anthropicSSE({ text: `hi from ${agent}` }) },
      { sse: openai ? openaiSSE(weather) : anthropicSSE(weather) },
    );
    const env = openai
      ? { OPENAI_BASE_URL: fx.fake.openaiUrl, OPENAI_API_KEY: "sk-openai4-fake-key-0123456789" }
      : { ANTHROPIC_BASE_URL: fx.fake.anthropicUrl, ANTHROPIC_API_KEY: "sk-ant-old-fake-key-0123456789" };
    // openai 4.x has the helper only as beta.chat.completions.stream
    const helper = openai
      ? `helper (${app === "openai4" ? "beta" : "chat"}): Checking. Checking. [{"name":"get_weather","input":{"city":"Lisbon"}}] tool_calls`
      : 'helper: Checking. ["Checking.",{"name":"get_weather","input":{"city":"Lisbon"}}] tool_use';
    const expected = `streamed: hi from ${agent}\n${helper}\n`;
    const seen = fx.fake.requests.length;
    const recorded = await hookedNode(APP, [agent], { ...env, BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
    expect(recorded.stderr).toBe("");
    expect(recorded.stdout).toBe(expected);
    expect(recorded.code).toBe(0);
    const sent = fx.fake.requests.slice(seen);
    expect(sent.map((q) => (q.body as { stream?: boolean }).stream)).toEqual([true, true]);
    const trace = readCassette(out);
    expect(trace.steps.map((s) => s.type)).toEqual([
      "model_input",
      "model_output",
      "model_input",
      "model_output",
      "metadata",
    ]);
    const outputs = trace.steps.filter((s) => s.type === "model_output").map((s) => s.payload);
    expect(outputs[0]).toEqual({ type: "final_answer", text: `hi from ${agent}` });
    expect(outputs[1]).toMatchObject({
      type: "tool_calls",
      text: "Checking.",
      calls: [{ toolName: "get_weather", toolInput: { city: "Lisbon" } }],
    });

    const replayed = await hookedNode(APP, [agent], { ...env, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out }, true);
    expect(replayed.stderr).toBe("");
    expect(replayed.stdout).toBe(expected);
    expect(replayed.code).toBe(0);
    expect(fx.fake.requests.length).toBe(seen + 2); // the replay sent nothing
  },
);

test("openai 3.x (axios) cannot be captured: refused before the agent runs, naming the version", async () => {
  const app = join(fx.dir, "openai3");
  mkdirSync(join(app, "node_modules", "openai"), { recursive: true });
  writeFileSync(
    join(app, "node_modules", "openai", "package.json"),
    JSON.stringify({ name: "openai", version: "3.3.0" }),
  );
  writeFileSync(join(app, "agent.mjs"), 'console.log("agent ran");');
  const r = await hookedNode(app, ["agent.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(app, "out.json") });
  expect(r.stdout).not.toContain("agent ran");
  expect(r.stderr).toBe(
    "blackbox: openai 3.3.0 sends requests with axios, which Blackbox cannot see; upgrade to openai >= 4 (5 or later recommended)\n",
  );
  expect(r.code).toBe(2);
});

const OPENAI4_ENV = { OPENAI_API_KEY: "sk-openai4-fake-key-0123456789" };

test("openai 4.x installed only in the script's own package (a monorepo run from its root) is switched too", async () => {
  // From sdk-versions/, `openai` resolves to this repo's openai 6; the agent's own package has 4.x.
  const out = join(fx.dir, "monorepo.json");
  fx.fake.enqueue({ json: openaiCompletion({ text: "hi from the root" }) });
  const env = { ...OPENAI4_ENV, OPENAI_BASE_URL: fx.fake.openaiUrl };
  const recorded = await hookedNode(VERSIONS, [join("openai4", "agent.mjs")], {
    ...env,
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: out,
  });
  expect(recorded.stderr).toBe("");
  expect(recorded.stdout).toContain("answer: hi from the root");
  expect(readCassette(out).steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
  const replayed = await hookedNode(
    VERSIONS,
    [join("openai4", "agent.mjs")],
    { ...env, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out },
    true,
  );
  expect(replayed.stderr).toBe("");
  expect(replayed.stdout).toContain("answer: hi from the root");
  expect(replayed.code).toBe(0);
});

test("an openai 4.x found from neither folder is stopped at its first model call, named, and fails the run (record and replay)", async () => {
  // A launcher elsewhere imports the agent: neither the working folder nor the script's finds openai 4.
  const launcher = join(fx.dir, "launch.mjs");
  writeFileSync(launcher, `await import(${JSON.stringify(join(VERSIONS, "openai4", "agent.mjs"))});\n`);
  const seen = fx.fake.requests.length;
  const out = join(fx.dir, "bypass.json");
  const env = { ...OPENAI4_ENV, OPENAI_BASE_URL: fx.fake.openaiUrl, OPENAI_MAX_RETRIES: "0" };
  const r = await hookedNode(fx.dir, [launcher], { ...env, BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
  const refusal =
    /^blackbox: a model call \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\) went around Blackbox: openai 4\.104\.0 sent it with Node's http client \(node-fetch\), which Blackbox cannot record, so it was stopped before it left the process\. The copy of openai that sent it was not found from the working folder or the script's folder.*import "openai\/shims\/web" before "openai".*No cassette was written to .*bypass\.json\.$/m;
  expect(r.stderr).toMatch(refusal);
  expect(r.stderr).toContain(
    "A copy another package brings along (`npm ls openai` shows where; @langchain/openai 0.x brings openai 4) is switched by upgrading that package.",
  );
  expect(r.code).not.toBe(0);
  expect(fx.fake.requests.length).toBe(seen); // nothing reached the provider
  expect(exists(out)).toBe(false);

  const cassette = join(fx.dir, "openai4-agent.mjs.json"); // recorded by the first test
  const replayed = await hookedNode(
    fx.dir,
    [launcher],
    { ...env, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette },
    true,
  );
  expect(replayed.stderr).toMatch(
    /^blackbox: a model call \(POST .*\) went around Blackbox: openai 4\.104\.0 sent it with Node's http client \(node-fetch\), which a replay cannot answer, so it was stopped/m,
  );
  expect(replayed.stderr).not.toContain("EAI_AGAIN");
  expect(replayed.code).not.toBe(0);
});

// openai names its client class in the user-agent: a subclass is known by the Stainless header at the http client too
test.each([
  ["OpenAI", "", "openai 4.104.0"],
  [
    "MyOpenAI",
    "class MyOpenAI extends OpenAI {}",
    'an SDK client (user-agent "MyOpenAI/JS 4.104.0", package version "4.104.0")',
  ],
])(
  "an unswitched openai 4.x (%s) with its base URL set in code, on no route: its model call is stopped at the http client, named with the base URL to add",
  async (cls, decl, sdk) => {
    const agent = join(fx.dir, `stray4-${cls}.mjs`);
    writeFileSync(
      agent,
      `const { default: OpenAI } = await import(${JSON.stringify(join(VERSIONS, "openai4", "node_modules", "openai", "index.mjs"))});
${decl}
const client = new ${cls}({ maxRetries: 0, baseURL: process.env.GATEWAY + "/v1" });
try { await client.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] }); console.log("sent"); }
catch (err) { console.log("agent saw:", err.constructor.name); }
`,
    );
    const seen = fx.fake.requests.length;
    const out = join(fx.dir, `stray4-${cls}.json`);
    const r = await hookedNode(fx.dir, [agent], {
      ...OPENAI4_ENV,
      GATEWAY: fx.fake.url,
      OPENAI_BASE_URL: undefined,
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: out,
    });
    expect(r.stdout).toBe("agent saw: APIConnectionError\n");
    expect(r.stderr).toContain(
      `blackbox: a model call of ${sdk} went to ${fx.fake.url}/v1, which is not a provider base URL Blackbox knows`,
    );
    expect(r.stderr).toContain(`Name that base URL: run with OPENAI_BASE_URL=${fx.fake.url}/v1`);
    expect(r.code).not.toBe(0);
    expect(fx.fake.requests.length).toBe(seen);
    expect(exists(out)).toBe(false);
  },
);

test("an unswitched openai 4.x: its other calls go upstream in record on sockets not kept alive, so its model call after them is still stopped; replay answers neither", async () => {
  const agent = join(fx.dir, "keepalive.mjs");
  writeFileSync(
    agent,
    `const { default: OpenAI } = await import(${JSON.stringify(join(VERSIONS, "openai4", "node_modules", "openai", "index.mjs"))});
const client = new OpenAI({ maxRetries: 0 });
for (const call of [() => client.embeddings.create({ model: "e", input: "x" }), () => client.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] })]) {
  try { await call(); } catch (err) { console.log("agent saw:", err.constructor.name); }
}
`,
  );
  const seen = fx.fake.requests.length;
  const out = join(fx.dir, "keepalive.json");
  const env = { ...OPENAI4_ENV, OPENAI_BASE_URL: fx.fake.openaiUrl };
  const r = await hookedNode(fx.dir, [agent], { ...env, BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
  expect(r.stdout).toBe("agent saw: InternalServerError\nagent saw: APIConnectionError\n"); // the fake's 500 for the unqueued embeddings call
  expect(fx.fake.requests.slice(seen).map((q) => q.path)).toEqual(["/v1/embeddings"]); // the model call never left
  expect(r.stderr).toMatch(
    /^blackbox: a model call \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\) went around Blackbox/m,
  );
  expect(exists(out)).toBe(false);

  const cassette = join(fx.dir, "openai4-agent.mjs.json");
  const replayed = await hookedNode(fx.dir, [agent], { ...env, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette });
  expect(replayed.stdout).toBe("agent saw: APIConnectionError\nagent saw: APIConnectionError\n");
  expect(replayed.stderr).toMatch(
    /^blackbox: a request to the provider \(POST .*\/v1\/embeddings\) went around Blackbox: .* which a replay cannot answer/m,
  );
  expect(fx.fake.requests.length).toBe(seen + 1);
});

test("a model call sent to an HTTP proxy (absolute-form) is stopped too, also after another request on a kept-alive proxy socket", async () => {
  const { createServer } = await import("node:http");
  const proxied: string[] = [];
  const proxy = createServer((q, res) => {
    proxied.push(`${q.method} ${q.url}`);
    res.end("{}");
  }).listen(0, "127.0.0.1");
  await new Promise((ok) => proxy.once("listening", ok));
  try {
    const port = (proxy.address() as { port: number }).port;
    const agent = join(fx.dir, "proxied.mjs");
    writeFileSync(
      agent,
      `import http from "node:http";
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const send = (method, target) => new Promise((done) => {
  const req = http.request({ agent, host: "127.0.0.1", port: ${port}, method, path: target.href, headers: { host: target.host, "content-type": "application/json" } });
  req.on("error", (e) => { console.log("agent saw:", e.message.slice(0, 40)); done(); });
  req.on("response", (res) => { res.resume(); res.on("end", () => { console.log("agent got", res.statusCode); done(); }); });
  req.end(method === "POST" ? "{}" : undefined);
});
await send("GET", new URL("http://example.com/")); // another host through the same proxy first: its socket must not carry the next call
await send("POST", new URL(process.env.OPENAI_BASE_URL + "/chat/completions"));
agent.destroy();
`,
    );
    const r = await hookedNode(fx.dir, [agent], {
      ...OPENAI4_ENV,
      OPENAI_BASE_URL: fx.fake.openaiUrl,
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: join(fx.dir, "proxied.json"),
    });
    expect(r.stdout).toMatch(/^agent got 200\nagent saw: a model call \(POST http:\/\/127\.0\.0\.1/);
    expect(r.stderr).toMatch(
      /^blackbox: a model call \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\) went around Blackbox/m,
    );
    expect(proxied).toEqual(["GET http://example.com/"]);
  } finally {
    proxy.close();
  }
});

test("an openai 3.x of the script's own folder (a helper tool in the tree) does not stop the run; the working folder's would", async () => {
  const tool = join(fx.dir, "tool3");
  mkdirSync(join(tool, "node_modules", "openai"), { recursive: true });
  writeFileSync(
    join(tool, "node_modules", "openai", "package.json"),
    JSON.stringify({ name: "openai", version: "3.3.0" }),
  );
  writeFileSync(join(tool, "bin.mjs"), 'console.log("helper ran");');
  const r = await hookedNode(fx.dir, [join(tool, "bin.mjs")], {
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: join(fx.dir, "tool3.json"),
  });
  expect(r.stdout).toBe("helper ran\n");
  expect(r.stderr).not.toContain("axios");
});
