/**
 * The hook's agent of faults-hook.test.ts, run as `node --import tsx --import register.mjs`:
 * both SDKs, streamed and not, one after the other in one process (one recorded run), each a
 * two-turn conversation whose second turn names the fault it meets (FAULTS, one per
 * conversation: see faultyProvider.ts faultOnFirstAttempt). No fetch option: the calls go
 * through the hook's doors. Prints the outcomes as one JSON line.
 *
 * env: RUN (the texts' prefix), FAULTS (comma-separated), ANTHROPIC_BASE_URL, OPENAI_BASE_URL.
 */
import { converse, timeoutFor, type ProviderName } from "./faultsAgent.js";

const env = process.env;
const faults = env.FAULTS!.split(",");
const combos: [ProviderName, boolean][] = [
  ["anthropic", false],
  ["anthropic", true],
  ["openai", false],
  ["openai", true],
];
const outcomes: string[] = [];
for (const [i, fault] of faults.entries()) {
  const [provider, stream] = combos[i % combos.length]!;
  const baseURL = provider === "openai" ? env.OPENAI_BASE_URL! : env.ANTHROPIC_BASE_URL!;
  const who = `${env.RUN}-${i}`;
  outcomes.push(
    await converse({ provider, stream, baseURL, timeout: timeoutFor(fault) }, [`${who} one`, `${who} two [${fault}]`]),
  );
}
console.log(JSON.stringify(outcomes));
