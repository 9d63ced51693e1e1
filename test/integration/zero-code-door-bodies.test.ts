/**
 * The door claims `isMockActive`, so Node's fetch hands it each request body as the
 * caller gave it (src/interception/dispatcher/formBody.ts). Every kind of body must still reach a server
 * byte for byte: on the way past the door (not a provider) and through the session to
 * a provider endpoint (record mode forwards it). FormData is re-encoded with a
 * Content-Type that names its own boundary.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDispatcher } from "../../src/interception/dispatcher/door.js";
import { createSession } from "../../src/blackbox.js";
import { tempDir } from "./zeroCodeHelpers.js";

interface Seen {
  type: string | undefined;
  length: string | undefined;
  body: Buffer;
}

const tmp = tempDir();
let server: Server;
let url = "";
const seen: Seen[] = [];

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    seen.push({ type: req.headers["content-type"], length: req.headers["content-length"], body: await bodyOf(req) });
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  tmp.cleanup();
});

function form(): FormData {
  const fd = new FormData();
  fd.append("purpose", "line one\nline two");
  fd.append("file", new Blob([new Uint8Array([0, 1, 2, 250, 255])], { type: "application/x-bin" }), "data.bin");
  return fd;
}

/** What a server sees for `body` with no door in the way. */
async function plain(body: () => BodyInit): Promise<Seen> {
  await fetch(`${url}/other`, { method: "POST", body: body(), duplex: "half" } as RequestInit);
  return seen.pop()!;
}

const BODIES: Array<[string, () => BodyInit]> = [
  ["string", () => "héllo"],
  ["bytes", () => new Uint8Array([0, 1, 2, 255])],
  ["URLSearchParams", () => new URLSearchParams({ a: "1", b: "x y" })],
  ["Blob", () => new Blob(["blob text"], { type: "text/x-blob" })],
  [
    "ReadableStream",
    () => new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode("streamed")), c.close()) }),
  ],
];

/** The multipart body parsed back by the platform, so a boundary mismatch shows. */
async function parts(s: Seen): Promise<Array<[string, string]>> {
  const parsed = await new Response(new Uint8Array(s.body), { headers: { "content-type": s.type ?? "" } }).formData();
  const out: Array<[string, string]> = [];
  for (const [k, v] of parsed)
    out.push([
      k,
      typeof v === "string"
        ? v
        : `${(v as File).name}:${(v as File).type}:${[...new Uint8Array(await (v as Blob).arrayBuffer())]}`,
    ]);
  return out;
}

test("past the door, every body kind reaches the server as without the door; FormData with a matching boundary", async () => {
  const expected = [];
  for (const [, body] of BODIES) expected.push(await plain(body));
  const session = createSession({ mode: "record", out: join(tmp.dir, "never.json") });
  const undo = await installDispatcher(session);
  try {
    for (const [i, [name, body]] of BODIES.entries()) {
      await fetch(`${url}/other`, { method: "POST", body: body(), duplex: "half" } as RequestInit);
      const got = seen.pop()!;
      expect({ name, ...got, body: got.body.toString("latin1") }).toEqual({
        name,
        ...expected[i]!,
        body: expected[i]!.body.toString("latin1"),
      });
    }
    await fetch(`${url}/other`, { method: "POST", body: form() });
    const got = seen.pop()!;
    expect(got.length).toBe(String(got.body.byteLength));
    expect(await parts(got)).toEqual([
      ["purpose", "line one\r\nline two"],
      ["file", "data.bin:application/x-bin:0,1,2,250,255"],
    ]);
  } finally {
    undo();
    session.dispose();
  }
});

test("through the session to a provider endpoint, string and FormData bodies arrive whole (record forwards them)", async () => {
  const session = createSession({ mode: "record", out: join(tmp.dir, "never2.json"), providers: { openai: [url] } });
  const undo = await installDispatcher(session);
  try {
    await fetch(`${url}/v1/models`, { method: "POST", body: "plain text" });
    expect(seen.pop()!.body.toString()).toBe("plain text");
    const fd = new FormData();
    fd.append("purpose", "assistants");
    fd.append("file", new Blob(["some notes"], { type: "text/plain" }), "notes.txt");
    await fetch(`${url}/v1/files`, { method: "POST", body: fd });
    expect(await parts(seen.pop()!)).toEqual([
      ["purpose", "assistants"],
      ["file", `notes.txt:text/plain:${[...new TextEncoder().encode("some notes")]}`],
    ]);
  } finally {
    undo();
    session.dispose();
  }
});
