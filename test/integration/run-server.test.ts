/**
 * A server process holding 200 conversations at once in one run (docs/conversations.md): one
 * client for the process, a history per session, two turns each, four sessions of every user
 * starting with the same request. Recorded with zero code, replayed with no network at all:
 * every session gets a recorded conversation whole (the same two replies it was given, the
 * second continuing the first), every recorded conversation is used to its end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadRunSync } from "../../src/store/run.js";
import { ROOT, runProcess } from "../helpers/child.js";
import { anthropicMessage, startFakeProvider, type FakeProvider, type FakeRequest } from "../helpers/fakeProvider.js";
import { FANOUT, KEYS } from "./runHelpers.js";

const REGISTER = join(ROOT, "register.mjs");
let fake: FakeProvider;
let dir: string;

/** A reply that names what it answers and is unlike any other (a model's answer to the same words varies). */
function respond(req: FakeRequest) {
  const messages = (req.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const last = JSON.stringify(messages[messages.length - 1]!.content);
  const said = messages.length > 1 ? ` (you said ${JSON.stringify(messages[0]!.content)})` : "";
  const text = `${Math.random().toString(36).slice(2, 10)}: answer to ${last}${said}`;
  return { json: anthropicMessage({ text }), delayMs: Math.floor(Math.random() * 20) };
}

beforeAll(async () => {
  fake = await startFakeProvider({ respond });
  dir = mkdtempSync(join(tmpdir(), "bb-run-server-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const server = (env: Record<string, string | undefined>, offline = false) =>
  runProcess(process.execPath, ["--import", REGISTER, "server.mjs"], {
    cwd: FANOUT,
    env: { ...env, BLACKBOX_RUN: undefined, BLACKBOX_LOCKS: undefined },
    offline,
    timeoutMs: 120_000,
  });

it("200 concurrent conversations: recorded as 200 cassettes, replayed offline, each session whole", async () => {
  const out = join(dir, "chat.json");
  const rec = await server({
    ...KEYS,
    ANTHROPIC_BASE_URL: fake.anthropicUrl,
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: out,
  });
  expect(rec.stderr).toBe("");
  expect(rec.code).toBe(0);
  const recorded = JSON.parse(rec.stdout) as string[][];
  expect(recorded).toHaveLength(200);
  const { index, traces } = loadRunSync(join(dir, "chat"));
  expect(index.conversations).toHaveLength(200);
  // each conversation's second request carries its own first reply (not one given in another conversation)
  for (const t of traces) {
    const [, reply, second] = t.steps.map((s) => s.payload as { text?: string; messages?: unknown[] });
    expect(JSON.stringify(second!.messages![1])).toContain(JSON.stringify(reply!.text).slice(1, -1));
  }
  expect(index.conversations.every((c) => c.modelCalls === 2)).toBe(true);
  expect(index.conversations.filter((c) => c.toldApart.startsWith("the same first request"))).toHaveLength(150);

  const rep = await server({ BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: join(dir, "chat") + "/" }, true);
  expect(rep.stderr).toBe("");
  expect(rep.code).toBe(0);
  const replayed = JSON.parse(rep.stdout) as string[][];
  // sessions of one user that began alike may get each other's conversations; each gets one whole
  const key = (t: string[]) => JSON.stringify(t);
  expect(replayed.map(key).sort()).toEqual(recorded.map(key).sort());
  for (const [hello, first, second] of replayed) {
    expect(first).toContain(`answer to ${JSON.stringify(hello)}`);
    expect(second).toContain(`(you said ${JSON.stringify(hello)})`);
  }
}, 240_000);
