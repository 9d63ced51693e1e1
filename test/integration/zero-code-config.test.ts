/**
 * Every bad config and bad environment is one `blackbox: ...` line naming the file and
 * the entry, exit code 2, before the agent runs, and never a stack trace.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { hookedNode, noCassetteNotice, requireBuild, tempDir } from "./zeroCodeHelpers.js";

const tmp = tempDir();
beforeAll(requireBuild);
afterAll(() => tmp.cleanup());

const TOOLS = "export async function get_weather() { return 1 }\nexport const book = () => 2;\n";
const AGENT = 'console.log("agent ran");\n';

let n = 0;
/** A project folder with tools.mjs, agent.mjs and the given config file. */
function project(configName: string, config: string): string {
  const dir = join(tmp.dir, `p${++n}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  writeFileSync(join(dir, "agent.mjs"), AGENT);
  writeFileSync(join(dir, configName), config);
  return dir;
}

async function refused(dir: string, env: Record<string, string | undefined> = {}) {
  const r = await hookedNode(dir, ["agent.mjs"], {
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: join(dir, "out.json"),
    ...env,
  });
  expect(r.stdout).not.toContain("agent ran");
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^blackbox: /);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr;
}

test("a wrong shape names the file and the path of the bad entry", async () => {
  const dir = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./tools.mjs", exports: "get_weather" }] };',
  );
  const err = await refused(dir);
  expect(err).toContain(join(dir, "blackbox.config.mjs"));
  expect(err).toContain("tools[0]");
});

test("an unknown key is refused, not ignored", async () => {
  const dir = project("blackbox.config.mjs", "export default { tool: [] };");
  expect(await refused(dir)).toMatch(/tool.*Each tools entry is/);
});

test("a module that does not exist names the entry and the module", async () => {
  const dir = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./tools.mjs", exports: ["book"] }, { module: "./nope.mjs", exports: ["x"] }] };',
  );
  const err = await refused(dir);
  expect(err).toContain('tools[1]: module "./nope.mjs" does not exist');
});

test("an export the module does not have names what it does export", async () => {
  const dir = project(
    "blackbox.config.ts",
    'export default { tools: [{ module: "./tools.mjs", export: "get_wether", name: "w" }] } as const;',
  );
  const err = await refused(dir);
  expect(err).toContain(join(dir, "blackbox.config.ts"));
  expect(err).toContain('tools[0]: module "./tools.mjs" has no export "get_wether" (it exports get_weather, book)');
});

test("two tools with one name are refused, naming both entries", async () => {
  const dir = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./tools.mjs", exports: ["book"] }, { module: "./tools.mjs", export: "get_weather", name: "book" }] };',
  );
  expect(await refused(dir)).toContain('tools[1]: tool name "book" is already used by tools[0]');
});

test("a config that throws while loading is one line, not a stack trace", async () => {
  const dir = project("blackbox.config.ts", 'const x: number = 1;\nthrow new Error("boom " + x);\nexport default {};');
  const err = await refused(dir);
  expect(err).toContain("the config could not be loaded (boom 1)");
});

test("a provider origin that is not a URL is refused", async () => {
  const dir = project("blackbox.config.mjs", 'export default { providers: { anthropic: ["llm-proxy"] } };');
  expect(await refused(dir)).toContain("providers.anthropic[0]");
});

test("BLACKBOX_CONFIG pointing nowhere is refused", async () => {
  const dir = project("other.txt", "");
  expect(await refused(dir, { BLACKBOX_CONFIG: "missing.config.ts" })).toContain(
    "does not exist; fix the path or unset it",
  );
});

test("bad environment values name the variable and the allowed values", async () => {
  const dir = project("other.txt", "");
  expect(await refused(dir, { BLACKBOX_MODE: "recrod" })).toContain(
    'BLACKBOX_MODE="recrod" is not valid; set it to one of: off, record, replay, fork',
  );
  expect(await refused(dir, { BLACKBOX_MATCH: "loose" })).toContain("BLACKBOX_MATCH");
  expect(await refused(dir, { BLACKBOX_OUT: "" })).toContain("BLACKBOX_MODE=record needs BLACKBOX_OUT");
  expect(await refused(dir, { BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: join(dir, "none.json") })).toContain(
    "none.json",
  );
  const fork = { BLACKBOX_MODE: "fork", BLACKBOX_CASSETTE: join(dir, "none.json"), BLACKBOX_FORK_AT: "x" };
  expect(await refused(dir, fork)).toContain('BLACKBOX_FORK_AT="x" is not a step index');
  expect(await refused(dir, { ...fork, BLACKBOX_FORK_AT: "3", BLACKBOX_FORK_SET: "sunny" })).toContain(
    "BLACKBOX_FORK_SET is not valid JSON",
  );
});

test("a mistyped redaction rule is refused, naming the rule, not turned off", async () => {
  const dir = project("blackbox.config.mjs", 'export default { redact: { detect: ["emails"] } };');
  const err = await refused(dir);
  expect(err).toContain(join(dir, "blackbox.config.mjs"));
  expect(err).toContain('redact.detect[0] "emails" is not a detector; the opt-in detectors are email, phone, card, ip');
});

test("a valid config lets the agent run", async () => {
  const dir = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./tools.mjs", exports: ["get_weather", "book"] }] };',
  );
  const r = await hookedNode(dir, ["agent.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "out.json") });
  expect(r.stderr).toBe(noCassetteNotice(join(dir, "out.json"))); // it makes no call
  expect(r.stdout).toContain("agent ran");
  expect(r.code).toBe(0);
});

test("an export hidden behind `export *` is checked when the module loads, with the same kind of message", async () => {
  const dir = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./reexport.mjs", exports: ["get_weather", "nope"] }] };',
  );
  writeFileSync(join(dir, "reexport.mjs"), 'export * from "./tools.mjs";\n');
  writeFileSync(
    join(dir, "agent.mjs"),
    'import { get_weather } from "./reexport.mjs";\nconsole.log("agent ran", typeof get_weather);\n',
  );
  const err = await refused(dir);
  expect(err).toBe(
    `blackbox: ${join(dir, "blackbox.config.mjs")}: tools[0]: ${join(dir, "reexport.mjs")} has no function export "nope" (it is not exported); fix the export name (a function, or a tool object: betaTool(), betaZodTool(), a runTools() function tool, an AI SDK tool(), a LangChain tool, an Agents SDK tool())\n`,
  );
});

test("a config importing the tools module it names is refused (Node would cache it unwrapped), naming the path", async () => {
  const direct = project(
    "blackbox.config.ts",
    'import { defineConfig } from "@ardaulas/blackbox/config";\nimport { get_weather } from "./tools.mjs";\nvoid get_weather;\nexport default defineConfig({ tools: [{ module: "./tools.mjs", exports: ["get_weather", "book"] }] });',
  );
  expect(await refused(direct)).toBe(
    `blackbox: ${join(direct, "blackbox.config.ts")}: tools[0]: the config imports the module whose tools it names (blackbox.config.ts -> tools.mjs), so Node loads it before Blackbox can wrap them, and a replay would run them for real. Do not import the tools module from the config: list its exports by name (exports: ["a", "b"])\n`,
  );
  // through a module of its own, from an .mjs config (a namespace import to list the names)
  const via = project(
    "blackbox.config.mjs",
    'import { names } from "./names.js";\nexport default { tools: [{ module: "./tools.mjs", exports: names }] };',
  );
  writeFileSync(
    join(via, "names.ts"),
    'import * as t from "./tools.mjs";\nexport const names: string[] = Object.keys(t);\n',
  );
  expect(await refused(via)).toContain("(blackbox.config.mjs -> names.ts -> tools.mjs)");
});

test("a config importing only types of the tools module, or other local modules, loads", async () => {
  const dir = project(
    "blackbox.config.ts",
    'import type { Weather } from "./tools.mjs";\nimport { list } from "./list.ts";\nconst w: Weather | undefined = undefined;\nvoid w;\nexport default { tools: [{ module: "./tools.mjs", exports: list }] };',
  );
  writeFileSync(join(dir, "list.ts"), 'export const list: string[] = ["get_weather", "book"];\n');
  writeFileSync(
    join(dir, "agent.mjs"),
    'import { get_weather } from "./tools.mjs";\nconsole.log("agent ran", get_weather.name);\n',
  );
  const r = await hookedNode(dir, ["agent.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "out.json") });
  expect(r.stderr).toBe(noCassetteNotice(join(dir, "out.json"))); // it makes no call
  expect(r.stdout).toContain("agent ran");
  expect(r.code).toBe(0);
});

test("a config with no default export (or an empty one) names what it exports instead", async () => {
  const named = project("blackbox.config.ts", "export const config = { tools: [] };\n");
  expect(await refused(named)).toBe(
    `blackbox: ${join(named, "blackbox.config.ts")}: the config has no default export (it exports config); end it with export default defineConfig({ tools: [...] })\n`,
  );
  const empty = project("blackbox.config.mjs", "");
  expect(await refused(empty)).toContain("the config has no default export (it exports nothing)");
});

test("a syntax error names the line and column; an export listed twice in one entry says so; so does a name like a provider id", async () => {
  const syntax = project(
    "blackbox.config.ts",
    'import { helper } from "./helper.ts";\nexport default { tools: [{ module: "./tools.mjs", exports: ["get_weather" }] };\n',
  );
  writeFileSync(join(syntax, "helper.ts"), "export const helper = 1;\n");
  expect(await refused(syntax)).toMatch(
    /the config could not be loaded \(.*Unexpected token.* at .*blackbox\.config\.ts:2:\d+\)/,
  );
  const twice = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./tools.mjs", exports: ["book", "book"] }] };',
  );
  expect(await refused(twice)).toContain('tools[0]: tool name "book" is listed twice; list each export once');
  const idLike = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./tools.mjs", export: "book", name: "toolu_01" }] };',
  );
  expect(await refused(idLike)).toContain(
    'tools[0]: tool name "toolu_01" looks like a provider id (toolu_01), which a cassette must not contain; give it another name ({ module, export, name })',
  );
});

test("mode words are read whatever their case (BLACKBOX_MODE=OFF is off, Record is record)", async () => {
  const dir = project(
    "blackbox.config.mjs",
    'export default { tools: [{ module: "./tools.mjs", exports: ["book"] }] };',
  );
  const off = await hookedNode(dir, ["agent.mjs"], { BLACKBOX_MODE: "OFF" });
  expect([off.code, off.stderr, off.stdout]).toEqual([0, "", "agent ran\n"]);
  const rec = await hookedNode(dir, ["agent.mjs"], {
    BLACKBOX_MODE: " Record ",
    BLACKBOX_OUT: join(dir, "out.json"),
    BLACKBOX_MATCH: "STRICT",
  });
  expect(rec.code).toBe(0);
  expect(rec.stdout).toBe("agent ran\n");
});

test("importing a TypeScript tools module (a copy of its own) is fine; a #imports alias or a .cjs module of the project is followed and refused", async () => {
  const ts = project(
    "blackbox.config.ts",
    'import * as t from "./tools.ts";\nexport default { tools: [{ module: "./tools.ts", exports: Object.keys(t) }] };\n',
  );
  writeFileSync(join(ts, "tools.ts"), "export async function save_note(text: string) { return { saved: text }; }\n");
  writeFileSync(join(ts, "agent.mjs"), 'console.log("agent ran");\n');
  const ok = await hookedNode(ts, ["agent.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(ts, "out.json") });
  expect(ok.stderr).toBe(noCassetteNotice(join(ts, "out.json")));
  expect(ok.code).toBe(0);

  const alias = project(
    "blackbox.config.ts",
    'import * as t from "#tools";\nexport default { tools: [{ module: "./tools.mjs", exports: Object.keys(t) }] };\n',
  );
  writeFileSync(
    join(alias, "package.json"),
    JSON.stringify({ name: "aliased", type: "module", imports: { "#tools": "./tools.mjs" } }),
  );
  expect(await refused(alias)).toContain("(blackbox.config.ts -> tools.mjs)");

  const conditional = project(
    "blackbox.config.ts",
    'import * as t from "#tools";\nimport * as u from "cfgpkg/tools";\nvoid u;\nexport default { tools: [{ module: "./tools.mjs", exports: Object.keys(t) }] };\n',
  );
  writeFileSync(
    join(conditional, "package.json"),
    JSON.stringify({
      name: "cfgpkg",
      type: "module",
      imports: { "#tools": { import: "./tools.mjs" } },
      exports: { "./tools": { import: "./tools.mjs" } },
    }),
  );
  expect(await refused(conditional)).toContain("(blackbox.config.ts -> tools.mjs)");
  const selfRef = project(
    "blackbox.config.ts",
    'import * as t from "selfpkg/tools";\nexport default { tools: [{ module: "./tools.mjs", exports: Object.keys(t) }] };\n',
  );
  writeFileSync(
    join(selfRef, "package.json"),
    JSON.stringify({
      name: "selfpkg",
      type: "module",
      exports: { "./*": { import: "./*.mjs", require: "./nope.cjs" } },
    }),
  );
  expect(await refused(selfRef)).toContain("(blackbox.config.ts -> tools.mjs)");

  // Node's choice, not a fixed order: the first matching condition in key order, the longest * pattern
  const order = project(
    "blackbox.config.ts",
    'import * as t from "#tools";\nimport * as p from "#t/tools.mjs";\nvoid p;\nexport default { tools: [{ module: "./tools.mjs", exports: Object.keys(t) }] };\n',
  );
  writeFileSync(join(order, "other.mjs"), "export const x = 1;\n");
  writeFileSync(
    join(order, "package.json"),
    JSON.stringify({
      type: "module",
      imports: { "#tools": { node: "./tools.mjs", import: "./other.mjs" }, "#t/*": "./lib/*", "#t/tools*": "./tools*" },
    }),
  );
  expect(await refused(order)).toContain("(blackbox.config.ts -> tools.mjs)");
  const pattern = project(
    "blackbox.config.ts",
    'import * as p from "#t/tools.mjs";\nexport default { tools: [{ module: "./tools.mjs", exports: Object.keys(p) }] };\n',
  );
  writeFileSync(
    join(pattern, "package.json"),
    JSON.stringify({ type: "module", imports: { "#t/*": "./lib/*", "#t/tools*": "./tools*" } }),
  );
  expect(await refused(pattern)).toContain("(blackbox.config.ts -> tools.mjs)");

  const cjs = project(
    "blackbox.config.ts",
    'import * as t from "./tools.cjs";\nvoid t;\nexport default { tools: [{ module: "./tools.cjs", exports: ["note"] }] };\n',
  );
  writeFileSync(join(cjs, "tools.cjs"), "exports.note = async (t) => ({ t });\n");
  expect(await refused(cjs)).toContain("(blackbox.config.ts -> tools.cjs)");
});

test("a CommonJS config's require() of a #imports entry resolves with the require condition (not the import one)", async () => {
  const dir = project(
    "blackbox.config.js",
    'const t = require("#tools");\nmodule.exports = { tools: [{ module: "./tools.mjs", exports: ["book"] }], ...(t.x ? {} : {}) };\n',
  );
  writeFileSync(join(dir, "other.cjs"), "exports.x = 1;\n");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ imports: { "#tools": { require: "./other.cjs", import: "./tools.mjs" } } }),
  );
  const r = await hookedNode(dir, ["agent.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "out.json") });
  expect(r.stderr).toBe(noCassetteNotice(join(dir, "out.json")));
  expect(r.stdout).toContain("agent ran");
});
