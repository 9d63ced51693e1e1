/**
 * How the register hook wraps configured tool files (src/tools/index.ts, esmTools.ts):
 * one wrapper module at an ESM tool file's URL, whichever road its source takes: Node's
 * in-thread hooks where they are sound (Node 24), the main-thread read where Node has
 * none (Node 20), a `module.register` loader when another loader is there. Each app runs
 * once bare and once under the hook in record mode: what the app sees of its modules
 * must be the same, and every configured call must be one recorded tool step.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runProcess } from "../helpers/child.js";
import {
  hookedNode,
  noCassetteNotice,
  readCassette,
  REGISTER,
  requireBuild,
  tempDir,
  toolNames,
} from "./zeroCodeHelpers.js";

const tmp = tempDir();
beforeAll(() => requireBuild());
afterAll(() => tmp.cleanup());

/** A tool module's own URL, behind the wrapper at its URL, gains this query (every road). */
const MARK = "?blackbox-tool-original";
/** The road this Node takes with no other loader: Node 20 has no in-thread module hooks. */
const nodeModule = (await import("node:module")) as { registerHooks?: unknown };
const OWN_ROAD = typeof nodeModule.registerHooks === "function" ? "in-thread hooks" : "main-thread read";
/** An app line that prints the road the hook took (the registry the wrappers call keeps it). */
const PRINT_ROAD = 'console.log(globalThis[Symbol.for("ardaulas.blackbox.esmTools.v1")]?.road ?? "bare");\n';

let projects = 0;
function project(files: Record<string, string>): string {
  const dir = join(tmp.dir, `p${projects++}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** The app bare, then under the hook (record, no provider): the same output, the tool steps recorded. */
async function bareAndHooked(dir: string, app: string, preArgs: string[] = [], postArgs: string[] = []) {
  const bare = await runProcess(process.execPath, [...preArgs, app], { cwd: dir });
  expect(bare.stderr).toBe("");
  expect(bare.code).toBe(0);
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.json`);
  const hooked = await runProcess(process.execPath, [...preArgs, "--import", REGISTER, ...postArgs, app], {
    cwd: dir,
    env: { BLACKBOX_MODE: "record", BLACKBOX_OUT: out },
  });
  expect(hooked.stderr).toBe("");
  expect(hooked.code).toBe(0);
  return { bare: bare.stdout, hooked: hooked.stdout, trace: readCassette(out) };
}

/** bareAndHooked, where the app prints `output` both ways. */
async function sameAsBare(dir: string, app: string, output: string, preArgs: string[] = []) {
  const r = await bareAndHooked(dir, app, preArgs);
  expect(r.hooked).toBe(output);
  expect(r.bare).toBe(output);
  return r;
}

const WEATHER_TOOLS = `
export function get_weather(city) { return { city, sky: "sun" }; }
export const unit = "celsius";
export default function greet() { return "hello"; }
export * from "./more.mjs";
export function whereAmI() { return import.meta.url; }
`;

