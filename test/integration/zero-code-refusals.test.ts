/**
 * What record refuses during a zero-code run (a partial stream, a reply it cannot record)
 * is said at process end as finish() throws it in code: one `blackbox:` line naming it, a
 * non-zero exit, and no cassette (the call would be missing from it), an earlier file at
 * that path left as it was.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/child.js";
import { anthropicMessage, anthropicSSE, openaiCompletion, openaiSSE } from "../helpers/fakeProvider.js";
import { hookedNode, useZeroCodeFixture } from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture();

const reply = { text: "A long answer that streams in many small pieces, 日本語 included." };

function agent(name: string, body: string): string {
  const file = join(fx.dir, `${name}.mjs`);
  writeFileSync(file, body);
  return file;
}

const anthropicBreaks = `import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic({ maxRetries: 0 });
const events = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] });
for await (const ev of events) if (ev.type === "content_block_delta") break;
console.log("agent done");
`;

const openaiBreaks = `import OpenAI from "openai";
const client = new OpenAI({ maxRetries: 0 });
const stream = await client.chat.completions.create({ model: "gpt-4.1", stream: true, messages: [{ role: "user", content: "hi" }] });
let n = 0;
for await (const _ of stream) if (++n === 2) break;
console.log("agent done");
`;

function env(out: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
    ANTHROPIC_API_KEY: "sk-ant-refusals-0123456789",
    OPENAI_BASE_URL: fx.fake.openaiUrl,
    OPENAI_API_KEY: "sk-refusals-0123456789",
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: out,
  };
}

describe("a refused call while recording through the hook: no cassette, one message, non-zero exit", () => {
  it("Anthropic: an agent that stops reading a stream", async () => {
    const out = join(fx.dir, "anthropic-break.json");
    fx.fake.enqueue({ sse: anthropicSSE(reply), chunkSize: 5, delayMs: 2 });
    const r = await hookedNode(fx.dir, [agent("anthropic-break", anthropicBreaks)], env(out));
    expect(r.stdout).toContain("agent done");
    expect(r.stderr).toMatch(
      /^blackbox: .*agent stopped reading a streamed reply before it ended.*Read streams to the end.* No cassette was written to .*anthropic-break\.json\.\n$/s,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it("OpenAI: the same, and an earlier cassette at that path is left as it was", async () => {
    const out = join(fx.dir, "openai-break.json");
    writeFileSync(out, '{"an":"earlier file"}');
    fx.fake.enqueue({ sse: openaiSSE(reply), chunkSize: 5, delayMs: 2 });
    const r = await hookedNode(fx.dir, [agent("openai-break", openaiBreaks)], env(out));
    expect(r.stderr).toMatch(
      /^blackbox: .*agent stopped reading a streamed reply.* No cassette was written to .*openai-break\.json\.\n$/s,
    );
    expect(r.code).toBe(1);
    expect(readFileSync(out, "utf8")).toBe('{"an":"earlier file"}');
  });

  it("a reply record refuses (stop_reason stop_sequence): the agent sees the 400, the run writes nothing", async () => {
    const out = join(fx.dir, "stopseq.json");
    fx.fake.enqueue({ json: anthropicMessage({ text: "cut here", stop: "stop_sequence" }) });
    const file = agent(
      "stopseq",
      `import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic({ maxRetries: 0 });
try {
  await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stop_sequences: ["here"], messages: [{ role: "user", content: "hi" }] });
} catch (err) { console.log("agent caught:", err.status); }
`,
    );
    const r = await hookedNode(fx.dir, [file], env(out));
    expect(r.stdout).toContain("agent caught: 400");
    expect(r.stderr).toMatch(
      /^blackbox: .*stopped on a stop sequence.*Remove stop_sequences from the request\. No cassette was written to .*stopseq\.json\.\n$/s,
    );
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});

describe("a replay divergence in a wrapped tool shows the agent's frames, none from inside the hook", () => {
  for (const kind of ["mjs", "cjs"] as const) {
    it(`${kind} tools module`, async () => {
      const dir = join(fx.dir, `tool-div-${kind}`);
      const { mkdirSync } = await import("node:fs");
      mkdirSync(dir);
      writeFileSync(
        join(dir, `tools.${kind}`),
        kind === "mjs"
          ? 'export async function get_weather({ city }) { return { city, sky: "sunny" }; }\n'
          : 'exports.get_weather = async ({ city }) => ({ city, sky: "sunny" });\n',
      );
      writeFileSync(
        join(dir, "blackbox.config.mjs"),
        `export default { tools: [{ module: "./tools.${kind}", exports: ["get_weather"] }] };\n`,
      );
      const load =
        kind === "mjs"
          ? 'import { get_weather } from "./tools.mjs";'
          : 'import { createRequire } from "node:module";\nconst { get_weather } = createRequire(import.meta.url)("./tools.cjs");';
      writeFileSync(
        join(dir, "agent.mjs"),
        `${load}
import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic({ maxRetries: 0 });
const first = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "weather?" }] });
const use = first.content.find((b) => b.type === "tool_use");
const city = process.env.CITY ?? use.input.city;
await get_weather({ city });
console.log("agent done");
`,
      );
      const out = join(dir, "run.json");
      fx.fake.enqueue({ json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }) });
      const recorded = await hookedNode(dir, ["agent.mjs"], env(out));
      expect(recorded.stdout).toContain("agent done");
      const r = await hookedNode(
        dir,
        ["agent.mjs"],
        { ...env(out), BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out, CITY: "Porto" },
        true,
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/the wrapped tool "get_weather"/);
      expect(r.stderr).toContain("Porto");
      const frames = r.stderr.split("\n").filter((l) => /^\s+at .*:\d+:\d+\)?( \{)?$/.test(l)); // the last frame ends " {" when the error has properties
      expect(frames.length).toBeGreaterThan(0); // the agent's own call site is there ...
      expect(frames[0]).toContain(join(dir, "agent.mjs"));
      expect(r.stderr).not.toContain("/dist/"); // ... and nothing from inside the hook (frames or source line)
      expect(r.stderr).not.toContain("register-bundle");
    });
  }
});

describe("SIGHUP beside a library that re-raises it once its listener is the last (signal-exit's way)", () => {
  it("the run ends: a run_failed cassette, exit code 129", async () => {
    const out = join(fx.dir, "hup-lib.json");
    fx.fake.enqueue({ json: anthropicMessage({ text: "one" }) });
    const file = agent(
      "hup-lib",
      `import Anthropic from "@anthropic-ai/sdk";
const mine = () => { if (process.listeners("SIGHUP").length === 1) { process.removeListener("SIGHUP", mine); process.kill(process.pid, "SIGHUP"); } };
process.on("SIGHUP", mine);
await new Anthropic({ maxRetries: 0 }).messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "first" }] });
process.kill(process.pid, "SIGHUP");
await new Promise((r) => setTimeout(r, 3000));
console.log("still alive");
`,
    );
    const r = await hookedNode(fx.dir, [file], env(out));
    expect(r.stdout).not.toContain("still alive");
    expect(r.signal ?? r.code).toBe("SIGHUP");
    const trace = JSON.parse(readFileSync(out, "utf8"));
    expect(trace.steps.at(-1).payload).toEqual({
      event: "run_failed",
      status: "error",
      reason: "process_exit",
      exitCode: 129,
    });
  });
});

describe("a process refused the cassette's claim says so at its end, and nothing else is guessed", () => {
  it("replay while another process holds the claim", async () => {
    const out = join(fx.dir, "claimed.json");
    fx.fake.enqueue({ json: anthropicMessage({ text: "hi" }) });
    const file = agent(
      "claim-agent",
      `import Anthropic from "@anthropic-ai/sdk";
try { console.log((await new Anthropic({ maxRetries: 0 }).messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })).content[0].text); }
catch (err) { console.log("agent saw", err.status); }
`,
    );
    expect((await hookedNode(fx.dir, [file], env(out))).code).toBe(0);
    const { spawn } = await import("node:child_process");
    const { ROOT } = await import("../helpers/child.js");
    const holder = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { claimCassette } = await import(${JSON.stringify(join(ROOT, "dist", "process", "claim.js"))}); claimCassette(${JSON.stringify(out)}); console.log("held"); setTimeout(() => {}, 20000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, BLACKBOX_RUN: "" } },
    );
    try {
      await new Promise<void>((ok) => holder.stdout!.on("data", (d) => String(d).includes("held") && ok()));
      const r = await hookedNode(
        fx.dir,
        [file],
        { ...env(out), BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out },
        true,
      );
      expect(r.stdout).toBe("agent saw 400\n");
      expect(r.stderr).toMatch(
        /^blackbox: two processes are making model or tool calls under one cassette \(.*claimed\.json\): process \d+ already did/m,
      );
      expect(r.stderr).not.toContain("made no model or tool call");
      expect(r.code).toBe(1);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("an .mjs config importing a module of its own, with no default export, says so", async () => {
    const dir = join(fx.dir, "nodefault-mjs");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir);
    writeFileSync(join(dir, "names.mjs"), 'export const names = ["x"];\n');
    writeFileSync(
      join(dir, "blackbox.config.mjs"),
      'import { names } from "./names.mjs";\nexport const config = { tools: names };\n',
    );
    writeFileSync(join(dir, "agent.mjs"), 'console.log("ran");\n');
    const r = await hookedNode(dir, ["agent.mjs"], env(join(dir, "out.json")));
    expect(r.stderr).toContain("the config has no default export (it exports config)");
    expect(r.code).toBe(2);
  });
});

describe("a stale lock of a process killed in its own pid namespace", () => {
  it("is taken over once nothing is left in that namespace", async () => {
    const out = join(fx.dir, "ns-stale.json");
    fx.fake.enqueue({ json: anthropicMessage({ text: "one" }) }, { json: anthropicMessage({ text: "two" }) });
    const file = agent(
      "ns-sleeper",
      `import Anthropic from "@anthropic-ai/sdk";
const r = await new Anthropic({ maxRetries: 0 }).messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
console.log("got", r.content[0].text);
if (process.env.SLEEP) await new Promise((r) => setTimeout(r, 20000));
`,
    );
    const { runProcess } = await import("../helpers/child.js");
    const { REGISTER } = await import("./zeroCodeHelpers.js");
    const killed = await runProcess(
      "timeout",
      [
        "-s",
        "KILL",
        "3",
        "unshare",
        "-p",
        "-f",
        "--kill-child",
        "--mount-proc",
        process.execPath,
        "--import",
        REGISTER,
        file,
      ],
      {
        cwd: fx.dir,
        env: { ...env(out), SLEEP: "1" },
      },
    );
    expect(killed.stdout).toContain("got one");
    const again = await hookedNode(fx.dir, [file], env(out));
    const { readlinkSync } = await import("node:fs");
    if (readlinkSync("/proc/self/ns/pid") !== "pid:[4026531836]") {
      // run from a nested pid namespace (a container): the killed one may be above it, out of sight, so its lock stays
      expect(again.stderr).toContain("two processes are making model or tool calls under one cassette");
      return;
    }
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain("got two");
    expect(again.code).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).steps.at(-1).payload.event).toBe("run_completed");
  });
});

describe("an app that reloads on SIGHUP and goes on", () => {
  it("its recording ends at the SIGHUP; a later call is refused, saying so", async () => {
    const out = join(fx.dir, "reload.json");
    fx.fake.enqueue({ json: anthropicMessage({ text: "one" }) });
    const file = agent(
      "reload",
      `import Anthropic from "@anthropic-ai/sdk";
process.on("SIGHUP", () => console.log("reloaded"));
const client = new Anthropic({ maxRetries: 0 });
const ask = (content) => client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content }] });
await ask("first");
process.kill(process.pid, "SIGHUP");
await new Promise((r) => setTimeout(r, 50));
try { await ask("second"); } catch (err) { console.log("second:", err.message); }
`,
    );
    const r = await hookedNode(fx.dir, [file], env(out));
    expect(r.stdout).toContain("reloaded\n");
    expect(r.stdout).toContain(
      "second: 400 [blackbox] a model call after the run ended on SIGHUP: the cassette was finished then, so this call is not recorded or replayed.",
    );
    expect(JSON.parse(readFileSync(out, "utf8")).steps.at(-1).payload).toEqual({
      event: "run_failed",
      status: "error",
      reason: "process_exit",
      exitCode: 129,
    });
  });
});

describe("fourth review: the guard's corner cases and a SIGHUP before the first call", () => {
  const server = async (host: string) => {
    const { createServer } = await import("node:http");
    const seen: string[] = [];
    const s = createServer((q, res) => {
      seen.push(`${q.method} ${q.url} ${q.socket.remotePort}`);
      res.setHeader("content-type", "application/json");
      res.end("{}");
    }).listen(0, host);
    await new Promise((ok) => s.once("listening", ok));
    return { seen, port: (s.address() as { port: number }).port, close: () => s.close() };
  };
  const sender = (host: string) => `import http from "node:http";
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const send = (o, body) => new Promise((done) => {
  const req = http.request({ agent, host: ${JSON.stringify(host)}, port: Number(process.env.PORT), ...o });
  req.on("error", (e) => { console.log("saw:", e.message.slice(0, 60)); done(); });
  req.on("response", (res) => { res.resume(); res.on("end", () => { console.log("got", res.statusCode); done(); }); });
  req.end(body);
});
if (process.env.FIRST) await send({ method: "GET", path: "/health", headers: { host: "status.example" } });
await send({ method: "POST", path: "/v1/messages", setHost: process.env.NO_HOST ? false : true, headers: { "content-type": "application/json" } }, "{}");
agent.destroy();
`;

  it("IPv6 base URL: a socket to the provider's address under another Host header is not kept for the model call", async () => {
    const s = await server("::1");
    try {
      const file = agent("ipv6", sender("::1"));
      const r = await hookedNode(fx.dir, [file], {
        ...env(join(fx.dir, "ipv6.json")),
        ANTHROPIC_BASE_URL: `http://[::1]:${s.port}`,
        PORT: String(s.port),
        FIRST: "1",
      });
      expect(r.stdout).toMatch(/^got 200\nsaw: a model call \(POST http:\/\/\[::1\]:\d+\/v1\/messages\)/);
      expect(s.seen.map((l) => l.split(" ").slice(0, 2).join(" "))).toEqual(["GET /health"]);
    } finally {
      s.close();
    }
  });

  it("a request with no Host header (so no port) to the provider's host is still stopped", async () => {
    const s = await server("127.0.0.1");
    try {
      const file = agent("nohost", sender("127.0.0.1"));
      const r = await hookedNode(fx.dir, [file], {
        ...env(join(fx.dir, "nohost.json")),
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${s.port}`,
        PORT: String(s.port),
        NO_HOST: "1",
      });
      expect(r.stdout).toMatch(/^saw: a model call \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/messages\)/);
      expect(r.stderr).toMatch(
        /^blackbox: a model call \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/messages\) went around Blackbox/m,
      );
      expect(s.seen).toEqual([]);
    } finally {
      s.close();
    }
  });

  it("an app that reloads on SIGHUP before its first call: the call is refused naming the signal, not sent live", async () => {
    const seen = fx.fake.requests.length;
    const file = agent(
      "early-hup",
      `import Anthropic from "@anthropic-ai/sdk";
process.on("SIGHUP", () => {});
process.kill(process.pid, "SIGHUP");
await new Promise((r) => setTimeout(r, 50));
try { await new Anthropic({ maxRetries: 0 }).messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }); console.log("sent live"); }
catch (err) { console.log("refused:", err.message.slice(0, 80)); }
`,
    );
    const r = await hookedNode(fx.dir, [file], env(join(fx.dir, "early-hup.json")));
    expect(r.stdout).toMatch(/^refused: 400 \[blackbox\] a model call after the run ended on SIGHUP: the cassette/);
    expect(fx.fake.requests.length).toBe(seen);
  });
});

describe("an SDK's model call to a base URL Blackbox was not told of (set in code, no env, no config)", () => {
  // the fake provider, named in the agent's own code only: the door would have handed the call on
  const strayAgent = (sdk: "openai" | "anthropic") =>
    sdk === "openai"
      ? `import OpenAI from "openai";
const client = new OpenAI({ apiKey: "sk-stray-0123456789", baseURL: process.env.GATEWAY + "/v1", maxRetries: 0 });
try { const r = await client.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] }); console.log("answer:", r.choices[0].message.content); }
catch (err) { console.log("refused:", err.message); }
`
      : `import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic({ apiKey: "sk-ant-stray-0123456789", baseURL: process.env.GATEWAY + "/gw", maxRetries: 0 });
try { const r = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }); console.log("answer:", r.content[0].text); }
catch (err) { console.log("refused:", err.message); }
`;
  const stray = (mode: "record" | "replay", out: string) => ({
    GATEWAY: fx.fake.url,
    ANTHROPIC_BASE_URL: undefined,
    OPENAI_BASE_URL: undefined,
    BLACKBOX_MODE: mode,
    ...(mode === "record" ? { BLACKBOX_OUT: out } : { BLACKBOX_CASSETTE: out }),
  });

  it.each([
    ["openai", "openai 6.49.0", "/v1", "OPENAI_BASE_URL", "providers: { openai: "],
    ["anthropic", "@anthropic-ai/sdk 1.14.0", "/gw", "ANTHROPIC_BASE_URL", "providers: { anthropic: "],
  ] as const)(
    "record, %s: stopped before it is sent, named with the base URL to add, no cassette",
    async (sdk, name, path, envName, config) => {
      const out = join(fx.dir, `stray-${sdk}.json`);
      const seen = fx.fake.requests.length;
      const r = await hookedNode(fx.dir, [agent(`stray-${sdk}`, strayAgent(sdk))], stray("record", out));
      const base = `${fx.fake.url}${path}`;
      expect(r.stdout).toContain(
        `refused: 400 [blackbox] a model call of ${name} went to ${base}, which is not a provider base URL Blackbox knows`,
      );
      expect(r.stderr).toContain(
        `would have gone around the recording; it was stopped before it left the process. Name that base URL: run with ${envName}=${base}, or add ${config}["${base}"] } to blackbox.config.ts.`,
      );
      expect(r.code).toBe(1);
      expect(existsSync(out)).toBe(false);
      expect(fx.fake.requests.length).toBe(seen);
    },
  );

  // openai names its client class in the user-agent: a subclass, or a bundle that renamed the class, sends another name
  it.each([
    ["a subclass", "class MyOpenAI extends OpenAI {}", "MyOpenAI"],
    ["a class a bundler renamed", "const t = class extends OpenAI {}", "t"],
  ])(
    "record, openai through %s: still known as an SDK (its x-stainless headers), stopped",
    async (_what, decl, name) => {
      const out = join(fx.dir, `stray-${name}.json`);
      const seen = fx.fake.requests.length;
      const code = strayAgent("openai").replace("const client = new OpenAI(", `${decl}\nconst client = new ${name}(`);
      const r = await hookedNode(fx.dir, [agent(`stray-${name}`, code)], stray("record", out));
      const base = `${fx.fake.url}/v1`;
      expect(r.stdout).toContain(
        `refused: 400 [blackbox] a model call of an SDK client (user-agent "${name}/JS 6.49.0", package version "6.49.0") went to ${base}, which is not a provider base URL Blackbox knows`,
      );
      expect(r.code).toBe(1);
      expect(existsSync(out)).toBe(false);
      expect(fx.fake.requests.length).toBe(seen);
    },
  );

  it("replay: stopped rather than sent to the network, and the run fails", async () => {
    const seen = fx.fake.requests.length;
    const r = await hookedNode(
      fx.dir,
      [agent("stray-replay", strayAgent("openai"))],
      stray("replay", join(ROOT, "examples", "zero-code", "runs", "trip.json")),
    );
    expect(r.stdout).toContain("refused: 400 [blackbox] a model call of openai");
    expect(r.stdout).toContain("so it would have gone to the network, which a replay never does");
    expect(r.code).not.toBe(0);
    expect(fx.fake.requests.length).toBe(seen);
  });

  it("named by the env variable it is the same call, recorded", async () => {
    const out = join(fx.dir, "stray-named.json");
    fx.fake.enqueue({ json: openaiCompletion({ text: "Hello." }) });
    const r = await hookedNode(fx.dir, [agent("stray-named", strayAgent("openai"))], {
      ...stray("record", out),
      OPENAI_BASE_URL: `${fx.fake.url}/v1`,
    });
    expect(r.stdout).toBe("answer: Hello.\n");
    expect(r.code).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  // AzureOpenAI names itself AzureOpenAI/JS and sends to <endpoint>/openai/deployments/<model>/chat/completions?api-version=...
  const azureAgent = `import { AzureOpenAI } from "openai";
const client = new AzureOpenAI({ apiKey: "az-stray-0123456789", endpoint: process.env.GATEWAY, apiVersion: "2024-10-21", maxRetries: 0 });
try { const r = await client.chat.completions.create({ model: "gpt4", messages: [{ role: "user", content: "hi" }] }); console.log("answer:", r.choices[0].message.content); }
catch (err) { console.log("refused:", err.message); }
`;

  it("an AzureOpenAI client's endpoint: stopped, named by the client's base URL (<endpoint>/openai), which then records", async () => {
    const seen = fx.fake.requests.length;
    const out = join(fx.dir, "stray-azure.json");
    const file = agent("stray-azure", azureAgent);
    const r = await hookedNode(fx.dir, [file], stray("record", out));
    const base = `${fx.fake.url}/openai`;
    expect(r.stdout).toContain(
      `refused: 400 [blackbox] a model call of openai 6.49.0 (AzureOpenAI) went to ${base}, which is not a provider base URL Blackbox knows`,
    );
    // OPENAI_BASE_URL is not offered: AzureOpenAI reads it as its baseURL, and throws with an endpoint next to it
    expect(r.stderr).toContain(
      `Name that base URL: add providers: { openai: ["${base}"] } to blackbox.config.ts (not OPENAI_BASE_URL`,
    );
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(fx.fake.requests.length).toBe(seen);

    const { mkdirSync } = await import("node:fs");
    const dir = join(fx.dir, "azure-named");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "blackbox.config.mjs"),
      `export default { providers: { openai: [${JSON.stringify(base)}] } };\n`,
    );
    writeFileSync(join(dir, "agent.mjs"), azureAgent);
    fx.fake.enqueue({ json: openaiCompletion({ text: "Hello." }) });
    const named = await hookedNode(dir, ["agent.mjs"], stray("record", join(dir, "named.json")));
    expect(named.stdout).toBe("answer: Hello.\n");
    expect(named.code).toBe(0);
    expect(existsSync(join(dir, "named.json"))).toBe(true);
  });

  it("the Responses API to a base URL no route names: stopped as chat completions are, named with the base URL and the config's openai entry", async () => {
    const seen = fx.fake.requests.length;
    const file = agent(
      "stray-responses",
      `import OpenAI from "openai";
const client = new OpenAI({ apiKey: "sk-stray-0123456789", baseURL: process.env.GATEWAY + "/v1", maxRetries: 0 });
try { await client.responses.create({ model: "gpt-4.1", input: "hi" }); console.log("answered"); }
catch (err) { console.log("refused:", err.message); }
`,
    );
    const r = await hookedNode(
      fx.dir,
      [file],
      stray("replay", join(ROOT, "examples", "zero-code", "runs", "trip.json")),
    );
    const base = `${fx.fake.url}/v1`;
    expect(r.stdout).toContain(
      `refused: 400 [blackbox] a model call of openai 6.49.0 went to ${base}, which is not a provider base URL Blackbox knows (the SDK's default, OPENAI_BASE_URL, or the config's providers), so it would have gone to the network, which a replay never does; it was stopped before it left the process. ` +
        `Name that base URL: run with OPENAI_BASE_URL=${base}, or add providers: { openai: ["${base}"] } to blackbox.config.ts.`,
    );
    expect(r.code).not.toBe(0);
    expect(fx.fake.requests.length).toBe(seen);
  });

  it("the app's own POST to a path like a model endpoint, not from an SDK, passes on untouched", async () => {
    const file = agent(
      "own-post",
      `const res = await fetch(process.env.GATEWAY + "/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
console.log("status:", res.status);
`,
    );
    const seen = fx.fake.requests.length;
    const r = await hookedNode(fx.dir, [file], stray("record", join(fx.dir, "own-post.json")));
    expect(r.stdout).toBe("status: 500\n"); // the fake's answer to an unqueued request: it got there
    expect(fx.fake.requests.length).toBe(seen + 1);
  });
});
