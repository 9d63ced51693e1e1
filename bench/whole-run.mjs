// A whole replaying process (issue 26): the 200-call Anthropic agent of bench/loop.mjs as a
// program of its own (agent.mjs: its tool in tools.mjs, the client built from the
// environment), each run a fresh `node` process, in these variants:
//   bare   node agent.mjs, the SDK given a fetch option that returns ready replies (no file
//          read, nothing compared): the anchor for start-up and the floor of a run
//   hook   node --import register.mjs agent.mjs, BLACKBOX_MODE=replay of the cassette the
//          same command recorded, with a blackbox.config.mjs naming the ESM tool (as the
//          docs have a zero-code user write it); the agent's code unchanged
//   hook-cold  the same with BLACKBOX_VERIFY_CACHE=off: the cassette verified in full, as on a
//          machine that never replayed it (the other bb variants find it verified before, by the
//          warm-up run: src/store/verdicts.ts)
//   bb     the agent calling blackbox({ mode: "replay" }) itself: the client given bb.fetch,
//          the tool bb.tools(), bb.finish() at the end
//   mock   undici MockAgent as the global dispatcher, one interceptor per recorded call
//          matching path, method and the exact body, set up from a JSON file of the
//          recorded requests and replies (as a user replaying a capture with it would)
//   snap   undici SnapshotAgent in playback mode as the global dispatcher, its snapshot
//          file recorded by SnapshotAgent itself (mode "record")
// The recordings are made first against a local fake provider on 127.0.0.1, closed before
// the replays (the provider's URL is then a closed port). Rounds rotate the order. Each
// child prints the time from its start (performance.now(), whose origin is the process's
// start) to the first reply and to the answer; the parent takes the wall time of the whole
// process (spawn to exit) and its CPU (user + system, from the child's reaped rusage).
// Reported: each variant's wall and CPU (median of rounds), the ratios hook/mock, hook/snap,
// bb/mock, bb/snap (targets <= 1.0), and start-up to the first model call over bare
// (paired per round; target <= 60 ms for the hook with the 15 MB cassette).
// Run after `npm run build`: node bench/whole-run.mjs
// Env: BENCH_ROUNDS (default 9), BENCH_TURNS (default 200), BENCH_ONLY=hook,bb,... (bare always runs),
// BENCH_OLD_FORMAT=1 rewrites the cassettes as JSON.stringify(trace, null, 2) wrote them before (16 MB),
// BENCH_KEEP=1 keeps the temp project (its path is printed).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const ROOT = resolve(import.meta.dirname, "..");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const RECORD = process.env.BENCH_RECORD === "1";
const ALL = RECORD
  ? ["direct", "hook-record", "bb-record", "snap-record"]
  : ["bare", "hook", "hook-cold", "bb", "mock", "snap"];
const ANCHOR = RECORD ? "direct" : "bare";
const ONLY = process.env.BENCH_ONLY ? [ANCHOR, ...process.env.BENCH_ONLY.split(",")] : ALL;
for (const v of ONLY) if (!ALL.includes(v)) throw new Error(`BENCH_ONLY: unknown variant "${v}"; use ${ALL.join(",")}`);
const VARIANTS = ALL.filter((v) => ONLY.includes(v));

// --- the project --------------------------------------------------------------------------

