/**
 * The global dispatcher door in-process, with the real session: Node's built-in fetch
 * (through the real Anthropic SDK), undici's own fetch and request, a caller speaking
 * undici's new handler API, request bodies as strings, bytes and async iterables, a
 * gzip-encoded provider reply, pass-through of other origins, and undo.
 */
import { readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import Anthropic from "@anthropic-ai/sdk";
import { fetch as undiciFetch, request as undiciRequest } from "undici";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BlackboxDispatcher, installDispatcher } from "../../src/interception/dispatcher/door.js";
import { createSession } from "../../src/blackbox.js";
import type { Trace } from "../../src/trace/types.js";
import { anthropicMessage } from "../helpers/fakeProvider.js";
import { tempDir } from "./zeroCodeHelpers.js";

const LEGACY = Symbol.for("undici.globalDispatcher.1");
const tmp = tempDir();
const out = join(tmp.dir, "door.json");
let provider: Server;
let other: Server;
let providerUrl = "";
let otherUrl = "";
const seen: { path: string; body: string }[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  provider = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    seen.push({ path: req.url ?? "", body });
    if (req.url === "/v1/models/slow") {
      setTimeout(() => res.end("{}"), 3000).unref();
      return;
    }
    if (req.url === "/v1/messages") {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(JSON.stringify(anthropicMessage({ text: "Hello from gzip." }))));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ echo: body, path: req.url }));
  });
  other = createServer((req, res) => res.end(`other ${req.url}`));
  providerUrl = await listen(provider);
  otherUrl = await listen(other);
});
afterAll(async () => {
  provider.close();
  other.close();
  tmp.cleanup();
});

test("provider calls go through the session, everything else straight on; undo restores the dispatcher", async () => {
  await fetch("data:,");
  const original = (globalThis as Record<symbol, unknown>)[LEGACY];
  const session = createSession({ mode: "record", out, providers: { anthropic: [providerUrl] } });
  const undo = await installDispatcher(session);
  try {
    expect((globalThis as Record<symbol, unknown>)[LEGACY]).toBeInstanceOf(BlackboxDispatcher);

    // The real SDK on the built-in fetch, gzip reply decoded for the session and the SDK.
    const client = new Anthropic({ apiKey: "sk-ant-door-test-0123456789", baseURL: providerUrl });
    const reply = await client.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(reply.content).toEqual([{ type: "text", text: "Hello from gzip." }]);

    // Another origin: passed to the previous dispatcher untouched.
    expect(await (await fetch(`${otherUrl}/x`)).text()).toBe("other /x");
    expect(await (await undiciFetch(`${otherUrl}/y`)).text()).toBe("other /y");

    // A non-model call on the provider origin passes through the session (record mode), with each body form.
    const bodies: unknown[] = [
      "as string",
      Buffer.from("as bytes"),
      (async function* () {
        yield Buffer.from("as ");
        yield new TextEncoder().encode("iterable");
      })(),
    ];
    const door = (globalThis as Record<symbol, unknown>)[LEGACY] as BlackboxDispatcher;
    for (const body of bodies) {
      const got = await new Promise<{ status: number; headers: Record<string, string>; text: string; ended: boolean }>(
        (resolve, reject) => {
          let status = 0;
          let headers: Record<string, string> = {};
          const chunks: Buffer[] = [];
          door.dispatch(
            {
              origin: providerUrl,
              path: "/v1/models/echo",
              method: "POST",
              headers: { "content-type": "text/plain" },
              body,
            },
            {
              onRequestStart: () => {},
              onResponseStart: (_c: unknown, s: number, h: Record<string, string>) =>
                void ((status = s), (headers = h)),
              onResponseData: (_c: unknown, chunk: Buffer) => void chunks.push(chunk),
              onResponseEnd: () => resolve({ status, headers, text: Buffer.concat(chunks).toString(), ended: true }),
              onResponseError: (_c: unknown, err: Error) => reject(err),
            },
          );
        },
      );
      expect(got.status).toBe(200);
      expect(got.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(got.text).echo).toBe(seen.at(-1)!.body);
    }
    expect(seen.slice(-3).map((s) => s.body)).toEqual(["as string", "as bytes", "as iterable"]);

    // undici's own request() API reaches the door too (legacy handler).
    const viaRequest = await undiciRequest(`${providerUrl}/v1/models/req`, { method: "POST", body: "from request" });
    expect(await viaRequest.body.json()).toMatchObject({ echo: "from request" });

    await session.finish();
  } finally {
    undo();
    undo();
    session.dispose();
  }
  expect((globalThis as Record<symbol, unknown>)[LEGACY]).toBe(original);
  const trace = JSON.parse(readFileSync(out, "utf8")) as Trace;
  expect(trace.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
  expect(trace.steps[1]!.payload).toEqual({ type: "final_answer", text: "Hello from gzip." });
  rmSync(out);
});

test("a caller that aborts gets an abort error, and the door stays usable", async () => {
  const session = createSession({ mode: "record", out, providers: { anthropic: [providerUrl] } });
  const undo = await installDispatcher(session);
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user gave up")), 100);
    const started = Date.now();
    await expect(
      fetch(`${providerUrl}/v1/models/slow`, { method: "POST", body: "x", signal: controller.signal }),
    ).rejects.toThrow(/user gave up/);
    expect(Date.now() - started).toBeLessThan(2000);
    const ok = await fetch(`${providerUrl}/v1/models/after`, { method: "POST", body: "y" });
    expect(await ok.json()).toMatchObject({ echo: "y" });
  } finally {
    undo();
    session.dispose();
    rmSync(out, { force: true });
  }
});
