/**
 * How a TypeScript config loads (src/config/index.ts). One that imports nothing but
 * @ardaulas/blackbox/config (values or types), builtins and TypeScript modules of its own
 * that import the same has its types (and theirs) stripped by sucrase and is imported as
 * data: modules, without jiti; everything else still loads through jiti (and
 * its babel transform: jiti's cache is off here). Both roads wrap the configured tools,
 * seen in the cassette.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runProcess } from "../helpers/child.js";
import {
  loadedModules,
  MODULE_LOGGER,
  readCassette,
  REGISTER,
  requireBuild,
  tempDir,
  toolNames,
} from "./zeroCodeHelpers.js";

const tmp = tempDir();
beforeAll(requireBuild);
afterAll(() => tmp.cleanup());

const TOOLS = "export async function get_weather(city) { return { city, sunny: true }; }\n";
const AGENT = 'import { get_weather } from "./tools.mjs";\nconsole.log(JSON.stringify(await get_weather("Lisbon")));\n';

/** A preload that names every sucrase or babel file the process require()s (a CommonJS load the ESM logger does not see). */
const REQUIRE_LOGGER = `const M = require("node:module");
const load = M._load;
M._load = function (request, parent, isMain) {
  const out = load.apply(this, arguments);
  if (/sucrase|babel/.test(request)) process.stderr.write("REQUIRED " + M._resolveFilename(request, parent, isMain) + "\\n");
  return out;
};
`;

let n = 0;
/** Records agent.mjs in a fresh folder with the given files; the modules it loaded, its cassette's tool names. */
async function recordWith(files: Record<string, string>, links: Record<string, string> = {}) {
  const dir = join(tmp.dir, `ts${++n}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  writeFileSync(join(dir, "agent.mjs"), AGENT);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  for (const [name, target] of Object.entries(links)) symlinkSync(target, join(dir, name));
  writeFileSync(join(dir, "log-require.cjs"), REQUIRE_LOGGER);
  const out = join(dir, "run.json");
  const r = await runProcess(
    process.execPath,
    ["--require", "./log-require.cjs", "--import", MODULE_LOGGER, "--import", REGISTER, "agent.mjs"],
    {
      cwd: dir,
      env: { BLACKBOX_MODE: "record", BLACKBOX_OUT: out, JITI_FS_CACHE: "false" },
    },
  );
  const loaded = loadedModules(r.stderr);
  const required = r.stderr
    .split("\n")
    .filter((l) => l.startsWith("REQUIRED "))
    .map((l) => l.slice(9));
  const rest = r.stderr
    .split("\n")
    .filter((l) => l && !l.startsWith("LOADED ") && !l.startsWith("REQUIRED "))
    .join("\n");
  expect(rest).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('{"city":"Lisbon","sunny":true}\n');
  return {
    tools: toolNames(readCassette(out)),
    // sucrase: the one-file bundle the package ships, never the package itself (a devDependency)
    sucrase: required.some((f) => f.endsWith("/dist/vendor/sucrase.cjs")),
    sucrasePackage: required.some((f) => f.includes("/node_modules/sucrase/")),
    jiti: loaded.some((u) => u.includes("/node_modules/jiti/")),
    babel: required.some((f) => f.endsWith("/node_modules/jiti/dist/babel.cjs")),
    logged: loaded.length,
  };
}

test("types, satisfies, as const, an enum and type imports are stripped by sucrase, without jiti", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `import { defineConfig, type BlackboxConfig } from "@ardaulas/blackbox/config";
import type { ToolEntry } from "@ardaulas/blackbox/config";
enum Kind { Weather = "get_weather" }
interface Named { exports: string[] }
const entry: ToolEntry & Named = { module: "./tools.mjs", exports: [Kind.Weather] } satisfies ToolEntry;
const modules = ["./tools.mjs"] as const;
export default defineConfig({ tools: [entry] } as BlackboxConfig & { tools: ToolEntry[] }) satisfies { tools?: unknown } & { m?: typeof modules };
`,
  });
  expect(r.logged).toBeGreaterThan(0); // the logger saw the process's modules (else the next lines prove nothing)
  expect(r).toMatchObject({ tools: ["get_weather"], sucrase: true, sucrasePackage: false, jiti: false, babel: false });
});

test("a .mts config takes the same road", async () => {
  const r = await recordWith({
    "blackbox.config.mts": `import { defineConfig } from "@ardaulas/blackbox/config";
const tools: { module: string; exports: string[] }[] = [{ module: "./tools.mjs", exports: ["get_weather"] }];
export default defineConfig({ tools });
`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], sucrase: true, jiti: false });
});

test("TypeScript modules the config imports take the same road: ./x.ts, ./x, ./x.js for x.ts, export *, builtins", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import { entry } from "./entries.ts";
export default defineConfig({ tools: [entry] });
`,
    "entries.ts": `import { basename } from "node:path";
import { TOOL } from "./names";
export * from "./kinds.js";
export const entry: { module: string; exports: string[] } = { module: "./" + basename("/x/tools.mjs"), exports: [TOOL] };
`,
    "names.ts": `export const TOOL: string = "get_weather";\n`,
    "kinds.ts": `export type Kind = "tool";\nexport const kind: Kind = "tool";\n`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], sucrase: true, jiti: false, babel: false });
});

