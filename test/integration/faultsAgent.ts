/**
 * The agent of the provider-fault tests (faults*.test.ts): a conversation of a few turns with
 * the real SDK, streamed (the SDK's stream helper, finalMessage / finalChatCompletion) or
 * not, that ends as a plain string saying how it went, so a run with Blackbox and one with
 * the plain SDK compare with toBe. Each call races a deadline: a call that never settles
 * ends the conversation as "HANG".
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

export type ProviderName = "anthropic" | "openai";

export interface AgentSetup {
  provider: ProviderName;
  stream: boolean;
  baseURL: string;
  /** bb.fetch, or undefined: the global fetch (the plain SDK, or the dispatcher door). */
  fetch?: typeof globalThis.fetch;
  /** The SDK's per-attempt timeout (ms). */
  timeout?: number;
  maxRetries?: number;
  /** How long a call may take before it counts as never settling (ms): DEADLINE_MS unless given. */
  deadlineMs?: number;
}

/**
 * How long a call of a conversation run alone may take before it counts as never settling: a call that hangs
 * never ends, and an honest one ends far sooner, also under load (40 concurrent conversations take longer:
 * faults-concurrent.test.ts gives its own).
 */
export const DEADLINE_MS = 30_000;
/**
 * The SDKs' per-attempt timeout where no attempt is meant to time out: above the deadline, so a call that hangs
 * before its headers is a HANG, not an SDK retry, and a loaded machine does not make a retry (and an extra
 * attempt at the provider) of an attempt that was only slow.
 */
const TIMEOUT_MS = 60_000;
/**
 * The "slow" fault: its headers come after SLOW_MS (faultyProvider's slowMs), past the timeout of the
 * conversation that meets it (SLOW_TIMEOUT_MS), whose other attempts come well within that timeout.
 */
export const SLOW_MS = 5_000;
export const SLOW_TIMEOUT_MS = 2_000;

/** The per-attempt timeout of the conversation that meets `fault`. */
export function timeoutFor(fault: string): number | undefined {
  return fault === "slow" ? SLOW_TIMEOUT_MS : undefined;
}

function client(s: AgentSetup) {
  const common = {
    apiKey: s.provider === "openai" ? "sk-test-fault-0000" : "sk-ant-test-fault-0000",
    baseURL: s.baseURL,
    timeout: s.timeout ?? TIMEOUT_MS,
    maxRetries: s.maxRetries ?? 2,
    ...(s.fetch ? { fetch: s.fetch } : {}),
  };
  return s.provider === "openai" ? new OpenAI(common) : new Anthropic(common);
}

async function ask(s: AgentSetup, c: Anthropic | OpenAI, messages: { role: "user" | "assistant"; content: string }[]) {
  if (s.provider === "openai") {
    const o = c as OpenAI;
    const body = { model: "gpt-4.1", messages };
    const done = s.stream
      ? await o.chat.completions.stream(body).finalChatCompletion()
      : await o.chat.completions.create(body);
    return done.choices[0]!.message.content ?? "";
  }
  const a = c as Anthropic;
  const body = { model: "claude-sonnet-4-6", max_tokens: 100, messages };
  const done = s.stream ? await a.messages.stream(body).finalMessage() : await a.messages.create(body);
  const first = done.content[0];
  return first?.type === "text" ? first.text : "";
}

/** One error as the agent would log it: its class and message, without what varies by run (ports, ids). */
export function describeError(e: unknown): string {
  const err = e as Error;
  const message = String(err?.message ?? err)
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
    .replace(/"(id|_request_id)":"[^"]*"/g, '"$1":"ID"');
  return `${err?.constructor?.name ?? typeof e}: ${message}`;
}

/** Runs the conversation: "ok: <reply> | <reply> ..." or "error at turn N: <error>", or "HANG at turn N". */
export async function converse(s: AgentSetup, turns: string[]): Promise<string> {
  const c = client(s);
  const messages: { role: "user" | "assistant"; content: string }[] = [];
  const replies: string[] = [];
  for (const [i, text] of turns.entries()) {
    messages.push({ role: "user", content: text });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"HANG">((r) => (timer = setTimeout(() => r("HANG"), s.deadlineMs ?? DEADLINE_MS)));
    const r = await Promise.race([
      ask(s, c, messages).then(
        (reply) => ({ reply }),
        (error: unknown) => ({ error }),
      ),
      deadline,
    ]);
    clearTimeout(timer);
    if (r === "HANG") return `HANG at turn ${i + 1}`;
    if ("error" in r) return `error at turn ${i + 1}: ${describeError(r.error)}`;
    replies.push(r.reply);
    messages.push({ role: "assistant", content: r.reply });
  }
  return `ok: ${replies.join(" | ")}`;
}
