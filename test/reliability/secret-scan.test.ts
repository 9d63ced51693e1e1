/**
 * Secrets. The default redaction rules write a key that reaches a payload as a placeholder;
 * with them off, recording refuses the literal API key (from the request headers or the
 * environment) wherever it appears, saying where; verify flags realistic credentials
 * in user data and leaves ordinary text about toolu_ or usage alone; and the recording
 * scenarios of the suite, run into one folder, leave no key, no auth header value and
 * no provider id in any cassette. (secretScan.global.ts scans the whole suite's output
 * the same way after every run.)
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blackbox, loadTrace, SecretLeakError, saveTrace, verifyTrace } from "../../src/index.js";
import { TraceBuilder } from "../../src/trace/builder.js";
import { kits, type Kit } from "../helpers/agents.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { geminiKit } from "../helpers/geminiAgent.js";
import { scanCassettes, TEST_KEYS } from "./secretScan.js";

let fake: FakeProvider;
const dir = mkdtempSync(join(tmpdir(), "bbx-secrets-"));
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());

const everyKit = [...kits, geminiKit];
const keyOf = (kit: Kit) => TEST_KEYS[kit.name === "anthropic" ? 0 : kit.name === "gemini" ? 2 : 1]!;
const url = (kit: Kit) =>
  kit.name === "anthropic" ? fake.anthropicUrl : kit.name === "gemini" ? fake.geminiUrl : fake.openaiUrl;
const REAL_LOOKING = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2".repeat(2);

async function record(
  kit: Kit,
  name: string,
  o: {
    task?: string;
    input?: unknown;
    result?: unknown;
    system?: string;
    stream?: boolean;
    redact?: false | object;
  } = {},
) {
  const out = join(dir, `${kit.name}-${name}.json`);
  const toolCall = { toolCalls: [{ name: "get_weather", input: o.input ?? { city: "Lisbon" } }] };
  fake.enqueue(
    o.stream ? kit.streamReply(toolCall) : kit.reply(toolCall),
    o.stream ? kit.streamReply({ text: "Sunny." }) : kit.reply({ text: "Sunny." }),
  );
  // the refusals below are what guards a key no redaction rule covers: the default rules off
  const bb = blackbox({ mode: "record", out, redact: o.redact ?? { defaults: false } });
  const get_weather = async () => o.result ?? { forecast: "sunny" };
  const answer = await kit.run(kit.client(bb.fetch, url(kit)), bb.tools({ get_weather }), {
    task: o.task ?? "Weather in Lisbon?",
    system: o.system,
    stream: o.stream,
  });
  const error = await bb.finish().then(
    () => undefined,
    (e: Error) => e,
  );
  return { out, answer, error };
}

describe.each(everyKit)(
  "%s: with the default redaction off, recording refuses the literal API key wherever it appears",
  (kit) => {
    const cases: Array<[string, Parameters<typeof record>[2], RegExp]> = [
      ["in the user's message", { task: `my key is ${keyOf(kit)}` }, /steps\[0\]\.payload\.messages\[\d\]\.content/],
      [
        "in a tool input",
        { input: { city: "Lisbon", token: keyOf(kit) } },
        /steps\[1\]\.payload\.calls\[0\]\.toolInput\.token, steps\[2\]\.payload\.toolInput\.token/,
      ],
      ["in a tool result", { result: { echo: `key=${keyOf(kit)}` } }, /steps\[3\]\.payload\.result\.echo/],
      ["in the system prompt", { system: `You may use ${keyOf(kit)}` }, /steps\[0\]\.payload\.systemPrompt/],
    ];
    test.each(cases)("%s", async (_where, o, at) => {
      const r = await record(kit, `leak-${_where.replace(/\W+/g, "-")}`, o);
      expect(r.answer).toBe("Sunny."); // the agent's own run is not disturbed
      expect(r.error).toBeInstanceOf(SecretLeakError);
      expect(r.error!.message).toMatch(
        new RegExp(
          `^refusing to write ${r.out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the cassette would contain the API key \\(at `,
        ),
      );
      expect(r.error!.message, r.error!.message).toMatch(at);
      expect(r.error!.message).toContain(
        "Nothing was written. Keep keys out of prompts, tool inputs and tool results.",
      );
      expect(r.error!.message).not.toContain(keyOf(kit));
      expect(existsSync(r.out)).toBe(false);
    });

    test.each(cases)(
      "with the default rules on, the key %s is written as a placeholder and the run is written",
      async (where, o) => {
        const r = await record(kit, `redacted-${where.replace(/\W+/g, "-")}`, { ...o, redact: {} });
        expect(r.error).toBeUndefined();
        const t = await loadTrace(r.out);
        expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
        const text = JSON.stringify(t);
        expect(text).not.toContain(keyOf(kit));
        const kind = { anthropic: "ANTHROPIC_KEY", openai: "OPENAI_KEY", gemini: "GOOGLE_KEY", bedrock: "AWS_KEY" }[
          kit.name
        ];
        expect(text).toContain(`<${kind}_1>`);
      },
    );

    test("a key only in the environment (not sent) is refused too", async () => {
      const name = {
        anthropic: "ANTHROPIC_API_KEY",
        openai: "OPENAI_API_KEY",
        gemini: "GEMINI_API_KEY",
        bedrock: "AWS_ACCESS_KEY_ID",
      }[kit.name];
      const envKey =
        kit.name === "gemini"
          ? "AIzaSyEnvOnly00000000000000000000000000"
          : `${kit.name === "anthropic" ? "sk-ant" : "sk-proj"}-env-only-0123456789`;
      const saved = process.env[name];
      process.env[name] = envKey;
      try {
        const r = await record(kit, "env", { result: { seen: envKey } });
        expect(r.error).toBeInstanceOf(SecretLeakError);
        expect(r.error!.message).toContain("steps[3].payload.result.seen");
      } finally {
        if (saved === undefined) delete process.env[name];
        else process.env[name] = saved;
      }
    });

    test("a realistic credential that is not the session's key fails verify, so it is not written", async () => {
      const r = await record(kit, "other-key", { result: { found: REAL_LOOKING } });
      expect(r.error!.message).toContain("fails verify");
      expect(r.error!.message).toContain("steps[3].payload.result.found");
      expect(existsSync(r.out)).toBe(false);
    });

    test("ordinary text about toolu_ ids and a usage field is recorded and verifies", async () => {
      const result = {
        note: "the ids look like toolu_01A09q90qw90lq917835lq9 and msg_01abc",
        usage: 42,
        stop_reason: "none",
      };
      const r = await record(kit, "ordinary", { result, task: "Explain toolu_ ids and usage fields" });
      expect(r.error).toBeUndefined();
      const t = await loadTrace(r.out);
      expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
      expect(t.steps[3]!.payload).toMatchObject({ result });
    });
  },
);

test("verify flags sk-ant-, sk-proj- and bearer tokens in user data, saying where", async () => {
  const b = new TraceBuilder({ id: "flags", createdAt: 1 });
  b.append("tool_call", { toolCallId: "call-0", toolName: "read", toolInput: { path: "notes.txt" } }, 2);
  b.append(
    "tool_result",
    {
      toolCallId: "call-0",
      toolName: "read",
      result: {
        a: "sk-ant-api03-" + "abcDEF123_".repeat(3),
        b: REAL_LOOKING,
        c: "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload",
      },
    },
    3,
  );
  b.append("metadata", { event: "run_completed", status: "success", result: "done" }, 4); // a whole run: only the secrets are wrong
  const v = verifyTrace(b.trace);
  expect(v.problems.map((p) => p.path)).toEqual([
    "steps[1].payload.result.a",
    "steps[1].payload.result.b",
    "steps[1].payload.result.c",
  ]);
  for (const p of v.problems)
    expect(p.message).toMatch(
      /^value contains what looks like an API key or bearer token \(.{4,13}\.\.\.\)\. Remove the secret/,
    );
});

describe("the suite's recording scenarios, into one folder, leave no secret", () => {
  test("every provider, plain and streamed, with tools: every cassette scanned, 0 findings", async () => {
    for (const kit of everyKit) {
      for (const stream of [false, true]) {
        const r = await record(kit, `scenario-${stream ? "stream" : "plain"}`, { stream });
        expect(r.error).toBeUndefined();
      }
    }
    const { files, findings } = scanCassettes([dir]);
    // the six scenarios, the three ordinary-text runs and the twelve runs whose key was redacted
    expect(files).toBe(6 + 3 + 12);
    expect(findings).toEqual([]);
    // the keys did reach the provider (these SDK versions send Anthropic's and OpenAI's as a bearer token,
    // Gemini's in x-goog-api-key): the scan is not vacuous
    const sent = fake.requests.map((r) =>
      String(r.headers["x-goog-api-key"] ?? r.headers["x-api-key"] ?? r.headers.authorization),
    );
    for (const key of TEST_KEYS.slice(0, 2)) expect(sent).toContain(`Bearer ${key}`);
    expect(sent).toContain(TEST_KEYS[2]);
  });

  test("the scan finds a planted key, a provider id and an auth header", async () => {
    // outside bb-*/bbx-*: the suite-wide scan must not see these planted leaks
    const plant = mkdtempSync(join(tmpdir(), "planted-leak-"));
    const b = new TraceBuilder({ id: "planted", createdAt: 1 });
    b.append("tool_call", { toolCallId: "toolu_01A09q90qw90lq917835lq9", toolName: "t", toolInput: {} }, 2);
    b.append(
      "metadata",
      { event: "run_completed", status: "success", result: null, authorization: "Bearer x" } as never,
      3,
    );
    await saveTrace(join(plant, "planted.json"), b.trace);
    const k = new TraceBuilder({ id: "key", createdAt: 1 });
    k.append("metadata", { event: "run_completed", status: "success", result: `debug ${TEST_KEYS[0]}` }, 2);
    await saveTrace(join(plant, "key.json"), k.trace);
    const { findings } = scanCassettes([plant]);
    const what = findings.map((f) => `${f.file.endsWith("key.json") ? "key" : "planted"}: ${f.what}`).join("\n");
    expect(what).toContain("key: the literal API key sk-ant-tes...");
    expect(what).toMatch(/planted: steps\[0\]\.payload\.toolCallId: value contains a provider-native id/);
    expect(what).toMatch(
      /planted: steps\[1\]\.payload\.authorization: key "authorization" is an API key name or auth header/,
    );
    expect(readdirSync(plant).sort()).toEqual(["key.json", "planted.json"]);
  });
});

test("a key split across two text blocks of one message is refused too (compare joins them; so does the scan)", async () => {
  const kit = kits.find((k) => k.name === "anthropic")!;
  const key = TEST_KEYS[0]!;
  const out = join(dir, "split-key.json");
  const bb = blackbox({ mode: "record", out });
  fake.enqueue(kit.reply({ text: "Noted." }));
  const client = kit.client(bb.fetch, fake.anthropicUrl) as unknown as import("@anthropic-ai/sdk").default;
  await client.messages.create({
    model: "claude-sonnet-4-6",
    max_tokens: 50,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: `my key is ${key.slice(0, 12)}` },
          { type: "text", text: `${key.slice(12)}, keep it` },
        ],
      },
    ],
  });
  const error = await bb.finish().then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(SecretLeakError);
  expect(error!.message).toContain("the cassette would contain the API key (at steps[0].payload.messages[0].content)");
  expect(existsSync(out)).toBe(false);
});
