/**
 * A fake provider that misbehaves the way real ones do, on 127.0.0.1:0, beside
 * fakeProvider.ts (whose reply builders it uses). It speaks both wire formats, plain and
 * streamed, and answers every request itself: a `plan` says, for each request, which fault
 * to answer with (or none, a normal reply). The reply's text is the last user message's,
 * echoed (`echo: <text>`), so each conversation gets its own replies.
 *
 * A request's `attempt` counts the requests with the same body so far (1 for the first):
 * an SDK's retry sends the same body again, so `attempt === 1 ? fault : "ok"` is a fault
 * the retry gets past.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { anthropicMessage, anthropicSSE, openaiCompletion, openaiSSE } from "./fakeProvider.js";

export type Fault =
  | "ok"
  /** 500 api_error (retry-after-ms: 10, so the SDK's retry is quick) */
  | "500"
  /** 429 rate limit with `retry-after` in seconds (`retryAfterS`, default 0.2): the SDK waits that long */
  | "429"
  /** Anthropic's 529 overloaded_error (retry-after-ms: 10) */
  | "529"
  /** the headers and part of the body, then the connection is destroyed */
  | "reset"
  /** a streamed reply that ends cleanly before its final event(s) */
  | "cut-sse"
  /** a streamed reply with one malformed `data:` line (its JSON broken), the rest whole */
  | "malformed-sse"
  /** a 200 JSON reply whose body is not JSON */
  | "malformed-json"
  /** the headers come after `slowMs` (default 600): past a client timeout set below it */
  | "slow";

export interface FaultRequest {
  provider: "anthropic" | "openai";
  stream: boolean;
  /** 1 for the first request with this body, 2 for its first retry, … */
  attempt: number;
  /** The last user message's text. */
  text: string;
  /** How many messages the request holds. */
  messages: number;
}

export interface FaultyProviderOptions {
  plan: (req: FaultRequest) => Fault;
  retryAfterS?: number;
  slowMs?: number;
}

export interface ServedRequest extends FaultRequest {
  fault: Fault;
  /** When it came (Date.now()). */
  at: number;
}

export interface FaultyProvider {
  url: string;
  anthropicUrl: string;
  openaiUrl: string;
  /** Every request, in the order they came. */
  served: ServedRequest[];
  close(): Promise<void>;
}

type Obj = Record<string, unknown>;

function lastUserText(body: Obj): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Obj[]) : [];
  const user = [...messages].reverse().find((m) => m.role === "user");
  const content = user?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return (content as Obj[]).map((p) => String(p.text ?? "")).join("");
  return "";
}

/** The same event with its first `"key":` written `"key" `: not JSON any more. */
function breakJson(event: string): string {
  return event.replace(/^data: (.*)$/m, (_line, data: string) => `data: ${data.replace(/"([a-z_]+)":/, '"$1" ')}`);
}

const FAULTS: ReadonlySet<string> = new Set([
  "500",
  "429",
  "529",
  "reset",
  "cut-sse",
  "malformed-sse",
  "malformed-json",
  "slow",
]);

/**
 * A plan for many conversations at once: a user message that ends with `[<fault>]` meets that
 * fault on its first attempt; everything else is answered normally.
 */
export function faultOnFirstAttempt(r: FaultRequest): Fault {
  const named = /\[([a-z0-9-]+)\]$/.exec(r.text)?.[1];
  return r.attempt === 1 && named && FAULTS.has(named) ? (named as Fault) : "ok";
}

export async function startFaultyProvider(options: FaultyProviderOptions): Promise<FaultyProvider> {
  const seen = new Map<string, number>();
  const served: ServedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const body = (raw ? JSON.parse(raw) : {}) as Obj;
    const provider = (req.url ?? "").includes("/chat/completions") ? "openai" : "anthropic";
    const attempt = (seen.get(raw) ?? 0) + 1;
    seen.set(raw, attempt);
    const text = lastUserText(body);
    const request: FaultRequest = {
      provider,
      stream: body.stream === true,
      attempt,
      text,
      messages: Array.isArray(body.messages) ? body.messages.length : 0,
    };
    const fault = options.plan(request);
    served.push({ ...request, fault, at: Date.now() });
    const reply = { text: `echo: ${text}`, model: typeof body.model === "string" ? body.model : undefined };

    if (fault === "500" || fault === "529") {
      const type = fault === "529" ? "overloaded_error" : "api_error";
      res.writeHead(Number(fault), { "content-type": "application/json", "retry-after-ms": "10" });
      res.end(JSON.stringify({ type: "error", error: { type, message: `fake ${fault}: try again` } }));
      return;
    }
    if (fault === "429") {
      res.writeHead(429, { "content-type": "application/json", "retry-after": String(options.retryAfterS ?? 0.2) });
      res.end(JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "fake 429: slow down" } }));
      return;
    }
    if (fault === "slow") {
      await new Promise((r) => setTimeout(r, options.slowMs ?? 600));
      if (res.destroyed) return;
    }
    if (!request.stream) {
      const json = JSON.stringify(provider === "openai" ? openaiCompletion(reply) : anthropicMessage(reply));
      res.writeHead(200, { "content-type": "application/json" });
      if (fault === "malformed-json") return void res.end(json.slice(0, json.length - 9) + "<html>oops");
      if (fault === "reset") {
        res.write(json.slice(0, json.length >> 1));
        return void setTimeout(() => res.destroy(), 5);
      }
      res.end(json);
      return;
    }
    let events = provider === "openai" ? openaiSSE(reply) : anthropicSSE(reply);
    if (fault === "cut-sse") events = events.slice(0, Math.max(2, events.length - 3));
    if (fault === "malformed-sse") {
      const at = events.length - 2;
      events = events.map((e, i) => (i === at ? breakJson(e) : e));
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const cutAt = fault === "reset" ? Math.floor(events.length / 2) : events.length;
    for (let i = 0; i < cutAt; i++) {
      if (res.destroyed) return;
      res.write(events[i]);
      if (i % 3 === 2) await new Promise((r) => setTimeout(r, 1));
    }
    if (fault === "reset") return void setTimeout(() => res.destroy(), 5);
    res.end();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    anthropicUrl: url,
    openaiUrl: `${url}/v1`,
    served,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const s of sockets) s.destroy();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