const base = mkdtempSync(join(tmpdir(), "bbx-whole-run-"));
const REPLIES = `export const TURNS = ${TURNS};
const CITIES = ["Lisbon", "Porto", "Faro", "Braga", "Coimbra", "Evora", "Madeira", "Sintra"];
/** The provider's reply to a request of the loop (a function of how many turns it holds). */
export function reply(body) {
  const turn = body.messages.filter((m) => m.role === "assistant").length;
  const base = {
    id: "msg_01bench" + turn,
    type: "message",
    role: "assistant",
    model: body.model,
    stop_sequence: null,
    usage: { input_tokens: 100 + turn, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (turn === TURNS) return { ...base, content: [{ type: "text", text: "Checked " + TURNS + " forecasts." }], stop_reason: "end_turn" };
  const city = CITIES[turn % CITIES.length];
  return {
    ...base,
    stop_reason: "tool_use",
    content: [
      { type: "text", text: "Checking " + city + "." },
      { type: "tool_use", id: "toolu_01bench" + turn, name: "get_weather", input: { city } },
    ],
  };
}
`;
const TOOLS = `export async function get_weather({ city }) {
  return { city, forecast: city.length % 2 ? "sunny" : "rain", celsius: 15 + city.length };
}
`;
// One agent for every variant; BENCH_VARIANT picks how its client is answered.
const AGENT = `import Anthropic from "@anthropic-ai/sdk";
import { readFileSync, writeFileSync } from "node:fs";
import { get_weather } from "./tools.mjs";

const variant = process.env.BENCH_VARIANT;
let client;
let tools = { get_weather };
let done = async () => {};
const TOOL_SPEC = [{ name: "get_weather", description: "Today's forecast for a city.", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
if (variant === "bare") {
  const { reply } = await import("./replies.mjs");
  const headers = { "content-type": "application/json", "request-id": "req_bench" };
  const fetch = async (url, init) => new Response(JSON.stringify(reply(JSON.parse(init.body))), { status: 200, headers });
  client = new Anthropic({ fetch, maxRetries: 0 });
} else if (variant === "bb" || variant === "bb-record") {
  const { blackbox } = await import("@ardaulas/blackbox");
  const bb = variant === "bb" ? blackbox({ mode: "replay", cassette: process.env.BENCH_CASSETTE }) : blackbox({ mode: "record", out: process.env.BENCH_CASSETTE });
  client = new Anthropic({ fetch: bb.fetch, maxRetries: 0 });
  tools = bb.tools(tools);
  done = (answer) => bb.finish({ result: answer });
} else if (variant === "mock") {
  const { MockAgent, setGlobalDispatcher } = await import("undici");
  const calls = JSON.parse(readFileSync(process.env.BENCH_MOCKS, "utf8"));
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(process.env.ANTHROPIC_BASE_URL);
  for (const c of calls) pool.intercept({ path: c.path, method: "POST", body: c.body }).reply(c.status, c.reply, { headers: c.headers });
  setGlobalDispatcher(agent);
  client = new Anthropic({ maxRetries: 0 });
} else if (variant === "mock-record") {
  const calls = [];
  const real = globalThis.fetch;
  const fetch = async (url, init) => {
    const res = await real(url, init);
    const reply = await res.text();
    calls.push({ path: new URL(url).pathname, body: init.body, status: res.status, headers: { "content-type": res.headers.get("content-type"), "request-id": res.headers.get("request-id") }, reply });
    return new Response(reply, { status: res.status, headers: res.headers });
  };
  client = new Anthropic({ fetch, maxRetries: 0 });
  done = async () => writeFileSync(process.env.BENCH_MOCKS, JSON.stringify(calls));
} else if (variant === "snap" || variant === "snap-record") {
  const { SnapshotAgent, setGlobalDispatcher } = await import("undici");
  const agent = new SnapshotAgent({ mode: variant === "snap" ? "playback" : "record", snapshotPath: process.env.BENCH_SNAPSHOT });
  setGlobalDispatcher(agent);
  client = new Anthropic({ maxRetries: 0 });
  done = async () => { if (variant === "snap-record") await agent.saveSnapshots(); await agent.close(); };
} else {
  client = new Anthropic({ maxRetries: 0 }); // hook, hook-record: the register hook answers (or records) it; direct: the provider
}

const messages = [{ role: "user", content: "Check the weather ${TURNS} times, then summarise." }];
let first;
let answer;
for (let turn = 0; turn <= ${TURNS} + 1 && answer === undefined; turn++) {
  const reply = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system: "You are a weather bot.", tools: TOOL_SPEC, messages });
  first ??= performance.now();
  messages.push({ role: "assistant", content: reply.content });
  const uses = reply.content.filter((b) => b.type === "tool_use");
  if (uses.length === 0) { answer = reply.content[0].text; break; }
  const results = [];
  for (const u of uses) results.push({ type: "tool_result", tool_use_id: u.id, content: JSON.stringify(await tools.get_weather(u.input)) });
  messages.push({ role: "user", content: results });
}
if (answer !== "Checked ${TURNS} forecasts.") throw new Error("bench agent: no final answer: " + answer);
await done(answer);
process.stdout.write(JSON.stringify({ first, end: performance.now(), calls: messages.length / 2 }) + "\\n");
`;
const CONFIG = `export default { tools: [{ module: "./tools.mjs", exports: ["get_weather"] }] };\n`;

