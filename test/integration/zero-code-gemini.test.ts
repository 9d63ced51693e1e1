/**
 * Gemini with no code change: @google/genai (its function-calling loop as Google's guide
 * writes it), the Vercel AI SDK's @ai-sdk/google (generateText, streamText) and the REST API
 * called with fetch and a `?key=` parameter, under `node --import register` and
 * `blackbox record|replay|fork -- ...`, against the fake provider speaking Gemini's wire
 * format (SSE chunks cut every 7 bytes). Each tool loop is recorded with a Google key in the
 * environment and replayed under unshare -n with no GEMINI / GOOGLE key at all: same output
 * (the tool's clock and random reading come from the cassette), the tool not run (its
 * side-effect file absent). No cassette holds the key, the x-goog-api-key header or `key=`.
 * The AI SDK given bb.fetch in code (no hook) is the other door.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { geminiResponse, geminiSSE, type FakeGeminiContent } from "../helpers/geminiWire.js";
import { scanFile } from "../reliability/secretScan.js";
import { ROOT, runProcess } from "../helpers/child.js";
import {
  blackboxCli,
  DONE_LINE,
  hookedNode,
  readCassette,
  SDK_APPS,
  toolNames,
  useZeroCodeFixture,
} from "./zeroCodeHelpers.js";

const APP = join(SDK_APPS, "gemini");
const fx = useZeroCodeFixture("gemini");
const KEY = "AIzaSyZeroCodeGeminiKey000000000000000x";
const NO_KEYS = { GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined, GOOGLE_GENERATIVE_AI_API_KEY: undefined };
const LEAKS = /AIza|x-goog-api-key|key=|usageMetadata|responseId|modelVersion|finishReason/;

const env = (extra: Record<string, string | undefined> = {}) => ({
  ...NO_KEYS,
  GOOGLE_GEMINI_BASE_URL: fx.fake.url,
  GEMINI_API_KEY: KEY,
  GOOGLE_GENERATIVE_AI_API_KEY: KEY,
  ...extra,
});

function queue(streamed: boolean, first: FakeGeminiContent = {}): void {
  const reply = (c: FakeGeminiContent) =>
    streamed ? { sse: geminiSSE(c), chunkSize: 7 } : { json: geminiResponse(c) };
  fx.fake.enqueue(
    reply({ ...first, toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    reply({ text: "Sunny in Lisbon." }),
  );
}

/** A cassette as the secret scan reads it, and what no Gemini cassette may hold. */
function expectClean(cassette: string): void {
  expect(scanFile(cassette, [KEY])).toEqual([]);
  expect(readFileSync(cassette, "utf8")).not.toMatch(LEAKS);
}

async function recorded(
  app: string,
  name: string,
  o: { streamed?: boolean; args?: string[]; first?: FakeGeminiContent; extra?: Record<string, string> } = {},
) {
  queue(o.streamed === true, o.first);
  const cassette = join(fx.dir, `${name}.json`);
  const log = join(fx.dir, `${name}.log`);
  const seen = fx.fake.requests.length;
  const r = await hookedNode(APP, [app, ...(o.args ?? [])], {
    ...env(o.extra),
    TOOL_LOG: log,
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: cassette,
  });
  expect(r.stderr).toBe("");
  expect(r.stdout).toMatch(/^steps: 2, text: Sunny in Lisbon\./);
  expect(r.code).toBe(0);
  expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\n");
  const sent = fx.fake.requests.slice(seen);
  expect(sent).toHaveLength(2);
  const trace = readCassette(cassette);
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
  expectClean(cassette);
  rmSync(log);
  return { cassette, log, stdout: r.stdout, trace, sent };
}

