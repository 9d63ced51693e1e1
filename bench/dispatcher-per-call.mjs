// Replay cost per model call through the register hook's door (issue 5: "per-call replay
// through the dispatcher <= 1.0x undici MockAgent on the same SDK calls"). The 200-turn
// Anthropic tool loop of bench/loop.mjs, through the real SDK with NO fetch option,
// answered three ways in one process, interleaved, after one warm-up run each:
//   door   a replay session (createSession, strict) installed as the global dispatcher
//          with installDispatcher, as the register hook does; tools via session.tools.
//          Since 2 December the hook's fetch guard answers a provider call in replay at
//          the global fetch, so this is the SDK's call as the hook meets it
//   slot   the same replay reached through the dispatcher slot itself: the SDK is given
//          Node's fetch as it was before the hook (as undici's own fetch, or a fetch taken
//          before the hook, reaches the door)
//   mock   undici MockAgent as the global dispatcher, a reply callback
//   plumb  the door over a stub session that serves the scripted replies as they are (no
//          parse, no comparison, no reply built): what the door's own plumbing costs (context)
//   bb     the same replay through bb.fetch, the SDK's fetch option (context: the session's
//          own cost, without Node's fetch stack and the dispatcher path)
//   floor  a fetch option that returns a ready Response and compares nothing (context)
//   mockrec  MockAgent set up as a recording replayed strictly would be with it: one
//          interceptor per recorded call, in order, each matching path, method and the
//          exact request body the agent sent (context: the anchor doing door's job)
//   mockseq  the same interceptors without the body (serves them in order, compares
//          nothing), against
//   seq    the door replaying with match: "sequence" (context)
// Run after `npm run build`: node bench/dispatcher-per-call.mjs
// Env: BENCH_TURNS (default 200), BENCH_ROUNDS (default 5),
// BENCH_ONLY=door,slot,mock,plumb,bb,floor,mockrec,mockseq,seq (default: door,slot,mock,plumb,bb,floor).
import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher } from "undici";
import { installDispatcher } from "../dist/interception/dispatcher/door.js";
import { createSession } from "../dist/blackbox.js";
import {
  API_KEY,
  BODIES,
  HEADERS,
  baseVariants,
  cpuMs,
  f2,
  forecast,
  mean,
  median,
  recordCassette,
  runAgent,
  TURNS,
} from "./loop.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "bbx-bench-door-"));
const cassette = join(dir, "loop.json");

const nodeFetch = globalThis.fetch; // before any door: it reads the dispatcher slot each call

/** The door replaying `cassette` with `match`; `viaSlot`: the SDK given Node's own fetch, not the hook's. */
async function door(match, viaSlot = false) {
  const session = createSession({ mode: "replay", cassette, match });
  const undo = await installDispatcher(session); // wraps the MockAgent loop.mjs installed; replay never forwards
  try {
    const client = new Anthropic({ apiKey: API_KEY, maxRetries: 0, ...(viaSlot ? { fetch: nodeFetch } : {}) });
    const run = await runAgent(client, session.tools({ get_weather: forecast }));
    await session.finish({ result: run.answer });
    return run;
  } finally {
    undo();
  }
}

/** The path and body of each request the agent sends when served BODIES (for mockrec, mockseq). */
async function sentRequests() {
  let turn = 0;
  const sent = [];
  const stub = {
    route: () => "anthropic",
    handle: async (req) => {
      sent.push({ path: new URL(req.url).pathname, body: req.body });
      return { status: 200, statusText: "OK", headers: HEADERS, body: BODIES[turn++] };
    },
  };
  const undo = await installDispatcher(stub);
  try {
    await runAgent(new Anthropic({ apiKey: API_KEY, maxRetries: 0 }), { get_weather: forecast });
  } finally {
    undo();
  }
  return sent;
}

/** A MockAgent with one interceptor per recorded call (set up before the run, as a session loads before it). */
async function mockRecording(withBody) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get("https://api.anthropic.com");
  SENT.forEach(({ path, body }, i) => {
    pool
      .intercept(withBody ? { path, method: "POST", body } : { path, method: "POST" })
      .reply(200, BODIES[i], { headers: HEADERS });
  });
  const before = getGlobalDispatcher();
  setGlobalDispatcher(agent);
  try {
    return await runAgent(new Anthropic({ apiKey: API_KEY, maxRetries: 0 }), { get_weather: forecast });
  } finally {
    setGlobalDispatcher(before);
  }
}

const variants = {
  door: () => door("strict"),
  slot: () => door("strict", true),
  seq: () => door("sequence"),
  mockrec: () => mockRecording(true),
  mockseq: () => mockRecording(false),
  async plumb() {
    let turn = 0;
    const stub = {
      route: () => "anthropic",
      handle: async () => ({ status: 200, statusText: "OK", headers: HEADERS, body: BODIES[turn++] }),
    };
    const undo = await installDispatcher(stub);
    try {
      return await runAgent(new Anthropic({ apiKey: API_KEY, maxRetries: 0 }), { get_weather: forecast });
    } finally {
      undo();
    }
  },
  ...baseVariants(cassette),
};

// --- measure ---------------------------------------------------------------------------