describe("an ESM tools module", () => {
  test("is seen by the app as it is without the hook, and each configured call is one tool step", async () => {
    const dir = project({
      "package.json": '{ "type": "module" }',
      "tools.mjs": WEATHER_TOOLS,
      "more.mjs": "export function save_note(text) { return `saved ${text}`; }\nexport const extra = 1;\n",
      "blackbox.config.mjs":
        'export default { tools: [{ module: "./tools.mjs", exports: ["get_weather", "save_note"] }] };\n',
      "app.mjs": `
import greet, { get_weather, save_note, unit, extra } from "./tools.mjs";
import * as ns from "./tools.mjs";
console.log(JSON.stringify(Object.keys(ns)), get_weather.name, save_note.name, typeof ns.default, greet(), unit, extra);
console.log(JSON.stringify(await get_weather("Lisbon")), await ns.save_note("rain"), ns.get_weather === get_weather);
`,
    });
    const r = await bareAndHooked(dir, "app.mjs");
    expect(r.hooked).toBe(r.bare);
    expect(r.bare).toContain(
      '["default","extra","get_weather","save_note","unit","whereAmI"] get_weather save_note function hello celsius 1',
    );
    expect(toolNames(r.trace)).toEqual(["get_weather", "save_note"]);
    const results = r.trace.steps
      .filter((s) => s.type === "tool_result")
      .map((s) => (s.payload as { result: unknown }).result);
    expect(results).toEqual([{ city: "Lisbon", sky: "sun" }, "saved rain"]);
  });

  test(`takes this Node's own road with no other loader (${OWN_ROAD}); the module's own URL gains ${MARK}`, async () => {
    const dir = project({
      "tools.mjs": "export function whereAmI() { return import.meta.url; }\n",
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["whereAmI"] }] };\n',
      "app.mjs": `import { whereAmI } from "./tools.mjs";\nconsole.log(await whereAmI());\n${PRINT_ROAD}`,
    });
    const r = await bareAndHooked(dir, "app.mjs");
    const [bareUrl, bareRoad] = r.bare.trim().split("\n");
    expect(bareUrl).toMatch(/\/tools\.mjs$/);
    expect(bareRoad).toBe("bare");
    expect(r.hooked).toBe(`${bareUrl}${MARK}\n${OWN_ROAD}\n`);
    expect(toolNames(r.trace)).toEqual(["whereAmI"]);
  });

  test("a default export can be the tool, and a sync tool's call is awaited like any other", async () => {
    const dir = project({
      "tools.mjs": "export default function lookup(q) { return q.toUpperCase(); }\nexport const other = 2;\n",
      "blackbox.config.mjs":
        'export default { tools: [{ module: "./tools.mjs", export: "default", name: "lookup" }] };\n',
      "app.mjs":
        'import lookup, { other } from "./tools.mjs";\nconsole.log(lookup.name, await lookup("abc"), other);\n',
    });
    const r = await sameAsBare(dir, "app.mjs", "lookup ABC 2\n");
    expect(toolNames(r.trace)).toEqual(["lookup"]);
  });

  test("an export the module later replaces is called as it is now (live binding), and recorded", async () => {
    const dir = project({
      "tools.mjs":
        "export let search = (q) => `old ${q}`;\nexport function upgrade() { search = (q) => `new ${q}`; }\n",
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["search"] }] };\n',
      "app.mjs":
        'import { search, upgrade } from "./tools.mjs";\nconsole.log(await search("a"));\nupgrade();\nconsole.log(await search("b"));\n',
    });
    const r = await sameAsBare(dir, "app.mjs", "old a\nnew b\n");
    const results = r.trace.steps
      .filter((s) => s.type === "tool_result")
      .map((s) => (s.payload as { result: unknown }).result);
    expect(results).toEqual(["old a", "new b"]);
  });

  test("a module of an import cycle can call the tool while the cycle is still loading", async () => {
    const dir = project({
      "tools.mjs": 'import "./warmup.mjs";\nexport function ping(n) { return n + 1; }\n',
      "warmup.mjs":
        'import { ping } from "./tools.mjs";\nexport const warmed = ping(1);\nconsole.log("warm", typeof warmed);\n',
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["ping"] }] };\n',
      "app.mjs": 'import { ping } from "./tools.mjs";\nconsole.log(await ping(41));\n',
    });
    const hooked = await bareAndHooked(dir, "app.mjs");
    expect(hooked.bare).toBe("warm number\n42\n");
    // Under the hook the early call returns a promise (every wrapped tool is async) and is recorded.
    expect(hooked.hooked).toBe("warm object\n42\n");
    expect(toolNames(hooked.trace)).toEqual(["ping", "ping"]);
  });

  test("the app reading its tool file by URL gets the file, not a wrapper", async () => {
    const dir = project({
      "tools.mjs": "export function ping() { return 1; }\n",
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["ping"] }] };\n',
      "app.mjs": `
import { readFile } from "node:fs/promises";
import { ping } from "./tools.mjs";
console.log(JSON.stringify(String(await readFile(new URL("./tools.mjs", import.meta.url)))), await ping());
`,
    });
    await sameAsBare(dir, "app.mjs", '"export function ping() { return 1; }\\n" 1\n');
  });

  test("a .js file with no package type is ESM or CommonJS by its syntax, as Node decides, and wrapped either way", async () => {
    const dir = project({
      "package.json": '{ "name": "untyped" }',
      "esm-tools.js": "export function fromEsm(x) { return `esm ${x}`; }\n",
      "cjs-tools.js": "exports.fromCjs = (x) => `cjs ${x}`;\n",
      "blackbox.config.mjs":
        'export default { tools: [{ module: "./esm-tools.js", exports: ["fromEsm"] }, { module: "./cjs-tools.js", exports: ["fromCjs"] }] };\n',
      "app.mjs":
        'import { fromEsm } from "./esm-tools.js";\nimport { fromCjs } from "./cjs-tools.js";\nconsole.log(await fromEsm(1), await fromCjs(2));\n',
    });
    const r = await sameAsBare(dir, "app.mjs", "esm 1 cjs 2\n", ["--no-warnings"]); // Node warns of the reparse
    expect(toolNames(r.trace)).toEqual(["fromEsm", "fromCjs"]);
  });

  test("imported and also require()d, it is one module, wrapped once", async () => {
    const dir = project({
      "tools.mjs": "export function ping(n) { return n * 2; }\n",
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["ping"] }] };\n',
      "app.mjs": `
import { createRequire } from "node:module";
import { ping } from "./tools.mjs";
const required = createRequire(import.meta.url)("./tools.mjs");
console.log(await ping(1), await required.ping(2));
`,
    });
    const r = await sameAsBare(dir, "app.mjs", "2 4\n");
    expect(toolNames(r.trace)).toEqual(["ping", "ping"]);
  });
  test("require()d first and imported after, it is still one module, wrapped once", async () => {
    const dir = project({
      "tools.mjs": "export function ping(n) { return n * 3; }\n",
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["ping"] }] };\n',
      "app.cjs": `
const required = require("./tools.mjs");
(async () => {
  const imported = await import("./tools.mjs");
  console.log(await required.ping(1), await imported.ping(2), imported.ping === required.ping);
})();
`,
    });
    const r = await sameAsBare(dir, "app.cjs", "3 6 true\n");
    expect(toolNames(r.trace)).toEqual(["ping", "ping"]);
  });
});

