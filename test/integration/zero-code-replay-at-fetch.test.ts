/**
 * In replay the hook answers a provider call at the global fetch (replayAtFetch in
 * src/interception/dispatcher/door.ts): Node's fetch and the dispatcher do not run for it, which is
 * about half of a call's cost. Everything else a fetch can be still goes on to Node's fetch
 * and the door in the dispatcher slot: a `Request`, a body that is not a string, an
 * aborted signal, a dispatcher of the app's; and undici's own fetch reaches the door
 * directly. Each way gets the same replayed reply; `response.url` is the request's, as
 * Node's fetch sets it (the SDKs log it).
 */
import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDispatcher } from "../../src/interception/dispatcher/door.js";
import { createSession } from "../../src/blackbox.js";
import { anthropicMessage, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { tempDir } from "./zeroCodeHelpers.js";

const tmp = tempDir();
const cassette = join(tmp.dir, "one-call.json");
const KEY = "sk-ant-at-fetch-0123456789";
const PARAMS = { model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };
let fake: FakeProvider;
let recordedUrl = "";
let recordedBody = "";

/** Calls that went on to Node's own fetch (it is what the hook's guard wraps). */
let nodeFetchCalls = 0;
const nodeFetch = globalThis.fetch;
function countNodeFetch(): () => void {
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => (
    nodeFetchCalls++,
    nodeFetch(input, init)
  )) as typeof fetch;
  return () => void (globalThis.fetch = nodeFetch);
}

/** A replay of the one recorded call, the hook's door installed over the counting fetch; `run` makes the call. */
async function replayed<T>(run: () => Promise<T>): Promise<{ got: T; wentOn: number }> {
  const uncount = countNodeFetch();
  const session = createSession({ mode: "replay", cassette, providers: { anthropic: [fake.anthropicUrl] } });
  const undo = await installDispatcher(session);
  try {
    const before = nodeFetchCalls;
    const got = await run();
    const wentOn = nodeFetchCalls - before;
    await session.finish();
    return { got, wentOn };
  } finally {
    undo();
    uncount();
    session.dispose();
  }
}

const post = (body: BodyInit, extra: RequestInit = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01" },
  body,
  ...extra,
});

