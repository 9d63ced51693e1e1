/**
 * The AWS SDK for JavaScript v3 (`@aws-sdk/client-bedrock-runtime`) does not use fetch on
 * Node: its default request handler, @smithy/node-http-handler's NodeHttp2Handler (the
 * Bedrock runtime client's; NodeHttpHandler for most other clients), sends over
 * `node:http2` (`node:http`), which the global dispatcher never sees and the http guard
 * (httpGuard.ts) only sees for node:http. So, as sdkShims.ts does for the Stainless SDKs,
 * the app's copy of @smithy/node-http-handler (the one each installed AWS client would
 * `require`, found from the same folders) is loaded before the app, and both handler
 * classes' `handle` are replaced: a request to a provider (session.route) is sent with the
 * global fetch instead, into the dispatcher door, as any SDK's call (recorded, refused); a
 * replay hands it to the session at once, as the hook's fetch guard does (no HTTP/2, no
 * undici fetch); any other request (S3, STS, the credential chain) goes the handler's
 * own way as before. The package ships CommonJS only (no `exports`, so an ESM import loads
 * the same file): one patched module serves both. Nothing of the SDK is imported here.
 *
 * A call that still reaches node:http2 (a copy found from neither folder, a handler of the
 * app's own) is stopped at `http2.connect` when it connects to a provider's host: the
 * session fails with the refusal, and nothing is sent (in a replay, no DNS lookup either).
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable } from "node:stream";
import { BlackboxUnsupportedError } from "../errors.js";
import type { ProviderName } from "../providers/types.js";
import type { SessionPort } from "../session/types.js";
import { fetchThroughSession } from "./fetch/door.js";
import { appSdk } from "./sdkShims.js";

/** The AWS clients whose handler package is switched. */
const CLIENTS = ["@aws-sdk/client-bedrock-runtime"];

export type AwsSession = Pick<SessionPort, "mode" | "route" | "handle" | "fail"> & {
  routes: { onProviderHostname(hostname: string): boolean };
};

interface SmithyRequest {
  method: string;
  protocol?: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | string[] | null | undefined>;
  headers: Record<string, string>;
  body?: unknown;
}

type Handle = (request: SmithyRequest, options?: { abortSignal?: unknown }) => Promise<{ response: unknown }>;
interface HandlerClass {
  prototype: { handle: Handle };
}

const PATCHED = Symbol.for("blackbox.awsHandle");
const utf8 = new TextDecoder();

/** As @smithy/util-uri-escape writes a query: encodeURIComponent, and !'()* too. */
const escape = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function urlOf(r: SmithyRequest): string {
  const port = r.port ? `:${r.port}` : "";
  const parts: string[] = [];
  for (const key of Object.keys(r.query ?? {}).sort()) {
    const value = r.query![key];
    if (value === null || value === undefined) parts.push(escape(key));
    else for (const v of Array.isArray(value) ? value : [value]) parts.push(`${escape(key)}=${escape(v)}`);
  }
  return `${r.protocol ?? "https:"}//${r.hostname}${port}${r.path}${parts.length ? `?${parts.join("&")}` : ""}`;
}

async function bodyOf(body: unknown): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  // the SDK's JSON body is a Uint8Array whose string methods warn when called (Buffer.from calls valueOf): decoded
  if (body instanceof Uint8Array) return utf8.decode(body);
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") {
    const chunks: Buffer[] = [];
    for await (const c of body as AsyncIterable<string | Uint8Array>) chunks.push(Buffer.from(c));
    return Buffer.concat(chunks);
  }
  return String(body);
}

/** `request` sent as a fetch into the session, answered as the smithy handler answers. */
async function sendWithFetch(
  session: AwsSession,
  request: SmithyRequest,
  abortSignal: unknown,
): Promise<{ response: unknown }> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers)) {
    const name = k.toLowerCase();
    // HTTP/2 pseudo-headers (`:authority`) and what fetch writes itself
    if (name[0] !== ":" && name !== "host" && name !== "content-length" && name !== "transfer-encoding") headers[k] = v;
  }
  const signal =
    abortSignal instanceof AbortSignal
      ? abortSignal
      : abortSignal && typeof (abortSignal as { aborted?: unknown }).aborted === "boolean"
        ? fromSmithySignal(abortSignal as { aborted: boolean; onabort?: unknown })
        : undefined;
  const url = urlOf(request);
  const init = { method: request.method, headers, body: (await bodyOf(request.body)) as BodyInit | undefined, signal };
  // a replay answers it at once, as the hook's fetch guard does (no undici fetch); anything that may go upstream
  // takes the global fetch, into the dispatcher door, which sends it on below itself
  const res =
    session.mode === "replay"
      ? await fetchThroughSession(session, url, init, session.route(url) as ProviderName | undefined)
      : await fetch(url, init);
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => (out[k] = v));
  return {
    response: {
      statusCode: res.status,
      reason: res.statusText,
      headers: out,
      body: res.body ? Readable.fromWeb(res.body as import("node:stream/web").ReadableStream) : Readable.from([]),
    },
  };
}

/** An AbortSignal that follows an older smithy AbortSignal (`onabort`). */
function fromSmithySignal(s: { aborted: boolean; onabort?: unknown }): AbortSignal {
  const controller = new AbortController();
  if (s.aborted) controller.abort();
  else s.onabort = () => controller.abort();
  return controller.signal;
}

