// Start-up cost of the register hook (issue 5): a hello world and an app importing both
// SDKs, each run as a fresh `node` process, in these variants:
//   bare        node <script>
//   off         node --import register.mjs <script>            (BLACKBOX_MODE unset)
//   record      ... BLACKBOX_MODE=record, no config             (target <= 40 ms over bare)
//   rec+mjs     ... + blackbox.config.mjs wrapping an ESM tool  (target <= 150 ms over bare)
//   rec+ts      ... + blackbox.config.ts importing only defineConfig (types stripped by
//               sucrase, imported as a data: module; no cache involved)
//   rec+ts-own  ... + blackbox.config.ts that imports a .ts module of its own (both stripped
//               by sucrase, imported as data: modules; no cache involved)
//   rec+jiti    ... the same, but that module has an import(), so jiti loads the config
//               (its disk cache warm after the warm-up run)
//   rec+jiti-cold  the same with JITI_FS_CACHE=false (jiti transforms every run)
// Interleaved: each round runs every variant of both scripts once, the order rotating
// each round; one warm-up round is not counted. "Over bare" is, per round, the variant's
// wall time minus bare's wall time of the same script in the same round (paired, so load
// swings cancel); the table shows the median and the IQR of those differences.
// Run after `npm run build`: node bench/startup.mjs
// Env: BENCH_ROUNDS (default 15), BENCH_ONLY=hello|app (one script).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const register = join(root, "register.mjs");
const base = mkdtempSync(join(tmpdir(), "bbx-startup-"));

// --- the temp projects: one per config kind, each with the SDKs in node_modules --------

const TOOLS = `export async function get_weather(city) {\n  return { city, forecast: "sunny" };\n}\n`;
const HELLO = `import { get_weather } from "./tools.mjs";\nif (typeof get_weather !== "function") process.exit(3);\n`;
const APP = `import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { get_weather } from "./tools.mjs";
const clients = [new Anthropic({ apiKey: "sk-ant-bench" }), new OpenAI({ apiKey: "sk-bench" })];
if (clients.length !== 2 || typeof get_weather !== "function") process.exit(3);
`;
const CONFIG_MJS = `export default { tools: [{ module: "./tools.mjs", exports: ["get_weather"] }] };\n`;
const CONFIG_TS = `import { defineConfig } from "@ardaulas/blackbox/config";
type Entry = { module: string; exports: string[] };
const weather = { module: "./tools.mjs", exports: ["get_weather"] } satisfies Entry;
export default defineConfig({ tools: [weather] });
`;

function project(name, config) {
  const dir = join(base, name);
  mkdirSync(dir);
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  writeFileSync(join(dir, "hello.mjs"), HELLO);
  writeFileSync(join(dir, "app.mjs"), APP);
  if (config) writeFileSync(join(dir, config[0]), config[1]);
  return dir;
}
const plain = project("plain");
const withMjs = project("mjs", ["blackbox.config.mjs", CONFIG_MJS]);
const withTs = project("ts", ["blackbox.config.ts", CONFIG_TS]);
// imports a .ts module of its own: types stripped by sucrase in both, two data: modules
const CONFIG_OWN = `import { defineConfig } from "@ardaulas/blackbox/config";
import { weather } from "./entries.ts";
export default defineConfig({ tools: [weather] });
`;
const ENTRIES_TS = `type Entry = { module: string; exports: string[] };
export const weather = { module: "./tools.mjs", exports: ["get_weather"] } satisfies Entry;
`;
const withOwn = project("own", ["blackbox.config.ts", CONFIG_OWN]);
writeFileSync(join(withOwn, "entries.ts"), ENTRIES_TS);
// the same, but its module has an import() of its own, which only jiti (its babel transform) runs as written
const ENTRIES_JITI_TS = `${ENTRIES_TS}export const later = () => import("node:os");\n`;
const withJiti = project("jiti", ["blackbox.config.ts", CONFIG_OWN]);
writeFileSync(join(withJiti, "entries.ts"), ENTRIES_JITI_TS);

// --- variants ---------------------------------------------------------------------------

