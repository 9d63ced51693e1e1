// A user's vitest suite replayed three ways, whole-process wall time (issue "Speed": "a vitest
// suite of 50 replaying tests of 20 calls each, side by side with the same suite on undici's
// SnapshotAgent and on MSW handlers: Blackbox's whole-suite wall time <= theirs").
//
// It generates, in a temp folder, a vitest project of 5 test files x 10 tests (a suite
// grouped by feature, as a user's is: each file's tests share a setup, and vitest gives each
// file a worker of its own, so 50 one-test files would mostly measure vitest's per-file
// start-up, the same for all three). Each test runs a 20-call Anthropic tool loop through the
// real @anthropic-ai/sdk, with a client built in the test, three ways:
//   bb    useCassette() from @ardaulas/blackbox/vitest, the client given bb.fetch and the
//         tools bb.tools(); replaying cassettes (one per test) recorded once beforehand
//         against a local fake provider; CI=1, so a missing cassette fails
//   snap  undici's SnapshotAgent in playback mode as the global dispatcher, set in a setup
//         file (one snapshot file per test file), recorded the same way (mode "record")
//   msw   MSW's setupServer in a setup file, a handler answering the same replies (computed
//         from the request, as an MSW handler is written)
// Each variant is `npx vitest run --config <variant>` in a child process, as a user runs it
// (npx, vitest's start-up, its workers, the transforms: all counted), one after the other
// in a rotating order over BENCH_ROUNDS rounds after a warm-up run each. The fake provider is
// closed before the replays: nothing is served from the network.
// CPU is that of the whole process tree (this process's reaped children, /proc/self/stat).
// Dependencies: bench/vitest-suite/package.json and its package-lock.json (installed here
// with `npm ci` when missing); the package under test is copied into that node_modules as npm
// installs it. Run after `npm run build`: node bench/vitest-suite.mjs
// Env: BENCH_ROUNDS (default 5), BENCH_FILES (5), BENCH_TESTS (10 a file), BENCH_CALLS (20 a test),
// BENCH_KEEP=1 keeps the generated project (its path is printed).
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");
const DEPS = join(ROOT, "bench", "vitest-suite");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const FILES = Number(process.env.BENCH_FILES ?? 5);
const TESTS = Number(process.env.BENCH_TESTS ?? 10);
const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const TOTAL = FILES * TESTS;
const VARIANTS = ["bb", "snap", "msw"];

if (!existsSync(join(ROOT, "dist", "vitest", "index.js"))) throw new Error("run `npm run build` first");

// --- the bench project's dependencies --------------------------------------------------

const MARKER = join(DEPS, "node_modules", ".bench-installed");
const lockHash = createHash("sha256")
  .update(readFileSync(join(DEPS, "package-lock.json")))
  .digest("hex");
if (!existsSync(MARKER) || readFileSync(MARKER, "utf8") !== lockHash) {
  console.log("installing bench/vitest-suite (npm ci) ...");
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: DEPS, stdio: "inherit" });
  writeFileSync(MARKER, lockHash);
}
// the package under test, as `npm install @ardaulas/blackbox` lays it out (package.json "files");
// its own dependencies resolve from the repository's node_modules, above
const pkg = join(DEPS, "node_modules", "@ardaulas", "blackbox");
rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg, { recursive: true });
for (const f of ["package.json", "dist", "bin", "register.mjs"])
  cpSync(join(ROOT, f), join(pkg, f), { recursive: true });

// --- the generated project ---------------------------------------------------------------

const project = mkdtempSync(join(tmpdir(), "bbx-bench-vitest-"));
symlinkSync(join(DEPS, "node_modules"), join(project, "node_modules"));

