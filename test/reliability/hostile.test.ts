/**
 * Hostile cassettes, property-based: every broken file gives a typed Blackbox error or
 * a correct result from loadTrace, verifyTrace, diffTraces, the timeline (show),
 * replayTrace, forkRun, and a session replaying or forking it; never an uncaught
 * exception, a hang (each case is timed), a network call, or prototype pollution.
 * `blackbox show` runs as a child process on a sample in cli-hostile.test.ts.
 *
 * BLACKBOX_LONG=1 runs 10x the cases.
 */
import { isUtf8 } from "node:buffer";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  blackbox,
  diffOutcome,
  diffTraces,
  forkRun,
  isBlackboxError,
  loadTrace,
  replayTrace,
  ScriptedModelClient,
  verifyTrace,
  type Trace,
} from "../../src/index.js";
import { CassetteLimitError } from "../../src/errors.js";
import { parseTrace } from "../../src/trace/parse.js";
import { formatTimeline } from "../../src/trace/timeline.js";
import { anthropicKit } from "../helpers/agents.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { applyMutation, FIXTURES, mutation, type Mutation } from "./hostile.js";

const RUNS = process.env.BLACKBOX_LONG === "1" ? 3000 : 300;
const CASE_MS = 5_000;
const dir = mkdtempSync(join(tmpdir(), "bbx-hostile-"));
const tally = { cases: 0, loaded: 0, refused: 0, verifyOk: 0 };
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
  console.log(`hostile: ${JSON.stringify(tally)}`);
});

const protoKeys = {
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  array: Object.getOwnPropertyNames(Array.prototype).sort(),
  function: Object.getOwnPropertyNames(Function.prototype).sort(),
};
function expectNoPollution(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys.object);
  expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(protoKeys.array);
  expect(Object.getOwnPropertyNames(Function.prototype).sort()).toEqual(protoKeys.function);
}

/** Runs `f`; a thrown error must be a typed Blackbox error. Returns the value or undefined. */
async function typed<T>(what: string, f: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (error) {
    if (!isBlackboxError(error))
      throw new Error(`${what} threw an untyped error: ${(error as Error)?.stack ?? String(error)}`);
    expect((error as Error).message.length).toBeGreaterThan(20);
    return undefined;
  }
}

let n = 0;
async function attack(base: { name: string; text: string }, m: Mutation): Promise<void> {
  const started = Date.now();
  const bytes = applyMutation(base.text, m);
  const file = join(dir, `case-${n++ % 50}.json`);
  writeFileSync(file, bytes);
  tally.cases++;
  const original = JSON.parse(base.text) as Trace;

  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    value = undefined;
  }
  if (value !== undefined) {
    const v = verifyTrace(value);
    expect(typeof v.ok).toBe("boolean");
    if (v.ok) tally.verifyOk++;
    if (m.kind === "forgeId" && (value as Trace).steps.some((s, i) => s.id !== `${(value as Trace).id}:${i}`)) {
      expect(v.ok, "a forged step id passes verify").toBe(false);
      expect(v.problems.some((p) => /^steps\[\d+\]\.id$/.test(p.path))).toBe(true);
    }
  }
  let limit: CassetteLimitError | undefined;
  const trace = await typed("loadTrace", () =>
    loadTrace(file).catch((error: unknown) => {
      if (error instanceof CassetteLimitError) limit = error;
      throw error;
    }),
  );
  if (value !== undefined && verifyTrace(value).ok) {
    // the text's nesting is checked before JSON.parse, which drops the first of two duplicate keys
    if (limit)
      expect(`${m.kind} ${limit.limit}`, "load refuses by a limit what verify accepts").toBe("duplicate depth");
    else expect(trace, "verify accepts what load refuses").toBeDefined();
  }
  // the same text parsed: the same verdict (bytes that are not UTF-8 are refused by loadTrace alone; their
  // lossy decoding, with U+FFFD in place of the bad bytes, is another text)
  if (isUtf8(bytes)) expect(await typed("parseTrace", () => parseTrace(bytes.toString("utf8"), file))).toEqual(trace);
  else expect(trace, "bytes that are not UTF-8 load").toBeUndefined();
  if (trace) {
    tally.loaded++;
    expect(diffTraces(trace, trace)).toBeNull();
    await typed("diffTraces", () => diffTraces(original, trace));
    await typed("diffOutcome", () => diffOutcome(trace, original));
    await typed("timeline", () => formatTimeline(trace, { color: true }));
    await typed("replayTrace", () => replayTrace(trace));
    const client = new ScriptedModelClient([{ type: "final_answer", text: "done" }]);
    await typed("forkRun", () =>
      forkRun(trace, {
        forkIndex: Math.min(3, trace.steps.length - 1),
        client,
        tools: { get_weather: () => ({ ok: 1 }) },
        now: () => 1,
      }),
    );
  } else tally.refused++;

  // a session replaying it: an answer or a typed refusal, and no request leaves the process
  const before = fake.requests.length;
  await typed("replay session", async () => {
    const bb = blackbox({ mode: "replay", cassette: file });
    try {
      await anthropicKit.run(
        anthropicKit.client(bb.fetch, fake.anthropicUrl),
        bb.tools({ get_weather: async () => ({ ok: 1 }) }),
        { task: "What is the weather in Paris?", maxTurns: 3 },
      );
      await bb.finish();
    } finally {
      bb.dispose();
    }
  }).catch((error: Error) => {
    // the test agent's own "too many turns" is the agent's outcome, not Blackbox's
    if (!/agent: too many turns/.test(error.message)) throw error;
  });
  await typed("fork session", async () => {
    const bb = blackbox({
      mode: "fork",
      cassette: file,
      out: join(dir, "fork-out.json"),
      forkAt: 3,
      forkSet: { forecast: "snow" },
      continueWith: "script",
      script: [{ type: "final_answer", text: "ok" }],
    });
    try {
      await anthropicKit.run(
        anthropicKit.client(bb.fetch, fake.anthropicUrl),
        bb.tools({ get_weather: async () => ({ ok: 1 }) }),
        { task: "What is the weather in Paris?", maxTurns: 3 },
      );
      await bb.finish();
    } finally {
      bb.dispose();
    }
  }).catch((error: Error) => {
    if (!/agent: too many turns/.test(error.message)) throw error;
  });
  expect(fake.requests.length, "replay or fork sent a request to the provider").toBe(before);
  expectNoPollution();
  expect(Date.now() - started, "one case took too long").toBeLessThan(CASE_MS);
}

test(
  `${RUNS} hostile cassettes: a typed error or a correct result, never a crash, hang, request or pollution`,
  { timeout: 60_000 + RUNS * 200 },
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: FIXTURES.length - 1 }), mutation, (i, m) => attack(FIXTURES[i]!, m)),
      { numRuns: RUNS, seed: process.env.BLACKBOX_SEED ? Number(process.env.BLACKBOX_SEED) : undefined },
    );
  },
);