function project(name, config) {
  const dir = join(base, name);
  mkdirSync(dir);
  // the repository's node_modules, with this package in it as an installed dependency would be
  mkdirSync(join(dir, "node_modules", "@ardaulas"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules", "@ardaulas", "blackbox"), "dir");
  for (const dep of ["@anthropic-ai", "undici", "canonicalize", "zod", "commander", "es-module-lexer", "jiti"])
    symlinkSync(join(ROOT, "node_modules", dep), join(dir, "node_modules", dep), "dir");
  symlinkSync(join(ROOT, "node_modules", "require-in-the-middle"), join(dir, "node_modules", "require-in-the-middle"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `bench-${name}`, private: true, type: "module" }));
  writeFileSync(join(dir, "agent.mjs"), AGENT);
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  writeFileSync(join(dir, "replies.mjs"), REPLIES);
  if (config) writeFileSync(join(dir, "blackbox.config.mjs"), config);
  return dir;
}
const hooked = project("hooked", CONFIG);
const plain = project("plain");
const files = {
  hookCassette: join(base, "hook.json"),
  bbCassette: join(base, "bb.json"),
  mocks: join(base, "mocks.json"),
  snapshot: join(base, "snapshot.json"),
};

// --- running a child ----------------------------------------------------------------------

const env = { ...process.env, ANTHROPIC_API_KEY: "sk-ant-bench-key-0000000000", NO_COLOR: "1" };
for (const k of Object.keys(env)) if (k.startsWith("BLACKBOX_") || k === "NODE_OPTIONS") delete env[k];
const register = join(ROOT, "register.mjs");
const JOBS = {
  bare: { cwd: plain, args: [], env: {} },
  hook: {
    cwd: hooked,
    args: ["--import", register],
    env: { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: files.hookCassette },
  },
  "hook-cold": {
    cwd: hooked,
    args: ["--import", register],
    env: { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: files.hookCassette, BLACKBOX_VERIFY_CACHE: "off" },
  },
  bb: { cwd: plain, args: [], env: { BENCH_CASSETTE: files.bbCassette } },
  mock: { cwd: plain, args: [], env: { BENCH_MOCKS: files.mocks } },
  snap: { cwd: plain, args: [], env: { BENCH_SNAPSHOT: files.snapshot } },
  direct: { cwd: plain, args: [], env: {} },
  "hook-record": {
    cwd: hooked,
    args: ["--import", register],
    env: { BLACKBOX_MODE: "record", BLACKBOX_OUT: files.hookCassette },
  },
  "bb-record": { cwd: plain, args: [], env: { BENCH_CASSETTE: files.bbCassette } },
  "mock-record": { cwd: plain, args: [], env: { BENCH_MOCKS: files.mocks } },
  "snap-record": { cwd: plain, args: [], env: { BENCH_SNAPSHOT: files.snapshot } },
};

/** CPU ms of this process's reaped children: cutime + cstime (clock ticks of 10 ms). */
function childCpuMs() {
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** One run of `variant` as a fresh node process (async: the fake provider must answer while recording). */
function run(variant, baseUrl) {
  const job = JOBS[variant];
  // a fresh recording each time (recording over a cassette reads it first, to keep its unchanged steps)
  const out = { "hook-record": files.hookCassette, "bb-record": files.bbCassette, "snap-record": files.snapshot }[
    variant
  ];
  if (out) rmSync(out, { force: true });
  return new Promise((done, fail) => {
    const c0 = childCpuMs();
    const t0 = performance.now();
    const child = spawn(process.execPath, [...job.args, "agent.mjs"], {
      cwd: job.cwd,
      env: { ...env, ...job.env, BENCH_VARIANT: variant, ANTHROPIC_BASE_URL: baseUrl },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", fail);
    child.on("close", (code) => {
      const wall = performance.now() - t0;
      const cpu = childCpuMs() - c0;
      // undici says SnapshotAgent is experimental, on stderr: not a broken run
      err = err.replace(
        /^.*ExperimentalWarning: SnapshotAgent is experimental.*\n(\(Use `node --trace-warnings.*\n)?/m,
        "",
      );
      if (code !== 0 || err.trim() !== "")
        return fail(new Error(`${variant} exited ${code}: ${err.trim() || out}; fix the variant before measuring`));
      const r = JSON.parse(out.trim().split("\n").pop());
      if (r.calls !== TURNS + 1) return fail(new Error(`${variant}: ${r.calls} calls, not ${TURNS + 1}`));
      done({ wall, cpu, first: r.first, end: r.end, perCall: (r.end - r.first) / (r.calls - 1) });
    });
  });
}

// --- record once, against a local fake provider ----------------------------------------------

const { reply } = await import(join(plain, "replies.mjs"));
let served = 0;
const fake = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    served++;
    res.writeHead(200, { "content-type": "application/json", "request-id": `req_bench_${served}` });
    res.end(JSON.stringify(reply(JSON.parse(body))));
  });
});
await new Promise((r) => fake.listen(0, "127.0.0.1", r));
const BASE_URL = `http://127.0.0.1:${fake.address().port}`;
// (recording rounds: only MockAgent's capture first, for the raw bytes the cassettes are compared with)
for (const v of (RECORD ? ["mock"] : ["hook", "bb", "mock", "snap"]).filter(
  (v) => RECORD || VARIANTS.includes(v) || (v === "hook" && VARIANTS.includes("hook-cold")),
)) {
  served = 0;
  await run(`${v}-record`, BASE_URL);
  if (served !== TURNS + 1) throw new Error(`recording ${v}: ${served} calls served, not ${TURNS + 1}`);
}
if (!RECORD) await new Promise((r) => fake.close(r));
if (process.env.BENCH_OLD_FORMAT === "1")
  // the same cassettes as JSON.stringify(trace, null, 2) wrote them before (the same value and hashes)
  for (const f of [files.hookCassette, files.bbCassette])
    writeFileSync(f, `${JSON.stringify(JSON.parse(readFileSync(f, "utf8")), null, 2)}\n`);

// --- replay, rounds rotated ------------------------------------------------------------------

const load0 = loadavg();
for (const v of VARIANTS) await run(v, BASE_URL); // warm-up: the OS's file cache, not counted
const results = Object.fromEntries(VARIANTS.map((v) => [v, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < VARIANTS.length; i++) {
    const v = VARIANTS[(i + round) % VARIANTS.length];
    results[v].push(await run(v, BASE_URL));
  }
}
const load1 = loadavg();
if (RECORD) await new Promise((r) => fake.close(r));
const sizes = Object.fromEntries(
  Object.entries(files).map(([k, f]) => [
    k,
    (() => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    })(),
  ]),
);
const raw = RECORD
  ? JSON.parse(readFileSync(files.mocks, "utf8")).reduce(
      (n, c) => n + Buffer.byteLength(c.body) + Buffer.byteLength(c.reply),
      0,
    )
  : 0;
if (process.env.BENCH_KEEP === "1") console.log(`project kept: ${base}`);
else rmSync(base, { recursive: true, force: true });

// --- report ----------------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f0 = (x) => x.toFixed(0);
const f2 = (x) => x.toFixed(2);
const mb = (n) => (n / 1e6).toFixed(1);
const med = (v, k) => median(results[v].map((r) => r[k]));
const uptime = spawnSync("uptime", { encoding: "utf8" }).stdout.trim();
console.log(
  `whole-process replay of a ${TURNS + 1}-call Anthropic agent, node ${process.version}, ${ROUNDS} rotating rounds; ` +
    `cassettes: hook ${mb(sizes.hookCassette)} MB, bb ${mb(sizes.bbCassette)} MB; MockAgent's calls ${mb(sizes.mocks)} MB; snapshot ${mb(sizes.snapshot)} MB`,
);
console.log(`load average before ${load0.map(f2).join(" ")}, after ${load1.map(f2).join(" ")} (${uptime})`);
console.log(
  "variant  wall ms median [rounds]                                   CPU ms   first reply at  over bare [IQR]",
);
const bare = results[ANCHOR];
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.ceil(at)] - s[lo]) * (at - lo);
};
for (const v of VARIANTS) {
  const over = results[v].map((r, i) => r.first - bare[i].first);
  console.log(
    `${v.padEnd(8)} ${f0(med(v, "wall")).padEnd(5)} [${results[v].map((r) => f0(r.wall)).join(" ")}]`.padEnd(72) +
      ` ${f0(med(v, "cpu")).padEnd(8)} ${f0(med(v, "first")).padEnd(15)} ${v === ANCHOR ? "".padEnd(16) : `${f0(quantile(over, 0.5))} [${f0(quantile(over, 0.25))}, ${f0(quantile(over, 0.75))}]`.padEnd(16)} ${f2(med(v, "perCall"))}`,
  );
}
const mark = (x, t) => (x <= t ? "met" : "MISSED");
for (const a of ["hook", "hook-cold", "bb"].filter((v) => VARIANTS.includes(v)))
  for (const b of ["mock", "snap"].filter((v) => VARIANTS.includes(v))) {
    const wall = med(a, "wall") / med(b, "wall");
    const paired = results[a].map((r, i) => r.wall / results[b][i].wall);
    console.log(
      `${a}/${b}: wall ${f2(wall)}x (target <= 1.0: ${mark(wall, 1)}), CPU ${f2(med(a, "cpu") / med(b, "cpu"))}x; ` +
        `paired median ${f2(median(paired))}x, ${paired.filter((x) => x <= 1).length} of ${paired.length} rounds <= 1.0`,
    );
  }
if (RECORD) {
  for (const v of VARIANTS.filter((v) => v !== "direct")) {
    const ratio = med(v, "perCall") / med("direct", "perCall");
    const paired = results[v].map((r, i) => r.perCall / results.direct[i].perCall);
    console.log(
      `${v}/direct per call: ${f2(ratio)}x (target <= 1.15: ${mark(ratio, 1.15)}), paired median ${f2(median(paired))}x; ` +
        `whole process wall ${f2(med(v, "wall") / med("direct", "wall"))}x, CPU ${f2(med(v, "cpu") / med("direct", "cpu"))}x`,
    );
  }
  for (const [k, name] of [
    ["hookCassette", "hook"],
    ["bbCassette", "bb.fetch"],
    ["snapshot", "SnapshotAgent"],
  ])
    console.log(
      `${name} recording ${mb(sizes[k])} MB vs the raw request + response bytes ${mb(raw)} MB: ${f2(sizes[k] / raw)}x (target <= 1.2: ${mark(sizes[k] / raw, 1.2)})`,
    );
}
for (const v of (RECORD ? [] : ["hook", "hook-cold", "bb"]).filter((v) => VARIANTS.includes(v))) {
  const over = quantile(
    results[v].map((r, i) => r.first - bare[i].first),
    0.5,
  );
  console.log(`start-up to the first reply, ${v} over bare: ${f0(over)} ms (target <= 60: ${mark(over, 60)})`);
}