describe("other loaders", () => {
  const files = {
    "tools.mjs": "export function whereAmI() { return import.meta.url; }\n",
    "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["whereAmI"] }] };\n',
    "app.mjs": `import { whereAmI } from "./tools.mjs";\nconsole.log(await whereAmI());\n${PRINT_ROAD}`,
    // a loader that passes everything on, registered with the named import
    "loader.mjs": 'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
    "hooks.mjs": "export async function load(url, context, next) { return next(url, context); }\n",
  };
  // Where Node has sound in-thread hooks they serve the wrappers whatever else is registered.
  const road = OWN_ROAD === "in-thread hooks" ? OWN_ROAD : "loader thread";

  test(`a loader registered before the hook: the wrappers still stand (${road})`, async () => {
    const dir = project(files);
    const r = await bareAndHooked(dir, "app.mjs", ["--import", "./loader.mjs"]);
    const [bareUrl] = r.bare.trim().split("\n");
    expect(r.hooked).toBe(`${bareUrl}${MARK}\n${road}\n`);
    expect(toolNames(r.trace)).toEqual(["whereAmI"]);
  });

  test(`a loader registered after the hook: the wrappers' loader goes on top of it (${road})`, async () => {
    const dir = project(files);
    const r = await bareAndHooked(dir, "app.mjs", [], ["--import", "./loader.mjs"]);
    const [bareUrl] = r.bare.trim().split("\n");
    expect(r.hooked).toBe(`${bareUrl}${MARK}\n${road}\n`);
    expect(toolNames(r.trace)).toEqual(["whereAmI"]);
  });
  test("a loader registered after the hook that answers the tool file itself, without asking the hooks below it", async () => {
    const dir = project({
      ...files,
      "hooks.mjs": `import { readFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.endsWith("/tools.mjs")) return { format: "module", source: readFileSync(new URL(url)), shortCircuit: true };
  return next(url, context);
}
`,
    });
    const r = await bareAndHooked(dir, "app.mjs", [], ["--import", "./loader.mjs"]);
    const [bareUrl] = r.bare.trim().split("\n");
    expect(r.hooked.split("\n")[0]).toBe(`${bareUrl}${MARK}`);
    expect(toolNames(r.trace)).toEqual(["whereAmI"]);
  });

  test.runIf(OWN_ROAD === "in-thread hooks")(
    "in-thread hooks registered after the hook that answer the tool file: ours goes on top again",
    async () => {
      const dir = project({
        ...files,
        "loader.mjs": `import { registerHooks } from "node:module";
import { readFileSync } from "node:fs";
registerHooks({ load(url, context, next) {
  if (url.endsWith("/tools.mjs")) return { format: "module", source: readFileSync(new URL(url)), shortCircuit: true };
  return next(url, context);
} });
`,
      });
      const r = await bareAndHooked(dir, "app.mjs", [], ["--import", "./loader.mjs"]);
      expect(r.hooked).toContain(MARK);
      expect(toolNames(r.trace)).toEqual(["whereAmI"]);
    },
  );

  test("an fs.promises.readFile wrapper installed after the hook, and a frozen Error before it: the tools are still wrapped", async () => {
    const dir = project({
      ...files,
      "wrapfs.mjs": `import fsp from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
const read = fsp.readFile;
fsp.readFile = function readFile(...args) { return read.apply(this, args); };
syncBuiltinESMExports();
`,
      "freeze.mjs": "Object.freeze(Error);\n",
    });
    const wrapped = await bareAndHooked(dir, "app.mjs", [], ["--import", "./wrapfs.mjs"]);
    expect(wrapped.hooked).toContain(MARK);
    expect(toolNames(wrapped.trace)).toEqual(["whereAmI"]);
    const frozen = await bareAndHooked(dir, "app.mjs", ["--import", "./freeze.mjs"]);
    expect(frozen.hooked).toContain(MARK);
    expect(toolNames(frozen.trace)).toEqual(["whereAmI"]);
  });
});