test("a module imported by two modules of the config (one through a symlink) runs once: one instance", async () => {
  const r = await recordWith(
    {
      "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import "./a.ts";
import "./b.ts";
import "./c.ts";
import { state } from "./counter.ts";
export default defineConfig({ tools: [{ module: "./tools.mjs", exports: [state.runs === 1 && state.seen === 3 ? "get_weather" : \`runs \${state.runs} seen \${state.seen}\`] }] });
`,
      "counter.ts": `export const state: { runs: number; seen: number } = { runs: 0, seen: 0 };\nstate.runs++;\n`,
      "a.ts": `import { state } from "./counter.ts";\nstate.seen++;\n`,
      "b.ts": `import { state } from "./counter";\nstate.seen++;\n`,
      "c.ts": `import { state } from "./linked.ts";\nstate.seen++;\n`,
    },
    { "linked.ts": "counter.ts" },
  );
  expect(r).toMatchObject({ tools: ["get_weather"], jiti: false });
});

test("a chain of imports too deep, or a config too wide, for data: URLs (each level holds the next one's URL) loads through jiti", async () => {
  const files: Record<string, string> = {
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import { name } from "./m40.ts";
export default defineConfig({ tools: [{ module: "./tools.mjs", exports: [name] }] });
`,
    "m0.ts": `export const name: string = "get_weather";\n`,
  };
  for (let k = 1; k <= 40; k++) files[`m${k}.ts`] = `export { name } from "./m${k - 1}.ts";\n`;
  const r = await recordWith(files);
  expect(r).toMatchObject({ tools: ["get_weather"], jiti: true });
  // wide: a dozen big modules (each URL parsed again for each of the config's imports)
  const wide: Record<string, string> = {
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
${Array.from({ length: 12 }, (_, k) => `import { n${k} } from "./w${k}.ts";`).join("\n")}
export default defineConfig({ tools: [{ module: "./tools.mjs", exports: [[${Array.from({ length: 12 }, (_, k) => `n${k}`).join(", ")}][0]!] }] });
`,
  };
  for (let k = 0; k < 12; k++)
    wide[`w${k}.ts`] =
      `${"// a long comment line of the kind a generated module has\n".repeat(1800)}export const n${k}: string = "get_weather";\n`;
  expect(await recordWith(wide)).toMatchObject({ tools: ["get_weather"], jiti: true });
  // the same chain ten levels deep takes the data: road
  const short = await recordWith({
    ...files,
    "blackbox.config.ts": files["blackbox.config.ts"]!.replace("./m40.ts", "./m10.ts"),
  });
  expect(short).toMatchObject({ tools: ["get_weather"], jiti: false });
});

test("a config whose modules import each other, a package or JavaScript of their own loads through jiti", async () => {
  const cycle = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import { tool } from "./a.ts";
export default defineConfig({ tools: [{ module: "./tools.mjs", exports: [tool()] }] });
`,
    "a.ts": `import { name } from "./b.ts";\nexport function tool(): string { return name(); }\n`,
    "b.ts": `import { tool } from "./a.ts";\nexport function name(): string { return typeof tool === "function" ? "get_weather" : "none"; }\n`,
  });
  expect(cycle).toMatchObject({ tools: ["get_weather"], jiti: true, babel: true });
  const js = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import { entry } from "./entries.ts";
export default defineConfig({ tools: [entry] });
`,
    "entries.ts": `import { TOOL } from "./names.mjs";\nexport const entry = { module: "./tools.mjs", exports: [TOOL as string] };\n`,
    "names.mjs": `export const TOOL = "get_weather";\n`,
  });
  expect(js).toMatchObject({ tools: ["get_weather"], jiti: true });
  const pkg = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import { entry } from "./entries.ts";
export default defineConfig({ tools: [entry] });
`,
    "entries.ts": `import { entry as e } from "entries-pkg";\nexport const entry: { module: string; exports: string[] } = e;\n`,
    "node_modules/entries-pkg/package.json": JSON.stringify({
      name: "entries-pkg",
      type: "module",
      exports: "./index.mjs",
    }),
    "node_modules/entries-pkg/index.mjs": `export const entry = { module: "./tools.mjs", exports: ["get_weather"] };\n`,
  });
  expect(pkg).toMatchObject({ tools: ["get_weather"], jiti: true });
});

test("a module the config imports may use what only jiti's babel transforms: decorators", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import { Entry } from "./entry.ts";
export default defineConfig({ tools: [{ module: "./tools.mjs", exports: [(Entry as unknown as { tool: string }).tool] }] });
`,
    "entry.ts": `function named(tool: string) {
  return (target: any) => { target.tool = tool; };
}
@named("get_weather")
export class Entry {}
`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], jiti: true, babel: true }); // (sucrase too: the walk for an imported tools module strips types)
});