const files = {
  "package.json": JSON.stringify({ name: "bench-vitest-suite", private: true, type: "module" }, null, 2),
  // the provider's replies, a function of the request: CALLS - 1 tool calls, then the answer
  "replies.js": `export const CALLS = ${CALLS};
export function reply(body) {
  const turn = body.messages.filter((m) => m.role === "assistant").length;
  const last = turn >= CALLS - 1;
  const city = "City " + turn;
  return {
    id: "msg_bench_" + turn,
    type: "message",
    role: "assistant",
    model: body.model,
    content: last
      ? [{ type: "text", text: "Done: checked " + turn + " cities for " + body.messages[0].content + "." }]
      : [
          { type: "text", text: "Checking " + city + "." },
          { type: "tool_use", id: "toolu_bench_" + turn, name: "get_weather", input: { city } },
        ],
    stop_reason: last ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 100 + 40 * turn, output_tokens: 20 },
  };
}
`,
  "agent.ts": `// The agent under test: it loops until the model stops asking for tools.
import type Anthropic from "@anthropic-ai/sdk";

export const tools = {
  async get_weather(input: { city: string }) {
    return { city: input.city, sky: input.city.length % 2 ? "sunny" : "rain", celsius: 15 + input.city.length };
  },
};

export async function runAgent(client: Anthropic, t: typeof tools, task: string): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  for (let turn = 0; turn < 30; turn++) {
    const reply = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      system: "You are a travel agent. Check the weather of every city you are asked about.",
      tools: [
        {
          name: "get_weather",
          description: "Today's forecast for a city.",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
      messages,
    });
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    if (uses.length === 0) return reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const use of uses) {
      const out = await t.get_weather(use.input as { city: string });
      results.push({ type: "tool_result", tool_use_id: use.id, content: JSON.stringify(out) });
    }
    messages.push({ role: "user", content: results });
  }
  throw new Error("no answer within 30 turns");
}
`,
  "snap/setup.ts": `// undici's SnapshotAgent as the global dispatcher: one snapshot file per test file.
import { basename, dirname, join } from "node:path";
import { getGlobalDispatcher, setGlobalDispatcher, SnapshotAgent } from "undici";
import { afterAll, beforeAll, expect } from "vitest";

const mode = process.env.SNAPSHOT_MODE === "record" ? "record" : "playback";
let agent: SnapshotAgent;
let before: ReturnType<typeof getGlobalDispatcher>;

beforeAll(() => {
  const path = expect.getState().testPath!;
  const snapshotPath = join(dirname(path), "__snapshots__", basename(path) + ".json");
  agent = new SnapshotAgent({ mode, snapshotPath });
  before = getGlobalDispatcher();
  setGlobalDispatcher(agent);
});

afterAll(async () => {
  if (mode === "record") await agent.saveSnapshots();
  setGlobalDispatcher(before);
  await agent.close();
});
`,
  "msw/setup.ts": `// MSW: a handler answering the provider's replies.
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import { reply } from "../replies.js";

const server = setupServer(
  http.post("*/v1/messages", async ({ request }) => HttpResponse.json(reply(await request.json()))),
);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());
`,
};
const config = (variant, setup) =>
  `import { defineConfig } from "vitest/config";

export default defineConfig({ test: { include: ["${variant}/*.test.ts"]${setup ? `, setupFiles: ["${setup}"]` : ""} } });
`;
files["vitest.bb.config.ts"] = config("bb");
files["vitest.snap.config.ts"] = config("snap", "./snap/setup.ts");
files["vitest.msw.config.ts"] = config("msw", "./msw/setup.ts");

const clientOf = {
  bb: `const bb = useCassette();
    const client = new Anthropic({ fetch: bb.fetch, maxRetries: 0 });
    const answer = await runAgent(client, bb.tools(tools), TASK);`,
  snap: `const client = new Anthropic({ maxRetries: 0 });
    const answer = await runAgent(client, tools, TASK);`,
};
clientOf.msw = clientOf.snap;
for (const variant of VARIANTS) {
  for (let f = 1; f <= FILES; f++) {
    const tests = [];
    for (let t = 1; t <= TESTS; t++) {
      const task = `Plan trip ${f}.${t}`;
      tests.push(`test("trip ${f}.${t}", async () => {
    ${clientOf[variant].replaceAll("TASK", JSON.stringify(task))}
    expect(answer).toBe(${JSON.stringify(`Done: checked ${CALLS - 1} cities for ${task}.`)});
  });`);
    }
    files[`${variant}/trips-${f}.test.ts`] = `import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, test } from "vitest";
${variant === "bb" ? `import { useCassette } from "@ardaulas/blackbox/vitest";\n` : ""}import { runAgent, tools } from "../agent.js";

describe("trips ${f}", () => {
  ${tests.join("\n\n  ")}
});
`;
  }
}
for (const [name, text] of Object.entries(files)) {
  mkdirSync(join(project, name, ".."), { recursive: true });
  writeFileSync(join(project, name), text);
}

// --- running it ------------------------------------------------------------------------------

/** CPU ms of this process's reaped children (and theirs): utime+stime of the whole tree. */
function childCpuMs() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[13]) + Number(f[14])) * 10; // cutime, cstime, in clock ticks of 10 ms
}

const ENV = {
  ...process.env,
  ANTHROPIC_API_KEY: "sk-bench-key",
  OPENAI_API_KEY: undefined,
  VITEST: undefined,
  VITEST_WORKER_ID: undefined,
  VITEST_POOL_ID: undefined,
  NODE_OPTIONS: undefined,
  BLACKBOX_RECORD: undefined,
  NO_UPDATE_NOTIFIER: "1",
  npm_config_update_notifier: "false",
  FORCE_COLOR: undefined,
  NO_COLOR: "1",
};