describe("exports the module settles later", () => {
  test("`export let f` assigned by an init function: no refusal at load, each call after init recorded", async () => {
    const dir = project({
      "tools.mjs": "export let lookup;\nexport function init() { lookup = (q) => `found ${q}`; }\n",
      "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["lookup"] }] };\n',
      "app.mjs": 'import { init, lookup } from "./tools.mjs";\ninit();\nconsole.log(await lookup("x"));\n',
    });
    const r = await sameAsBare(dir, "app.mjs", "found x\n");
    expect(toolNames(r.trace)).toEqual(["lookup"]);
  });
});

test("a tool file run as the entry point stays itself: its main-module check holds", async () => {
  const dir = project({
    "tools.mjs": `import { pathToFileURL } from "node:url";
export function ping() { return 1; }
console.log(import.meta.url === pathToFileURL(process.argv[1]).href ? "main" : "not main");
`,
    "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["ping"] }] };\n',
  });
  const bare = await runProcess(process.execPath, ["tools.mjs"], { cwd: dir });
  const hooked = await hookedNode(dir, ["tools.mjs"], {
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: join(dir, "never.json"),
  });
  expect([bare.stdout, hooked.stdout, hooked.stderr]).toEqual([
    "main\n",
    "main\n",
    noCassetteNotice(join(dir, "never.json")),
  ]);
});

test("a tool file imported by a module that require() loads: wrapped where Node has in-thread hooks, else one clear warning", async () => {
  const dir = project({
    "tools.mjs": "export function ping(n) { return n + 1; }\n",
    "agent.mjs": 'import { ping } from "./tools.mjs";\nexport const run = () => ping(1);\n',
    "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.mjs", exports: ["ping"] }] };\n',
    "app.cjs": 'const { run } = require("./agent.mjs");\nPromise.resolve(run()).then((v) => console.log(v));\n',
  });
  const out = join(dir, "out.json");
  const r = await hookedNode(dir, ["app.cjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
  expect(r.stdout).toBe("2\n");
  if (OWN_ROAD === "in-thread hooks") {
    expect(r.stderr).toBe("");
    expect(toolNames(readCassette(out))).toEqual(["ping"]);
  } else {
    expect(r.stderr).toBe(
      `blackbox: ${join(dir, "agent.mjs")} is loaded with require() and imports the tool file ${join(dir, "tools.mjs")}: on Node ${process.versions.node} a module that require() loads cannot be wrapped, so calls of its configured tools are not recorded. Load ${join(dir, "agent.mjs")} with import() instead, or run on Node >= 22.22.3 / 24.11.1.\n` +
        noCassetteNotice(out), // the tool call was not seen, so nothing was recorded
    );
  }
});

test("require() of an ES tool file with require(esm) turned off fails with Node's own error about the file", async () => {
  const dir = project({
    "package.json": '{ "name": "untyped" }',
    "tools.js": "export function ping() { return 1; }\n",
    "blackbox.config.mjs": 'export default { tools: [{ module: "./tools.js", exports: ["ping"] }] };\n',
    "app.cjs": 'require("./tools.js");\n',
  });
  const args = ["--no-experimental-require-module", "--no-warnings"];
  const bare = await runProcess(process.execPath, [...args, "app.cjs"], { cwd: dir });
  const hooked = await hookedNode(dir, [...args, "app.cjs"], {
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: join(dir, "never.json"),
  });
  const firstLines = (text: string) =>
    text
      .split("\n")
      .filter((l) => /Error|export/.test(l))
      .slice(0, 2);
  expect(bare.code).not.toBe(0);
  expect(hooked.code).toBe(bare.code);
  expect(firstLines(hooked.stderr)).toEqual(firstLines(bare.stderr));
  expect(hooked.stderr).not.toContain("__blackbox");
});

test("tools.js and tools.cjs side by side: each file's own exports are wrapped, under their own names", async () => {
  const dir = project({
    "package.json": '{ "type": "commonjs" }',
    "tools.js": "exports.alpha = (x) => `alpha ${x}`;\nexports.shared = () => 'js';\n",
    "tools.cjs": "exports.beta = (x) => `beta ${x}`;\nexports.shared = () => 'cjs';\n",
    "blackbox.config.mjs":
      'export default { tools: [{ module: "./tools.js", exports: ["alpha"] }, { module: "./tools.cjs", exports: ["beta"] }] };\n',
    "app.cjs": `
const js = require("./tools.js");
const cjs = require("./tools.cjs");
(async () => console.log(await js.alpha(1), await cjs.beta(2), js.shared(), cjs.shared()))();
`,
  });
  const r = await sameAsBare(dir, "app.cjs", "alpha 1 beta 2 js cjs\n");
  expect(toolNames(r.trace)).toEqual(["alpha", "beta"]);
});