test("import.meta.url, .dirname and .filename are the file's own on the sucrase road; import.meta.resolve goes to jiti", async () => {
  const own = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
import { here } from "./where.ts";
const dir: string = new URL(".", import.meta.url).pathname;
const same = dir === here + "/" && import.meta.filename === here + "/blackbox.config.ts";
export default defineConfig({ tools: [{ module: same ? dir + "tools.mjs" : "./elsewhere.mjs", exports: ["get_weather"] }] });
`,
    // one import.meta per module: what a statement writes to it, the next one reads
    "where.ts": `import.meta.dirname += "!";\nexport const here: string = import.meta.dirname.slice(0, -1);\n`,
  });
  expect(own).toMatchObject({ tools: ["get_weather"], sucrase: true, jiti: false });
  const resolve = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
const tools: string = new URL(import.meta.resolve("./tools.mjs")).pathname;
export default defineConfig({ tools: [{ module: tools, exports: ["get_weather"] }] });
`,
  });
  expect(resolve).toMatchObject({ tools: ["get_weather"], jiti: true, babel: true });
});

test("a CommonJS .ts config (module.exports, __dirname) loads through jiti, where those exist", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `const here: string = typeof __dirname === "string" ? __dirname : "/nowhere";
const config: { tools: { module: string; exports: string[] }[] } = { tools: [{ module: here + "/tools.mjs", exports: ["get_weather"] }] };
module.exports = config;
`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], jiti: true, babel: true }); // (sucrase too: the walk for an imported tools module strips types)
});

