/**
 * A provider that misbehaves (test/helpers/faultyProvider.ts), recorded through both doors
 * (bb.fetch and the global dispatcher door, in this process) with both SDKs, streamed and
 * not. The second of three turns meets the fault on its first attempt. Each case runs the
 * plain SDK first, then records, then replays what was recorded:
 *
 * - a fault the SDK retries (500, 429 with retry-after, 529, a first byte past the SDK's
 *   timeout): the agent ends as with the plain SDK (all three replies), the retry is no
 *   step of the cassette, the cassette verifies, and its replay gives the same replies;
 * - a fault the SDK does not retry (a reset mid-reply, a cut or malformed stream, a body
 *   that is not JSON): the agent's call fails as with the plain SDK, finish() says which
 *   provider's reply could not be recorded, and no cassette is written.
 *
 * No call may be left unsettled: each races a deadline (faultsAgent.ts).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, publicSession } from "../../src/blackbox.js";
import { installDispatcher } from "../../src/interception/dispatcher/door.js";
import { forwardThrough } from "../../src/interception/dispatcher/forward.js";
import { abortableBody } from "../../src/interception/fetch/upstreamBody.js";
import { loadTrace } from "../../src/store/index.js";
import { verifyTrace } from "../../src/trace/verify.js";
import {
  faultOnFirstAttempt,
  startFaultyProvider,
  type Fault,
  type FaultyProvider,
} from "../helpers/faultyProvider.js";
import { converse, SLOW_MS, timeoutFor, type AgentSetup, type ProviderName } from "./faultsAgent.js";

let faulty: FaultyProvider;
let dir: string;
beforeAll(async () => {
  faulty = await startFaultyProvider({ plan: faultOnFirstAttempt, retryAfterS: 0.2, slowMs: SLOW_MS });
  dir = mkdtempSync(join(tmpdir(), "bb-faults-"));
});
afterAll(async () => {
  await faulty?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Door = "bb.fetch" | "dispatcher";
const RETRIED: Fault[] = ["500", "429", "529", "slow"];
const FAILING: { fault: Fault; stream: boolean[] }[] = [
  { fault: "reset", stream: [false, true] },
  { fault: "malformed-json", stream: [false] },
  { fault: "cut-sse", stream: [true] },
  { fault: "malformed-sse", stream: [true] },
];
/** How each refusal says where the reply went wrong. */
const WHERE: Partial<Record<Fault, RegExp>> = {
  reset: /\((Anthropic|OpenAI): [^,]+, after byte \d+ of the reply\)/,
  "malformed-json": /is not JSON \((Anthropic|OpenAI): .*, a reply of \d+ bytes\)/,
  "cut-sse": /stream broke: it ended/,
  "malformed-sse": /not JSON.* It went wrong in bytes \d+-\d+ of the reply\.$/,
};
const PROVIDER_LABEL: Record<ProviderName, string> = { anthropic: "Anthropic", openai: "OpenAI" };

let runs = 0;
/** Three turns whose texts no other run sends (the provider counts attempts by body); the second names its fault. */
function turnsOf(run: string, fault: Fault): string[] {
  return [`${run} first`, `${run} second [${fault}]`, `${run} third`];
}

interface Recorded {
  outcome: string;
  finish: string;
  out: string;
  turns: string[];
}

/** The conversation through a recording session (the door given), then finish(). */
async function record(door: Door, provider: ProviderName, stream: boolean, fault: Fault): Promise<Recorded> {
  const run = `run${String(++runs).padStart(3, "0")}`;
  const out = join(dir, `${run}.json`);
  const engine = createSession({
    mode: "record",
    out,
    providers: { anthropic: [faulty.anthropicUrl], openai: [faulty.openaiUrl] },
  });
  const bb = publicSession(engine);
  const undo = door === "dispatcher" ? await installDispatcher(engine) : undefined;
  const turns = turnsOf(run, fault);
  try {
    const setup: AgentSetup = { provider, stream, baseURL: baseUrl(provider), timeout: timeoutFor(fault) };
    if (door === "bb.fetch") setup.fetch = bb.fetch;
    const outcome = await converse(setup, turns);
    const finish = await bb.finish().then(
      () => "written",
      (e: Error) => e.message,
    );
    return { outcome: outcome.replaceAll(run, "RUN"), finish, out, turns };
  } finally {
    undo?.();
    engine.dispose();
  }
}

async function replay(door: Door, provider: ProviderName, stream: boolean, rec: Recorded): Promise<string> {
  const engine = createSession({
    mode: "replay",
    cassette: rec.out,
    providers: { anthropic: [faulty.anthropicUrl], openai: [faulty.openaiUrl] },
  });
  const bb = publicSession(engine);
  const undo = door === "dispatcher" ? await installDispatcher(engine) : undefined;
  const sent = faulty.served.length;
  try {
    const setup: AgentSetup = { provider, stream, baseURL: baseUrl(provider) }; // a replay answers at once
    if (door === "bb.fetch") setup.fetch = bb.fetch;
    const outcome = await converse(setup, rec.turns);
    await bb.finish();
    expect(faulty.served.length, "a replay sends nothing to the provider").toBe(sent);
    return outcome.replace(/run\d+/g, "RUN");
  } finally {
    undo?.();
    engine.dispose();
  }
}

function baseUrl(provider: ProviderName): string {
  return provider === "openai" ? faulty.openaiUrl : faulty.anthropicUrl;
}