describe("recorded with zero code, replayed offline with no key", () => {
  it.each([
    ["genai.mjs", false],
    ["genai.mjs", true],
    ["ai-sdk.mjs", false],
    ["ai-sdk.mjs", true],
  ] as const)("%s (streamed: %s): a tool loop; the replay sends nothing and runs no tool", async (app, streamed) => {
    const name = `${app.replace(".mjs", "")}-${streamed ? "stream" : "plain"}`;
    const rec = await recorded(app, name, { streamed, args: streamed ? ["stream"] : [] });
    // the key went in the header, as the SDKs send it, and nowhere in the URL
    expect(rec.sent[0]!.headers["x-goog-api-key"]).toBe(KEY);
    expect(rec.sent[0]!.path).toMatch(
      streamed
        ? /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse$/
        : /^\/v1beta\/models\/gemini-2\.5-flash:generateContent$/,
    );
    const input = rec.trace.steps[4]!.payload as any;
    expect(input.model).toBe("gemini-2.5-flash");
    expect(input.systemPrompt).toBe("You plan weekend trips.");
    expect(input.params).toMatchObject({ temperature: 0.2 });
    expect(input.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(input.messages[2].content[0]).toMatchObject({
      type: "tool_result",
      toolCallId: "call-0",
      toolName: "get_weather",
    });
    const seen = fx.fake.requests.length;
    const r = await hookedNode(
      APP,
      [app, ...(streamed ? ["stream"] : [])],
      {
        ...NO_KEYS,
        GOOGLE_GEMINI_BASE_URL: fx.fake.url,
        TOOL_LOG: rec.log,
        BLACKBOX_MODE: "replay",
        BLACKBOX_CASSETTE: rec.cassette,
      },
      true,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(rec.stdout);
    expect(r.code).toBe(0);
    expect(existsSync(rec.log)).toBe(false);
    expect(fx.fake.requests.length).toBe(seen);
  });

  it("the REST API with the key in ?key=: recorded without it, replayed offline with none", async () => {
    const rec = await recorded("rest.mjs", "rest");
    expect(rec.sent[0]!.path).toBe(`/v1beta/models/gemini-2.5-flash:generateContent?key=${KEY}`);
    const r = await hookedNode(
      APP,
      ["rest.mjs"],
      {
        ...NO_KEYS,
        GOOGLE_GEMINI_BASE_URL: fx.fake.url,
        TOOL_LOG: rec.log,
        BLACKBOX_MODE: "replay",
        BLACKBOX_CASSETTE: rec.cassette,
      },
      true,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(rec.stdout);
    expect(existsSync(rec.log)).toBe(false);
  });

  it("a plain recording replays to a streamed run (blackbox replay -- node genai.mjs stream)", async () => {
    const rec = await recorded("genai.mjs", "plain-for-stream");
    const r = await blackboxCli(
      fx.fake,
      APP,
      ["replay", rec.cassette, "--", "node", "genai.mjs", "stream"],
      { ...NO_KEYS, GOOGLE_GEMINI_BASE_URL: fx.fake.url, TOOL_LOG: rec.log },
      true,
    );
    expect(r.stderr).toMatch(DONE_LINE);
    expect(r.stdout).toBe(rec.stdout);
    expect(r.code).toBe(0);
    expect(existsSync(rec.log)).toBe(false);
  });

  it("a changed prompt diverges, naming the path (blackbox replay, offline)", async () => {
    const rec = await recorded("genai.mjs", "diverge");
    const r = await blackboxCli(
      fx.fake,
      APP,
      ["replay", rec.cassette, "--", "node", "genai.mjs"],
      { ...NO_KEYS, GOOGLE_GEMINI_BASE_URL: fx.fake.url, TOOL_LOG: rec.log, PROMPT: "Weather in Porto?" },
      true,
    );
    expect(r.stdout).toMatch(/^failed: .*\[blackbox\] Replay diverged at step 0 \(model_input\)/);
    expect(r.stderr).toContain("at messages[0].content");
    expect(r.stderr).toContain('recorded: "Weather in Lisbon?"');
    expect(r.code).not.toBe(0);
    expect(existsSync(rec.log)).toBe(false);
  });
});

describe("fork --live of a Gemini run", () => {
  it("continues with the provider from the new tool result: the history sent back is the replayed one", async () => {
    const rec = await recorded("genai.mjs", "fork-parent");
    fx.fake.enqueue({ json: geminiResponse({ text: "Rain in Lisbon: take a coat." }) });
    const out = join(fx.dir, "fork-child.json");
    const seen = fx.fake.requests.length;
    const set = { city: "Lisbon", forecast: "rain" };
    const r = await blackboxCli(
      fx.fake,
      APP,
      ["fork", rec.cassette, "--at", "3", "--set", JSON.stringify(set), "--live", "-o", out, "--", "node", "genai.mjs"],
      env({ TOOL_LOG: rec.log }),
    );
    expect(r.stderr).toMatch(DONE_LINE);
    expect(r.stdout).toBe(`steps: 2, text: Rain in Lisbon: take a coat., tools: ${JSON.stringify([set])}\n`);
    expect(r.code).toBe(0);
    expect(existsSync(rec.log)).toBe(false);
    const sent = fx.fake.requests.slice(seen);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers["x-goog-api-key"]).toBe(KEY);
    const contents = (sent[0]!.body as { contents: Array<{ role: string; parts: any[] }> }).contents;
    expect(contents.map((c) => c.role)).toEqual(["user", "model", "user"]);
    expect(contents[1]!.parts).toEqual([{ functionCall: { name: "get_weather", args: { city: "Lisbon" } } }]);
    expect(contents[2]!.parts).toEqual([{ functionResponse: { name: "get_weather", response: { output: set } } }]);
    const child = readCassette(out);
    expect(child.parentId).toBe(rec.trace.id);
    expect(child.steps[3]!.payload).toMatchObject({ result: set });
    expect(child.steps.at(-2)!.payload).toEqual({ type: "final_answer", text: "Rain in Lisbon: take a coat." });
    expectClean(out);
  });

  it("a Gemini 3 run (thought signatures on its function calls) is refused, saying what to do", async () => {
    const rec = await recorded("genai.mjs", "fork-signed", {
      first: { signature: "CiQBjz1rX2Z3xJtYm9uZXlwZW5ueQ==" },
      extra: { MODEL: "gemini-3-pro-preview" },
    });
    // the signature went back to the provider as the agent sent it, and is not in the cassette
    const second = fx.fake.requests.at(-1)!.body as { contents: Array<{ parts: any[] }> };
    expect(second.contents[1]!.parts[0].thoughtSignature).toBe("CiQBjz1rX2Z3xJtYm9uZXlwZW5ueQ==");
    expect(readFileSync(rec.cassette, "utf8")).not.toContain("CiQBjz1r");
    const out = join(fx.dir, "fork-signed-child.json");
    const seen = fx.fake.requests.length;
    const r = await blackboxCli(
      fx.fake,
      APP,
      [
        "fork",
        rec.cassette,
        "--at",
        "3",
        "--set",
        '{"forecast":"rain"}',
        "--live",
        "-o",
        out,
        "--",
        "node",
        "genai.mjs",
      ],
      env({ TOOL_LOG: rec.log, MODEL: "gemini-3-pro-preview" }),
    );
    expect(r.stdout).toContain("[blackbox] fork --live of a thinking-enabled run is refused");
    expect(r.stdout).toContain("thought signatures (Gemini)");
    expect(r.stdout).toContain("Continue the fork with --script instead.");
    expect(r.code).not.toBe(0);
    expect(fx.fake.requests.length).toBe(seen);
    expect(existsSync(out)).toBe(false);
  });
});

describe("fork --script of a Gemini run", () => {
  it("continues from the new tool result with the script's outputs, offline, sending nothing", async () => {
    const rec = await recorded("genai.mjs", "fork-script-parent", { streamed: true, args: ["stream"] });
    const script = join(fx.dir, "fork-script.json");
    writeFileSync(script, JSON.stringify([{ type: "final_answer", text: "Rain: stay home." }]));
    const out = join(fx.dir, "fork-script-child.json");
    const seen = fx.fake.requests.length;
    const r = await blackboxCli(
      fx.fake,
      APP,
      [
        "fork",
        rec.cassette,
        "--at",
        "3",
        "--set",
        '{"forecast":"rain"}',
        "--script",
        script,
        "-o",
        out,
        "--",
        "node",
        "genai.mjs",
        "stream",
      ],
      { ...NO_KEYS, GOOGLE_GEMINI_BASE_URL: fx.fake.url, TOOL_LOG: rec.log },
      true,
    );
    expect(r.stderr).toMatch(DONE_LINE);
    expect(r.stdout).toBe(`steps: 2, text: Rain: stay home., tools: [{"forecast":"rain"}]\n`);
    expect(r.code).toBe(0);
    expect(fx.fake.requests.length).toBe(seen);
    expect(existsSync(rec.log)).toBe(false);
    const child = readCassette(out);
    expect(child.steps.at(-2)!.payload).toEqual({ type: "final_answer", text: "Rain: stay home." });
    expectClean(out);
  });
});

describe("refused by name before anything is sent", () => {
  it("Google Search grounding: the run fails, no cassette, nothing sent", async () => {
    const cassette = join(fx.dir, "grounded.json");
    const seen = fx.fake.requests.length;
    const r = await hookedNode(
      APP,
      [
        "--input-type=module",
        "-e",
        `import { GoogleGenAI } from "@google/genai";
const ai = new GoogleGenAI({});
try { await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "news today?", config: { tools: [{ googleSearch: {} }] } }); }
catch (err) { console.log(JSON.parse(err.message).error.message); }`,
      ],
      { ...env(), BLACKBOX_MODE: "record", BLACKBOX_OUT: cassette },
    );
    expect(r.stdout).toContain(
      `[blackbox] Gemini generateContent: tools[0] is Google's Google Search grounding tool ("googleSearch"), which runs on Google's side`,
    );
    expect(fx.fake.requests.length).toBe(seen);
    expect(existsSync(cassette)).toBe(false);
    expect(r.code).not.toBe(0);
  });
});

describe("the AI SDK given bb.fetch, no hook", () => {
  it.each([false, true])("streamed: %s: recorded, replayed offline with no key, the tool not run", async (streamed) => {
    queue(streamed);
    const name = `in-code-${streamed ? "stream" : "plain"}`;
    const cassette = join(fx.dir, `${name}.json`);
    const log = join(fx.dir, `${name}.log`);
    const args = ["in-code.mjs", ...(streamed ? ["stream"] : [])];
    const pkg = pathToFileURL(join(ROOT, "dist", "index.js")).href;
    const run = (extra: Record<string, string | undefined>, offline = false) =>
      runProcess(process.execPath, args, {
        cwd: APP,
        offline,
        env: { ...env(), BLACKBOX_PKG: pkg, TOOL_LOG: log, ...extra },
      });
    const rec = await run({ BLACKBOX_MODE: "record", BLACKBOX_OUT: cassette });
    expect(rec.stderr).toBe("");
    expect(rec.stdout).toMatch(/^steps: 2, text: Sunny in Lisbon\., tools: \[\{"city":"Lisbon"/);
    expect(readFileSync(log, "utf8")).toBe("get_weather Lisbon\n");
    expect(readCassette(cassette).steps.map((s) => s.type)).toContain("tool_result");
    expectClean(cassette);
    rmSync(log);
    const seen = fx.fake.requests.length;
    // no key at all: bb.fetch in code has no placeholder; the SDK gets one in code as a user would give it
    const rep = await run(
      { ...NO_KEYS, GOOGLE_GENERATIVE_AI_API_KEY: "replay", BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette },
      true,
    );
    expect(rep.stderr).toBe("");
    expect(rep.stdout).toBe(rec.stdout);
    expect(existsSync(log)).toBe(false);
    expect(fx.fake.requests.length).toBe(seen);
  });
});

describe("a base URL named nowhere", () => {
  it("@ai-sdk/google with its baseURL in code: stopped (known by its x-goog-api-key), naming the base URL", async () => {
    const cassette = join(fx.dir, "stray-ai-sdk.json");
    const seen = fx.fake.requests.length;
    const r = await hookedNode(APP, ["ai-sdk.mjs"], {
      ...env({ GOOGLE_GEMINI_BASE_URL: undefined, GATEWAY: fx.fake.url }),
      TOOL_LOG: join(fx.dir, "stray-ai-sdk.log"),
      BLACKBOX_MODE: "record",
      BLACKBOX_OUT: cassette,
    });
    expect(r.stdout).toMatch(
      /^failed: \[blackbox\] a model call of an SDK client \(user-agent "ai\/6\.0\.326 ai-sdk\/provider-utils\/[^"]*"\) went to http:\/\/127\.0\.0\.1:\d+, which is not a provider base URL Blackbox knows/,
    );
    expect(r.stdout).toContain(`run with GOOGLE_GEMINI_BASE_URL=${fx.fake.url}, or add providers: { gemini: [`);
    expect(r.code).toBe(1);
    expect(fx.fake.requests.length).toBe(seen);
    expect(existsSync(cassette)).toBe(false);
  });

  it("@google/genai with httpOptions.baseUrl in code: stopped, naming GOOGLE_GEMINI_BASE_URL and the config's providers", async () => {
    const cassette = join(fx.dir, "stray.json");
    const seen = fx.fake.requests.length;
    const r = await hookedNode(
      APP,
      [
        "--input-type=module",
        "-e",
        `import { GoogleGenAI } from "@google/genai";
const ai = new GoogleGenAI({ httpOptions: { baseUrl: ${JSON.stringify(fx.fake.url)} } });
try { await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }); }
catch (err) { console.log(JSON.parse(err.message).error.message); }`,
      ],
      { ...env({ GOOGLE_GEMINI_BASE_URL: undefined }), BLACKBOX_MODE: "record", BLACKBOX_OUT: cassette },
    );
    expect(r.stdout).toContain(
      `[blackbox] a model call of @google/genai 2.32.0 went to ${fx.fake.url}, which is not a provider base URL Blackbox knows`,
    );
    expect(r.stdout).toContain(
      `run with GOOGLE_GEMINI_BASE_URL=${fx.fake.url}, or add providers: { gemini: [${JSON.stringify(fx.fake.url)}] } to blackbox.config.ts.`,
    );
    expect(fx.fake.requests.length).toBe(seen);
    expect(existsSync(cassette)).toBe(false);
  });
});