/** `npx vitest run --config vitest.<variant>.config.ts`; its wall and CPU ms; throws unless all tests passed. */
function vitest(variant, env) {
  return new Promise((done, fail) => {
    const c0 = childCpuMs();
    const t0 = performance.now();
    const child = spawn("npx", ["vitest", "run", "--config", `vitest.${variant}.config.ts`], {
      cwd: project,
      env: Object.fromEntries(Object.entries({ ...ENV, ...env }).filter(([, v]) => v !== undefined)),
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", fail);
    child.on("close", (code) => {
      const wall = performance.now() - t0;
      const cpu = childCpuMs() - c0;
      if (code !== 0 || !new RegExp(`Tests\\s+${TOTAL} passed`).test(out.replace(/\x1b\[[0-9;]*m/g, "")))
        fail(new Error(`${variant}: vitest exited ${code}, not ${TOTAL} passed:\n${out.slice(-4000)}`));
      else done({ wall, cpu });
    });
  });
}

// record once, against a local fake provider answering reply()
const { reply } = await import(pathToFileURL(join(project, "replies.js")).href);
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
for (const [variant, env] of [
  ["bb", { BLACKBOX_RECORD: "all" }],
  ["snap", { SNAPSHOT_MODE: "record" }],
]) {
  served = 0;
  await vitest(variant, { ...env, ANTHROPIC_BASE_URL: BASE_URL });
  if (served !== TOTAL * CALLS) throw new Error(`recording ${variant}: ${served} calls, not ${TOTAL * CALLS}`);
}
await new Promise((r) => fake.close(r));
const count = (dir) => readdirSync(join(project, dir)).filter((n) => n.endsWith(".json")).length;
const cassettes = readdirSync(join(project, "bb", "__cassettes__")).reduce(
  (n, d) => n + count(join("bb", "__cassettes__", d)),
  0,
);
if (cassettes !== TOTAL) throw new Error(`${cassettes} cassettes recorded, not ${TOTAL}`);
if (count(join("snap", "__snapshots__")) !== FILES) throw new Error("snapshot files missing");

// replay: the provider's URL is a closed port, CI=1 (a missing cassette fails, nothing is recorded)
const REPLAY = { CI: "1", ANTHROPIC_BASE_URL: BASE_URL };
for (const v of VARIANTS) await vitest(v, REPLAY); // warm-up (the OS's file cache), not counted
const results = Object.fromEntries(VARIANTS.map((v) => [v, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]); // rotate who goes first
  for (const v of order) results[v].push(await vitest(v, REPLAY));
}
if (process.env.BENCH_KEEP === "1") console.log(`project kept: ${project}`);
else rmSync(project, { recursive: true, force: true });

// --- report ----------------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const med = (v, k) => median(results[v].map((r) => r[k]));
const f0 = (x) => x.toFixed(0);
const f2 = (x) => x.toFixed(2);
const NAMES = { bb: "bb useCassette()", snap: "undici SnapshotAgent", msw: "MSW setupServer" };
console.log(
  `vitest suite: ${FILES} files x ${TESTS} tests, ${CALLS} calls a test (${TOTAL * CALLS} calls), ` +
    `\`npx vitest run\` a run, node ${process.version}, ${ROUNDS} rotating rounds`,
);
console.log("whole-process ms, median of rounds (each round's wall in brackets; CPU = the process tree's)");
console.log("variant               wall   [rounds]                          CPU");
for (const v of VARIANTS) {
  const rounds = results[v].map((r) => f0(r.wall)).join(" ");
  console.log(
    `${NAMES[v].padEnd(21)} ${f0(med(v, "wall")).padEnd(6)} [${rounds}]`.padEnd(66) + ` ${f0(med(v, "cpu"))}`,
  );
}
const mark = (x) => (x <= 1 ? "met" : "MISSED");
for (const other of ["snap", "msw"]) {
  const wall = med("bb", "wall") / med(other, "wall");
  const cpu = med("bb", "cpu") / med(other, "cpu");
  const paired = results.bb.map((r, i) => r.wall / results[other][i].wall);
  console.log(
    `bb/${NAMES[other]}: wall ${f2(wall)}x (target <= 1.0: ${mark(wall)}), CPU ${f2(cpu)}x; ` +
      `per round ${paired.map(f2).join(" ")}, ${paired.filter((x) => x <= 1).length} of ${paired.length} <= 1.0`,
  );
}