test("CommonJS and namespace words in whole-line comments, or as a property, keep the sucrase road; CommonJS after a comment does not", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `// Wraps the weather tools module (those tools require an API key): see the namespace docs.
import { defineConfig } from "@ardaulas/blackbox/config";
import { entries } from "./entries.ts";
export default defineConfig({ tools: entries });
`,
    "entries.ts": `/**
 * The tools module's exports, and its module.exports in the CommonJS build.
 */
type Entry = { module: string; exports: string[] };
const all: Entry[] = [{ module: "./tools.mjs", exports: ["get_weather"] }];
export const entries: Entry[] = all.filter((e) => e.module.endsWith(".mjs") && e.exports[0] !== undefined);
`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], sucrase: true, jiti: false, babel: false });
  const cjs = await recordWith({
    "blackbox.config.ts": `/* CommonJS */ const here: string = typeof __dirname === "string" ? __dirname : "/nowhere";
/* the config */ module.exports = { tools: [{ module: here + "/tools.mjs", exports: ["get_weather"] }] };
`,
  });
  expect(cjs).toMatchObject({ tools: ["get_weather"], jiti: true, babel: true });
});

test("a config with a namespace (which sucrase would drop) loads through jiti", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
namespace Tools {
  export const weather: string = "get_weather";
}
export default defineConfig({ tools: [{ module: "./tools.mjs", exports: [Tools.weather] }] });
`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], jiti: true, babel: true }); // (sucrase too: the walk for an imported tools module strips types)
});

test("a config saved with a BOM, a module of it with a hashbang, take the same road (a BOM hid the first import from the lexer)", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `\uFEFFimport { defineConfig } from "@ardaulas/blackbox/config";
import { entry } from "./entries.ts";
export default defineConfig({ tools: [entry] });
`,
    "entries.ts": `#!/usr/bin/env node
export const entry: { module: string; exports: string[] } = { module: new URL("./tools.mjs", import.meta.url).pathname, exports: ["get_weather"] };
`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], sucrase: true, jiti: false, babel: false });
});

// the string is 38 characters as written; rewritten to a file URL it would be longer
test("a string holding the specifier is left as written", async () => {
  const r = await recordWith({
    "blackbox.config.ts": `import { defineConfig } from "@ardaulas/blackbox/config";
const note: string = 'tools from "@ardaulas/blackbox/config"';
export default defineConfig({ tools: [{ module: "./tools.mjs", exports: [note.length === 38 ? "get_weather" : note] }] });
`,
  });
  expect(r).toMatchObject({ tools: ["get_weather"], sucrase: true, jiti: false });
});

for (const name of ["blackbox.config.ts", "blackbox.config.mjs"]) {
  test(`${name}: a config that fails while it runs ran once, and its error is the refusal`, async () => {
    const dir = join(tmp.dir, `throws${++n}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "agent.mjs"), AGENT);
    writeFileSync(join(dir, "tools.mjs"), TOOLS);
    const types = name.endsWith(".ts") ? ": string" : "";
    writeFileSync(
      join(dir, name),
      `import { defineConfig } from "@ardaulas/blackbox/config";
const token${types} = process.env.TOOLS_TOKEN ?? "";
console.log("config ran");
if (!token) throw new Error("TOOLS_TOKEN is not set");
export default defineConfig({ tools: [] });
`,
    );
    const r = await runProcess(process.execPath, ["--import", REGISTER, "agent.mjs"], {
      cwd: dir,
      env: { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "run.json") },
    });
    expect(r.stdout).toBe("config ran\n");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the config could not be loaded (TOOLS_TOKEN is not set)");
  });
}

test("a module of the config that fails while it runs ran once, and its error is the refusal", async () => {
  const dir = join(tmp.dir, `throws${++n}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "agent.mjs"), AGENT);
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  writeFileSync(
    join(dir, "blackbox.config.ts"),
    'import { defineConfig } from "@ardaulas/blackbox/config";\nimport { token } from "./token.ts";\nexport default defineConfig({ tools: token ? [] : [] });\n',
  );
  writeFileSync(
    join(dir, "token.ts"),
    'console.log("module ran");\nexport const token: string = process.env.TOOLS_TOKEN ?? "";\nif (!token) throw new Error("TOOLS_TOKEN is not set");\n',
  );
  const r = await runProcess(process.execPath, ["--import", REGISTER, "agent.mjs"], {
    cwd: dir,
    env: { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "run.json") },
  });
  expect(r.stdout).toBe("module ran\n");
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("the config could not be loaded (TOOLS_TOKEN is not set)");
});