/** The plain SDK's outcome, run once for both doors' cases. */
const plainRuns = new Map<string, Promise<string>>();
function plainOnce(provider: ProviderName, stream: boolean, fault: Fault): Promise<string> {
  const key = `${provider} ${stream} ${fault}`;
  if (!plainRuns.has(key)) plainRuns.set(key, plain(provider, stream, fault));
  return plainRuns.get(key)!;
}

async function plain(provider: ProviderName, stream: boolean, fault: Fault): Promise<string> {
  const run = `run${String(++runs).padStart(3, "0")}`;
  const setup = { provider, stream, baseURL: baseUrl(provider), timeout: timeoutFor(fault) };
  const outcome = await converse(setup, turnsOf(run, fault));
  return outcome.replaceAll(run, "RUN");
}

describe.each<Door>(["bb.fetch", "dispatcher"])("provider faults through %s", (door) => {
  describe.each<ProviderName>(["anthropic", "openai"])("%s", (provider) => {
    for (const stream of [false, true]) {
      const how = stream ? "streamed" : "not streamed";
      it.each(RETRIED)(
        `a %s the SDK retries (${how}): the agent gets every reply, the cassette the final ones`,
        async (f) => {
          // bb.fetch's run and the plain one side by side; the dispatcher door takes every fetch, so after it
          const [expected, rec] =
            door === "bb.fetch"
              ? await Promise.all([plainOnce(provider, stream, f), record(door, provider, stream, f)])
              : [await plainOnce(provider, stream, f), await record(door, provider, stream, f)];
          expect(expected).toBe(`ok: echo: RUN first | echo: RUN second [${f}] | echo: RUN third`);
          expect(rec.outcome).toBe(expected);
          expect(rec.finish).toBe("written");
          const attempts = faulty.served.filter((r) => r.text === rec.turns[1]);
          expect(attempts.map((r) => r.fault)).toEqual([f, "ok"]); // the SDK's retry went upstream
          if (f === "429") expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(190); // retry-after: 0.2
          const trace = await loadTrace(rec.out);
          expect(verifyTrace(trace).ok).toBe(true);
          const outputs = trace.steps.filter((s) => s.type === "model_output").map((s) => s.payload);
          expect(outputs).toEqual(rec.turns.map((t) => ({ type: "final_answer", text: `echo: ${t}` })));
          expect(trace.steps.filter((s) => s.type === "model_input")).toHaveLength(3);
          expect(trace.steps.at(-1)!.payload).toMatchObject({ event: "run_completed", status: "success" });
          expect(await replay(door, provider, stream, rec)).toBe(expected);
        },
      );
      for (const { fault: f, stream: streams } of FAILING) {
        if (!streams.includes(stream)) continue;
        it(`a ${f} (${how}): the call fails as with the plain SDK, and no cassette claims the run`, async () => {
          const expected = await plainOnce(provider, stream, f);
          expect(expected).toMatch(/^error at turn 2: /);
          const rec = await record(door, provider, stream, f);
          expect(rec.outcome).toBe(expected);
          expect(rec.finish).toContain(PROVIDER_LABEL[provider]);
          expect(rec.finish).toMatch(/not recorded|cannot be recorded|could not be recorded/);
          // where it went wrong, in bytes of the reply
          expect(rec.finish).toMatch(WHERE[f]!);
          expect(existsSync(rec.out)).toBe(false);
          // the failed attempt was the only one: the SDK does not retry a reply that failed after its headers
          expect(faulty.served.filter((r) => r.text === rec.turns[1]).map((r) => r.fault)).toEqual([f]);
        });
      }
    }
  });
});

describe("the dispatcher door's upstream call", () => {
  it("a reset that comes in the same tick as the headers fails the reply's body, not the request (which the SDK would retry)", async () => {
    const reset = new Error("other side closed");
    const previous = {
      dispatch(_opts: Record<string, unknown>, handler: Record<string, (...a: unknown[]) => unknown>) {
        handler.onConnect!(() => {});
        handler.onHeaders!(200, [Buffer.from("content-type"), Buffer.from("application/json")], () => {}, "OK");
        handler.onData!(Buffer.from('{"id":'));
        handler.onError!(reset);
        return true;
      },
    };
    const request = { method: "POST", url: `${faulty.anthropicUrl}/v1/messages`, headers: {}, body: "{}" };
    const response = await forwardThrough(previous)(request);
    expect(response.status).toBe(200);
    const read = async () => {
      for await (const _ of response.body as AsyncIterable<Uint8Array>) {
        // the bytes that came, then the reset
      }
    };
    await expect(read()).rejects.toBe(reset);
  });
});

describe("bb.fetch's upstream body", () => {
  it("an abort ends a read that the body itself would leave pending (as Node 20's fetch can after an abort)", async () => {
    let cancelled: unknown;
    const stuck = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("data: {}\n\n"));
      },
      pull: () => new Promise<void>(() => {}), // no more bytes, ever; nor an error
      cancel(reason) {
        cancelled = reason;
      },
    });
    const abort = new AbortController();
    const chunks = abortableBody(stuck, abort.signal)[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    const pending = chunks.next();
    abort.abort(new DOMException("The operation was aborted.", "AbortError"));
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(cancelled).toMatchObject({ name: "AbortError" }); // the upstream body let go
  }, 5_000);
});