beforeAll(async () => {
  fake = await startFakeProvider();
  fake.enqueue({ json: anthropicMessage({ text: "Hello, replayed." }) });
  const session = createSession({ mode: "record", out: cassette, providers: { anthropic: [fake.anthropicUrl] } });
  const undo = await installDispatcher(session);
  try {
    const { data, response } = await new Anthropic({ apiKey: KEY, baseURL: fake.anthropicUrl, maxRetries: 0 }).messages
      .create(PARAMS)
      .withResponse();
    expect(data.content).toEqual([{ type: "text", text: "Hello, replayed." }]);
    recordedUrl = response.url;
    await session.finish();
  } finally {
    undo();
    session.dispose();
  }
  expect(recordedUrl).toBe(`${fake.anthropicUrl}/v1/messages`);
  recordedBody = JSON.stringify(fake.requests[0]!.body);
  expect(JSON.parse(readFileSync(cassette, "utf8")).steps).toHaveLength(3);
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

test("the SDK's call is answered at the global fetch: Node's fetch never runs, the reply and its url are as recorded", async () => {
  const { got, wentOn } = await replayed(() =>
    new Anthropic({ apiKey: "sk-ant-placeholder", baseURL: fake.anthropicUrl, maxRetries: 0 }).messages
      .create(PARAMS)
      .withResponse(),
  );
  expect(wentOn).toBe(0);
  expect(got.data.content).toEqual([{ type: "text", text: "Hello, replayed." }]);
  expect(got.response.url).toBe(recordedUrl);
  expect(got.response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(fake.requests).toHaveLength(1); // nothing reached the provider
});

test("a Request, a byte body, and undici's own fetch go on to the door, with the same reply", async () => {
  const text = async (res: Response | Awaited<ReturnType<typeof undiciFetch>>) => ({
    url: res.url,
    json: await res.json(),
  });
  const asRequest = await replayed(async () => text(await fetch(new Request(recordedUrl, post(recordedBody)))));
  const asBytes = await replayed(async () =>
    text(await fetch(recordedUrl, post(new TextEncoder().encode(recordedBody)))),
  );
  const viaUndici = await replayed(async () =>
    text(await undiciFetch(recordedUrl, post(recordedBody) as Parameters<typeof undiciFetch>[1])),
  );
  const direct = await replayed(async () => text(await fetch(recordedUrl, post(recordedBody))));
  expect([asRequest.wentOn, asBytes.wentOn, viaUndici.wentOn, direct.wentOn]).toEqual([1, 1, 0, 0]);
  for (const r of [asRequest, asBytes, viaUndici]) expect(r.got).toEqual(direct.got);
  expect(direct.got.url).toBe(recordedUrl);
  expect((direct.got.json as { content: unknown }).content).toEqual([{ type: "text", text: "Hello, replayed." }]);
  expect(fake.requests).toHaveLength(1);
});

test("a fetch given a dispatcher of the app's goes on through it (its code runs in replay too); the call is still replayed", async () => {
  let seen = 0;
  class Counted extends Agent {
    override dispatch(...args: Parameters<Agent["dispatch"]>): boolean {
      seen++;
      return super.dispatch(...args);
    }
  }
  const dispatcher = new Counted();
  const { got, wentOn } = await replayed(async () =>
    (await fetch(recordedUrl, { ...post(recordedBody), dispatcher } as RequestInit)).json(),
  );
  expect(wentOn).toBe(1);
  expect((got as { content: unknown }).content).toEqual([{ type: "text", text: "Hello, replayed." }]);
  expect(seen).toBe(0); // a door over it answered; a replay sends nothing through the app's dispatcher
  await dispatcher.close();
});

test("an aborted signal rejects as Node's fetch rejects it, and the recorded call is still there to replay", async () => {
  const { got } = await replayed(async () => {
    const aborted = await fetch(recordedUrl, post(recordedBody, { signal: AbortSignal.abort() })).then(
      () => "answered",
      (err: Error) => err.name,
    );
    const after = await new Anthropic({
      apiKey: "sk-ant-placeholder",
      baseURL: fake.anthropicUrl,
      maxRetries: 0,
    }).messages.create(PARAMS);
    return { aborted, after: after.content };
  });
  expect(got).toEqual({ aborted: "AbortError", after: [{ type: "text", text: "Hello, replayed." }] });
});

test("a body on a GET is refused as Node's fetch refuses it", async () => {
  const { got } = await replayed(async () => {
    const refused = await fetch(recordedUrl, { body: recordedBody }).then(
      () => "answered",
      (err: Error) => `${err.name}: ${err.message}`,
    );
    await new Anthropic({ apiKey: "sk-ant-placeholder", baseURL: fake.anthropicUrl, maxRetries: 0 }).messages.create(
      PARAMS,
    );
    return refused;
  });
  expect(got).toMatch(/^TypeError: .*(GET|HEAD).*body/i);
});

test("a signal that aborts during the call, or before the body is read, fails it as Node's fetch (and the door) does; a clone keeps the url", async () => {
  const settle = (p: Promise<unknown>) =>
    p.then(
      () => "answered",
      (err: Error) => err.name,
    );
  const { got, wentOn } = await replayed(async () => {
    const during = new AbortController();
    const pending = fetch(recordedUrl, post(recordedBody, { signal: during.signal }));
    during.abort();
    const rejected = await settle(pending);
    return { rejected };
  });
  expect(wentOn).toBe(0);
  expect(got).toEqual({ rejected: "AbortError" });

  const body = await replayed(async () => {
    const after = new AbortController();
    const res = await fetch(recordedUrl, post(recordedBody, { signal: after.signal }));
    const cloneUrl = res.clone().url;
    after.abort();
    return { cloneUrl, read: await settle(res.json()) };
  });
  expect(body.wentOn).toBe(0);
  expect(body.got).toEqual({ cloneUrl: recordedUrl, read: "AbortError" });

  // read before the abort: whole, and no listener is left on a signal kept for the run
  const kept = await replayed(async () => {
    const run = new AbortController();
    const res = await fetch(recordedUrl, post(recordedBody, { signal: run.signal }));
    const json = (await res.json()) as { content: unknown };
    run.abort();
    return { content: json.content, listeners: getEventListeners(run.signal, "abort").length };
  });
  expect(kept.got).toEqual({ content: [{ type: "text", text: "Hello, replayed." }], listeners: 0 });
  expect(fake.requests).toHaveLength(1);
});