/** One run: mean wall and CPU ms per messages.create call, and the whole run (door: session load and finish too) per call. */
async function measure(name) {
  const t0 = performance.now();
  const c0 = cpuMs();
  const { wall, cpu } = await variants[name]();
  return {
    wall: mean(wall),
    cpu: mean(cpu),
    calls: wall,
    runWall: (performance.now() - t0) / wall.length,
    runCpu: (cpuMs() - c0) / wall.length,
  };
}

await recordCassette(cassette);
const SENT = await sentRequests();
const names = process.env.BENCH_ONLY
  ? process.env.BENCH_ONLY.split(",")
  : ["door", "slot", "mock", "plumb", "bb", "floor"];
for (const n of names)
  if (!variants[n]) throw new Error(`BENCH_ONLY: unknown variant "${n}"; use ${Object.keys(variants).join(", ")}`);
for (const name of names) await variants[name](); // warm-up, not counted

const results = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]); // rotate who goes first
  for (const name of order) results[name].push(await measure(name));
}
rmSync(dir, { recursive: true, force: true });

const med = (name, field) => median(results[name].map((r) => r[field]));
console.log(
  `replay under the hook (door) and through the dispatcher slot (slot): ${TURNS + 1} calls (${TURNS}-turn tool loop), @anthropic-ai/sdk without a fetch option, node ${process.version}, ${ROUNDS} interleaved rounds`,
);
console.log("ms per messages.create call, median of rounds (wall per round in brackets; CPU = process user+system)");
console.log("variant  wall   [rounds]                           CPU     whole run/call wall, CPU");
for (const name of names) {
  const rounds = results[name].map((r) => f2(r.wall)).join(" ");
  console.log(
    `${name.padEnd(8)} ${f2(med(name, "wall")).padEnd(6)} [${rounds}]`.padEnd(52) +
      ` ${f2(med(name, "cpu")).padEnd(7)} ${f2(med(name, "runWall"))}, ${f2(med(name, "runCpu"))}`,
  );
}
// Paired: a/b within each round (the two ran back to back), then the median of those
// ratios and its IQR: a slow spell of the machine then moves both sides of a ratio.
const q = (xs, f) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * f))];
const paired = (a, b) => results[a].map((r, i) => r.cpu / results[b][i].cpu);
if (results.door && results.mock) {
  const mark = (ok) => (ok ? "ok" : "MISSED");
  const per = paired("door", "mock");
  console.log(
    `paired CPU     door/MockAgent per round: median ${f2(q(per, 0.5))}x [IQR ${f2(q(per, 0.25))}, ${f2(q(per, 0.75))}], ${per.filter((x) => x <= 1).length} of ${per.length} rounds <= 1.0`,
  );
  for (const [what, field] of [
    ["wall", "wall"],
    ["CPU", "cpu"],
    ["whole-run CPU", "runCpu"],
  ]) {
    const ratio = med("door", field) / med("mock", field);
    const bb = results.bb ? `   door/bb.fetch ${f2(med("door", field) / med("bb", field))}x` : "";
    const floor = results.floor ? `   door/floor ${f2(med("door", field) / med("floor", field))}x` : "";
    const plumb = results.plumb ? `   plumb/MockAgent ${f2(med("plumb", field) / med("mock", field))}x` : "";
    console.log(
      `${what.padEnd(14)} door/MockAgent ${f2(ratio)}x (target <= 1.0: ${mark(ratio <= 1)})${plumb}${bb}${floor}`,
    );
  }
}
// Typical call: for each call of the loop, the median of its wall time over the rounds,
// then the mean of those over the calls: a scavenge or a busy spell lands in some rounds'
// calls, not in a call's median. The first call (after the session's load) apart.
const typical = (name, from) => {
  const per = [];
  for (let i = from; i < results[name][0].calls.length; i++) per.push(median(results[name].map((r) => r.calls[i])));
  return mean(per);
};
console.log(
  `typical call  ${names.map((n) => `${n} ${f2(typical(n, 1) * 1000)}us`).join("  ")} (calls 2..${TURNS + 1}; the first: ${names.map((n) => `${n} ${f2(median(results[n].map((r) => r.calls[0])) * 1000)}us`).join("  ")})`,
);
if (results.door && results.mock) {
  const ratio = typical("door", 1) / typical("mock", 1);
  const vs = (n) => (results[n] ? `   ${n}/MockAgent ${f2(typical(n, 1) / typical("mock", 1))}x` : "");
  console.log(
    `typical call  door/MockAgent ${f2(ratio)}x (target <= 1.0: ${ratio <= 1 ? "ok" : "MISSED"})${vs("slot")}${vs("plumb")}`,
  );
}
// context: each replay against MockAgent doing the same job (set up from the recording)
for (const [a, b, what] of [
  ["door", "mockrec", "strict, both compare the request"],
  ["seq", "mockseq", "in order, neither compares"],
]) {
  if (!results[a] || !results[b]) continue;
  const per = paired(a, b);
  console.log(
    `${`${a}/${b}`.padEnd(14)} typical call ${f2(typical(a, 1) / typical(b, 1))}x, wall ${f2(med(a, "wall") / med(b, "wall"))}x, CPU ${f2(med(a, "cpu") / med(b, "cpu"))}x, paired CPU median ${f2(q(per, 0.5))}x [IQR ${f2(q(per, 0.25))}, ${f2(q(per, 0.75))}] (${what})`,
  );
}
