/**
 * Provider faults through the register hook (`node --import register.mjs`, no fetch option),
 * as a user runs it: one child records four conversations (both SDKs, streamed and not)
 * each meeting a fault the SDK retries, one replays that cassette offline, and one records
 * four conversations meeting faults the SDK does not retry. Each conversation must end as
 * it does with the plain SDK (run here, in this process, at the same time).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import {
  faultOnFirstAttempt,
  startFaultyProvider,
  type Fault,
  type FaultyProvider,
} from "../helpers/faultyProvider.js";
import { converse, SLOW_MS, timeoutFor, type ProviderName } from "./faultsAgent.js";
import { readCassette, REGISTER, requireBuild, tempDir } from "./zeroCodeHelpers.js";

let faulty: FaultyProvider;
const tmp = tempDir();
beforeAll(async () => {
  requireBuild();
  faulty = await startFaultyProvider({ plan: faultOnFirstAttempt, retryAfterS: 0.1, slowMs: SLOW_MS });
});
afterAll(async () => {
  await faulty?.close();
  tmp.cleanup();
});

const CHILD = join(ROOT, "test", "integration", "faultsChild.ts");
const COMBOS: [ProviderName, boolean][] = [
  ["anthropic", false],
  ["anthropic", true],
  ["openai", false],
  ["openai", true],
];

function hooked(run: string, faults: Fault[], env: Record<string, string>, offline = false) {
  return runProcess(process.execPath, ["--import", "tsx", "--import", REGISTER, CHILD], {
    cwd: tmp.dir,
    offline,
    timeoutMs: 120_000, // measured under load: up to 37 s a child; a call that hangs is a HANG at 30 s
    env: {
      RUN: run,
      FAULTS: faults.join(","),
      ANTHROPIC_BASE_URL: faulty.anthropicUrl,
      OPENAI_BASE_URL: faulty.openaiUrl,
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      ...env,
    },
  });
}

/** What faultsChild.ts prints, run here with the plain SDKs. */
async function plain(run: string, faults: Fault[]): Promise<string[]> {
  const outcomes: string[] = [];
  for (const [i, fault] of faults.entries()) {
    const [provider, stream] = COMBOS[i % COMBOS.length]!;
    const baseURL = provider === "openai" ? faulty.openaiUrl : faulty.anthropicUrl;
    const who = `${run}-${i}`;
    outcomes.push(
      await converse({ provider, stream, baseURL, timeout: timeoutFor(fault) }, [
        `${who} one`,
        `${who} two [${fault}]`,
      ]),
    );
  }
  return outcomes;
}

const normal = (outcomes: string[], run: string) => outcomes.map((o) => o.replaceAll(run, "RUN"));

it("faults the SDK retries: the hooked agent gets every reply, the cassette the final ones, the replay the same", async () => {
  const faults: Fault[] = ["529", "500", "429", "slow"]; // one for each SDK, streamed and not
  const out = join(tmp.dir, "retried.json");
  const [expected, rec] = await Promise.all([
    plain("pln-A", faults),
    hooked("hok-A", faults, { BLACKBOX_MODE: "record", BLACKBOX_OUT: out }),
  ]);
  expect(rec.stderr).toBe("");
  expect(rec.code).toBe(0);
  expect(expected.every((o) => o.startsWith("ok: "))).toBe(true);
  expect(normal(JSON.parse(rec.stdout) as string[], "hok-A")).toEqual(normal(expected, "pln-A"));
  for (const [i, f] of faults.entries()) {
    const attempts = faulty.served.filter((r) => r.text === `hok-A-${i} two [${f}]`).map((r) => r.fault);
    expect(attempts, `conversation ${i}`).toEqual([f, "ok"]);
  }
  const trace = readCassette(out); // verifies
  const outputs = trace.steps.filter((s) => s.type === "model_output").map((s) => s.payload);
  expect(outputs).toEqual(
    faults.flatMap((f, i) =>
      [`hok-A-${i} one`, `hok-A-${i} two [${f}]`].map((t) => ({ type: "final_answer", text: `echo: ${t}` })),
    ),
  );
  expect(trace.steps.at(-1)!.payload).toMatchObject({ event: "run_completed", status: "success" });

  const replayed = await hooked("hok-A", faults, { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out }, true);
  expect(replayed.code).toBe(0);
  expect(replayed.stdout).toBe(rec.stdout);
}, 300_000);

it("faults the SDK does not retry: each call fails as with the plain SDK, and the hook writes no cassette, saying why", async () => {
  const faults: Fault[] = ["reset", "malformed-sse", "malformed-json", "cut-sse"];
  const out = join(tmp.dir, "failed.json");
  const [expected, rec] = await Promise.all([
    plain("pln-B", faults),
    hooked("hok-B", faults, { BLACKBOX_MODE: "record", BLACKBOX_OUT: out }),
  ]);
  expect(expected.every((o) => o.startsWith("error at turn 2: "))).toBe(true);
  expect(normal(JSON.parse(rec.stdout) as string[], "hok-B")).toEqual(normal(expected, "pln-B"));
  expect(rec.code).not.toBe(0);
  // the SDK logs the line it could not parse; the hook's one line closes stderr
  expect(rec.stderr).toMatch(
    /(^|\n)blackbox: the provider's reply broke before it ended \(Anthropic: [^,]+, after byte \d+ of the reply\);.* No cassette was written to .*failed\.json\.\n$/s,
  );
  expect(rec.stderr.split("\nblackbox: ")[1]).not.toMatch(/\n\s+at /); // no stack trace in it
  expect(existsSync(out)).toBe(false);
}, 300_000);