const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith("BLACKBOX_") || k === "NODE_OPTIONS") delete env[k];
const rec = { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(base, "never-written.json") };
const hook = ["--import", register];
const VARIANTS = [
  { name: "bare", cwd: plain, args: [], env: {}, target: undefined },
  { name: "off", cwd: plain, args: hook, env: {}, target: 5 },
  { name: "record", cwd: plain, args: hook, env: rec, target: 40 },
  { name: "rec+mjs", cwd: withMjs, args: hook, env: rec, target: 150 },
  { name: "rec+ts", cwd: withTs, args: hook, env: rec, target: 150 },
  { name: "rec+ts-own", cwd: withOwn, args: hook, env: rec, target: 150 },
  { name: "rec+jiti", cwd: withJiti, args: hook, env: rec, target: 150 },
  { name: "rec+jiti-cold", cwd: withJiti, args: hook, env: { ...rec, JITI_FS_CACHE: "false" }, target: 150 },
];
const SCRIPTS = (process.env.BENCH_ONLY ?? "hello,app").split(",");
for (const s of SCRIPTS)
  if (s !== "hello" && s !== "app") throw new Error(`BENCH_ONLY: unknown script "${s}"; use hello or app`);

// What a record run with no call says at exit, on purpose (the scripts make no call): not a broken variant.
const NO_CALL_NOTICE =
  /^blackbox: no cassette was written to \S+: no process made a model or tool call through Blackbox\s*$/;

/** Wall ms of one `node` process; a non-zero exit or any other stderr stops the bench (a broken variant measures nothing). */
function run(variant, script) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...variant.args, `${script}.mjs`], {
    cwd: variant.cwd,
    env: { ...env, ...variant.env },
    encoding: "utf8",
  });
  const ms = performance.now() - t0;
  if (r.status !== 0 || (r.stderr && !NO_CALL_NOTICE.test(r.stderr))) {
    throw new Error(
      `${variant.name} ${script}.mjs exited ${r.status}: ${r.stderr.trim() || "(no stderr)"}; fix the variant before measuring`,
    );
  }
  return ms;
}

// --- measure ----------------------------------------------------------------------------

const jobs = SCRIPTS.flatMap((script) => VARIANTS.map((variant) => ({ script, variant })));
for (const job of jobs) run(job.variant, job.script); // warm-up: disk caches, jiti's cache
const wall = new Map(jobs.map((j) => [`${j.script}/${j.variant.name}`, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < jobs.length; i++) {
    const { script, variant } = jobs[(i + round) % jobs.length];
    wall.get(`${script}/${variant.name}`).push(run(variant, script));
  }
}
rmSync(base, { recursive: true, force: true });

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.ceil(at)] - s[lo]) * (at - lo);
};
const f0 = (x) => x.toFixed(0);

console.log(`start-up, node ${process.version}, ${ROUNDS} interleaved rounds (rotating order), wall ms per process`);
console.log("variant        median  IQR        over bare: median [IQR]   target  ");
for (const script of SCRIPTS) {
  console.log(
    `-- ${script}.mjs${script === "app" ? " (imports @anthropic-ai/sdk and openai, makes two clients)" : " (imports a one-function tools module)"}`,
  );
  const bare = wall.get(`${script}/bare`);
  for (const variant of VARIANTS) {
    const xs = wall.get(`${script}/${variant.name}`);
    const over = xs.map((x, i) => x - bare[i]);
    const med = quantile(over, 0.5);
    const verdict =
      variant.target === undefined ? "" : `<= ${variant.target}: ${med <= variant.target ? "ok" : "MISSED"}`;
    console.log(
      `${variant.name.padEnd(14)} ${f0(quantile(xs, 0.5)).padStart(6)}  ${f0(quantile(xs, 0.25))}-${f0(quantile(xs, 0.75))}`.padEnd(
        34,
      ) +
        (variant.name === "bare"
          ? ""
          : `${f0(med).padStart(6)} [${f0(quantile(over, 0.25))}, ${f0(quantile(over, 0.75))}]`
        ).padEnd(26) +
        verdict,
    );
  }
}
