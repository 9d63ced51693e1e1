/**
 * The register hook's record mode keeps its start-up small (issue 5, bench/startup.mjs):
 * a few bundled files, and no zod, cassette parser or verify before the first call. The writer loads at the
 * session's first call, so a run whose first call is a wrapped tool that exits at once
 * still leaves a verified cassette.
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import {
  hookedNode,
  loadedModules,
  MODULE_LOGGER,
  readCassette,
  REGISTER,
  requireBuild,
  tempDir,
} from "./zeroCodeHelpers.js";

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  requireBuild();
  ({ dir, cleanup } = tempDir());
  writeFileSync(join(dir, "tools.mjs"), "export function stop() {\n  process.exit(5);\n}\n");
  writeFileSync(
    join(dir, "blackbox.config.mjs"),
    'export default { tools: [{ module: "./tools.mjs", exports: ["stop"] }] };\n',
  );
  writeFileSync(join(dir, "first-call-exits.mjs"), 'import { stop } from "./tools.mjs";\nawait stop();\n');
});
afterAll(() => cleanup());

const HEAVY =
  /\/node_modules\/(zod|jiti|es-module-lexer|require-in-the-middle)\/|\/dist\/trace\/(verify|parse|shape|schema)\.js$|\/dist\/store\/(index|write|loadVerified)\.js$/;

/** The module URLs a record-mode hello world loads with this preload, in a folder with no config. */
async function loadedByRecord(preload: string): Promise<string[]> {
  const plain = join(dir, `plain-${Math.random().toString(36).slice(2)}`);
  mkdirSync(plain);
  writeFileSync(join(plain, "hello.mjs"), "console.log('hello');\n");
  const env = { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "never.json") };
  const r = await runProcess(process.execPath, ["--import", MODULE_LOGGER, "--import", preload, "hello.mjs"], {
    cwd: plain,
    env,
  });
  expect(r.stdout).toBe("hello\n");
  expect(existsSync(join(dir, "never.json"))).toBe(false);
  return loadedModules(r.stderr);
}

test("record mode through register.mjs runs the bundle and loads no zod, jiti or module hooks at start-up", async () => {
  const loaded = await loadedByRecord(REGISTER);
  // the logger saw the hook's own graph (else this test could not fail)
  expect(loaded.some((u) => u.endsWith("/dist/register-bundle/register.js"))).toBe(true);
  expect(loaded.filter((u) => HEAVY.test(u))).toEqual([]);
  // the repo's own @anthropic-ai/sdk and openai are framework targets (src/tools/frameworks/), whose files the
  // tool road serves: here on the loader thread, as the logger is a loader (on Node 20 with no other loader,
  // the main-thread read, which loads nothing); that road is checked to load no lexer above
  const road = /\/dist\/tools\/esm(Loader|Warn|Wrapper)\.js$|\/dist\/globals\.js$|\?blackbox-probe=/;
  expect(loaded.filter((u) => !road.test(u)).length).toBeLessThan(10);
});

test("tsc's unbundled dist/register.js in record mode loads no zod, cassette parser or verify", async () => {
  const loaded = await loadedByRecord(join(ROOT, "dist", "register.js"));
  expect(loaded.some((u) => u.endsWith("/dist/session/engine.js"))).toBe(true);
  expect(loaded.some((u) => u.endsWith("/dist/interception/dispatcher/door.js"))).toBe(true);
  expect(loaded.filter((u) => HEAVY.test(u))).toEqual([]);
});

test("a run whose first call is a wrapped tool that exits at once still writes a verified cassette", async () => {
  const out = join(dir, "exits.json");
  const r = await hookedNode(dir, ["first-call-exits.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(5);
  const trace = readCassette(out);
  expect(trace.steps.map((s) => s.type)).toEqual(["metadata"]);
  expect(trace.steps[0]!.payload).toMatchObject({ status: "error", reason: "calls_in_flight", exitCode: 5 });
});

test("without the bundle (a tsc-only build) register.mjs runs tsc's dist/register.js", async () => {
  const copy = join(dir, "pkg");
  mkdirSync(copy);
  cpSync(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
  cpSync(REGISTER, join(copy, "register.mjs"));
  expect(
    (await loadedByRecord(join(copy, "register.mjs"))).some((u) => u.endsWith("/pkg/dist/register-bundle/register.js")),
  ).toBe(true);
  rmSync(join(copy, "dist", "register-bundle"), { recursive: true });
  const plain = await loadedByRecord(join(copy, "register.mjs"));
  expect(plain.some((u) => u.endsWith("/pkg/dist/register.js"))).toBe(true);
  expect(plain.some((u) => u.includes("/register-bundle/"))).toBe(false);
});
