/**
 * An attempt the SDK gave up on (its timeout) while the session had not answered it yet: the
 * SDK's retry comes while the first attempt is still on its way, and must be served, not
 * refused as a second model call running beside the first ("overlapping model calls"). Two
 * places the first attempt can still be when the retry comes, each made to happen, not left
 * to a loaded machine: waiting for the cassette writer the register hook loads at the first
 * call (src/store/lazy.ts), and queued below the dispatcher door (a dispatcher with a
 * connection limit) where the abort reaches it only once it is sent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, libraryPorts, publicSession } from "../../src/blackbox.js";
import { BlackboxDispatcher, installDispatcher } from "../../src/interception/dispatcher/door.js";
import { existingDispatcher } from "../../src/interception/dispatcher/slot.js";
import type { DispatcherLike } from "../../src/interception/dispatcher/forward.js";
import { loadTrace } from "../../src/store/index.js";
import { faultOnFirstAttempt, startFaultyProvider, type FaultyProvider } from "../helpers/faultyProvider.js";
import { converse, SLOW_TIMEOUT_MS, type ProviderName } from "./faultsAgent.js";

let faulty: FaultyProvider;
let dir: string;
beforeAll(async () => {
  faulty = await startFaultyProvider({ plan: faultOnFirstAttempt });
  dir = mkdtempSync(join(tmpdir(), "bb-abandoned-"));
});
afterAll(async () => {
  await faulty?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The SDK's per-attempt timeout: the first attempt is held past it; the retry is answered well within it. */
const TIMEOUT_MS = SLOW_TIMEOUT_MS;
let runs = 0;
const baseUrl = (p: ProviderName) => (p === "openai" ? faulty.openaiUrl : faulty.anthropicUrl);

/** What the recording wrote: the model outputs' texts. */
async function recordedTexts(out: string): Promise<string[]> {
  const trace = await loadTrace(out);
  return trace.steps.filter((s) => s.type === "model_output").map((s) => (s.payload as { text: string }).text);
}

/**
 * The hook's door (bb.fetch settles only when the session answers, so the SDK's retry cannot come before: its
 * calls are one after the other by themselves).
 */
describe("dispatcher door: a retry that comes while the attempt the SDK gave up on waits for the cassette writer", () => {
  for (const [provider, stream] of [
    ["anthropic", false],
    ["openai", true],
  ] as const) {
    it(`${provider}${stream ? ", streamed" : ""}: the retry is served, the attempt given up on is not sent`, async () => {
      const run = `abw${++runs}`;
      const out = join(dir, `${run}.json`);
      // the writer loads until the retry comes (the hook loads it at the first call: under load, past the timeout)
      let loaded = false;
      let release!: () => void;
      const writer = new Promise<void>((r) => (release = r)).then(() => void (loaded = true));
      let asked = 0;
      const ports = {
        ...libraryPorts(),
        writerReady: () => {
          if (loaded) return undefined;
          if (++asked === 2) release();
          return writer;
        },
      };
      const engine = createSession(
        { mode: "record", out, providers: { anthropic: [faulty.anthropicUrl], openai: [faulty.openaiUrl] } },
        ports,
      );
      const bb = publicSession(engine);
      const undo = await installDispatcher(engine);
      try {
        const text = `${run} one`;
        const outcome = await converse(
          {
            provider,
            stream,
            baseURL: baseUrl(provider),
            timeout: TIMEOUT_MS,
            maxRetries: 2,
          },
          [text],
        );
        expect(outcome).toBe(`ok: echo: ${text}`);
        expect(asked, "the SDK retried").toBeGreaterThanOrEqual(2);
        await bb.finish();
        expect(await recordedTexts(out)).toEqual([`echo: ${text}`]);
        expect(faulty.served.filter((r) => r.text === text).length, "sent upstream once").toBe(1);
      } finally {
        undo();
        engine.dispose();
      }
    });
  }
});

it("dispatcher door: a retry that comes while the attempt given up on is still queued below the door is served", async () => {
  await fetch(faulty.url, { method: "POST", body: "{}" }).then((r) => r.text()); // Node's own dispatcher, made
  const node = existingDispatcher()!;
  // the first request is queued for ever (as below a dispatcher with a connection limit): the abort never reaches it
  let queued = 0;
  const below: DispatcherLike = {
    dispatch: (opts, handler) => (++queued === 1 ? true : node.dispatch(opts, handler)),
  };
  const run = `abq${++runs}`;
  const out = join(dir, `${run}.json`);
  const engine = createSession({ mode: "record", out, providers: { anthropic: [faulty.anthropicUrl] } });
  const bb = publicSession(engine);
  const door = new BlackboxDispatcher(engine, below);
  const throughDoor = ((url: string, init?: RequestInit) =>
    fetch(url, { ...init, dispatcher: door } as RequestInit)) as typeof fetch;
  try {
    const text = `${run} one`;
    const outcome = await converse(
      { provider: "anthropic", stream: false, baseURL: faulty.anthropicUrl, timeout: TIMEOUT_MS, fetch: throughDoor },
      [text],
    );
    expect(outcome).toBe(`ok: echo: ${text}`);
    expect(queued, "the SDK retried").toBeGreaterThanOrEqual(2);
    await bb.finish();
    expect(await recordedTexts(out)).toEqual([`echo: ${text}`]);
  } finally {
    engine.dispose();
  }
});