/**
 * The sessions whose doors are installed, latest last: a patched handler and the http2 guard answer to the latest
 * (as the dispatcher door does), whichever session patched the class first. Patches stay while one is installed.
 */
const installed: AwsSession[] = [];
const current = (): AwsSession | undefined => installed[installed.length - 1];
/** The undo of every patch, run when the last session's doors are removed. */
const unpatch: Array<() => void> = [];

function patch(cls: HandlerClass | undefined): void {
  const proto = cls?.prototype as (HandlerClass["prototype"] & { [PATCHED]?: Handle }) | undefined;
  if (!proto || typeof proto.handle !== "function" || proto[PATCHED]) return;
  const original = proto.handle;
  proto[PATCHED] = original;
  proto.handle = function (this: unknown, request, options) {
    const session = current();
    if (!session?.route(urlOf(request))) return original.call(this, request, options);
    return sendWithFetch(session, request, options?.abortSignal);
  };
  unpatch.push(() => {
    proto.handle = original;
    delete proto[PATCHED];
  });
}

/** The host an `http2.connect` authority names. */
function hostOf(authority: unknown): string {
  if (typeof authority === "string") {
    try {
      return new URL(authority).hostname;
    } catch {
      return authority;
    }
  }
  if (authority instanceof URL) return authority.hostname;
  const a = authority as { hostname?: string; host?: string } | undefined;
  return String(a?.hostname ?? a?.host ?? "");
}

/** Stops an HTTP/2 connection to a provider's host: only a call that went around the door opens one. */
function guardHttp2(): void {
  if (unpatch.some((u) => u.name === "unguardHttp2")) return;
  // loaded here, not at import: a process the hook runs with no session never loads it
  const http2 = createRequire(import.meta.url)("node:http2") as typeof import("node:http2");
  const original = http2.connect;
  const guarded = function (this: unknown, authority: unknown, ...rest: unknown[]) {
    const host = hostOf(authority);
    const session = current();
    if (session && session.mode !== "off" && session.routes.onProviderHostname(host)) {
      const err = new BlackboxUnsupportedError(
        `a request to the provider (an HTTP/2 connection to ${host}) went around Blackbox: it was sent with node:http2 (an AWS SDK request handler Blackbox did not switch to fetch), which ${session.mode === "record" ? "Blackbox cannot record" : "a replay cannot answer"}, so it was stopped before it left the process. ` +
          "Run the command from the folder that installs @aws-sdk/client-bedrock-runtime (so Blackbox finds its @smithy/node-http-handler), and give the client no requestHandler of your own.",
      );
      session.fail(err);
      throw err;
    }
    return (original as (...a: unknown[]) => unknown).call(this, authority, ...rest);
  } as typeof http2.connect;
  http2.connect = guarded;
  unpatch.push(function unguardHttp2() {
    if (http2.connect === guarded) http2.connect = original;
  });
}

/**
 * Guards node:http2 once something loads it: now if it is loaded, else at its first require() (the AWS SDK's
 * handlers require it; it is CommonJS). Loading it at start-up would load http, tls and crypto into every
 * hooked process (test/integration/zero-code-fetch-stack.test.ts).
 */
function guardHttp2WhenLoaded(): void {
  const loaded = (process as unknown as { moduleLoadList?: string[] }).moduleLoadList;
  if (!loaded || loaded.includes("NativeModule http2")) return guardHttp2();
  const Module = createRequire(import.meta.url)("node:module") as unknown as {
    _load: (this: unknown, request: string, ...rest: unknown[]) => unknown;
  };
  const load = Module._load;
  const watching = function (this: unknown, request: string, ...rest: unknown[]): unknown {
    const exports = load.call(this, request, ...rest);
    if (request === "http2" || request === "node:http2") {
      if (Module._load === watching) Module._load = load;
      guardHttp2();
    }
    return exports;
  };
  Module._load = watching;
  unpatch.push(function unwatchHttp2() {
    if (Module._load === watching) Module._load = load;
  });
}

/**
 * Switches the app's AWS SDK handlers (found from each of `from`) to the global fetch for provider calls, and
 * guards node:http2; returns the undo, and what was switched.
 */
export function routeAwsSdkThroughFetch(session: AwsSession, from: string[]): { undo: () => void; switched: string[] } {
  const switched: string[] = [];
  const seen = new Set<string>();
  for (const name of CLIENTS)
    for (const dir of new Set(from)) {
      const client = appSdk(dir, name);
      if (!client) continue;
      let file: string;
      const req = createRequire(join(client.dir, "package.json"));
      try {
        file = req.resolve("@smithy/node-http-handler");
      } catch {
        continue; // a client without it (a bundle): the http2 guard stops its calls
      }
      if (seen.has(file)) continue;
      seen.add(file);
      const mod = req(file) as { NodeHttp2Handler?: HandlerClass; NodeHttpHandler?: HandlerClass };
      patch(mod.NodeHttp2Handler);
      patch(mod.NodeHttpHandler);
      switched.push(`${name}@${client.version}`);
    }
  guardHttp2WhenLoaded();
  installed.push(session);
  return {
    undo: () => {
      const at = installed.lastIndexOf(session);
      if (at >= 0) installed.splice(at, 1);
      if (installed.length === 0) for (const u of unpatch.splice(0).reverse()) u();
    },
    switched,
  };
}
