/**
 * Importing a blackbox.config.{ts,mts,cts,js,mjs,cjs}. Most configs load without jiti: an
 * .mjs one that imports nothing but @ardaulas/blackbox/config is imported natively; a
 * .ts/.mts one whose imports are that, Node's builtins and TypeScript modules of its own
 * (which import the same) has its types, and theirs, stripped by sucrase (bundled, no cache
 * needed), and each is imported as a data: module. Anything else (a package or JavaScript
 * imported, import(), import.meta.resolve, CommonJS, a namespace, syntax sucrase refuses,
 * an import cycle) loads through jiti and its babel transform (Node 20 cannot strip types;
 * the roads' costs are in bench/README.md).
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, extname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BlackboxConfigError } from "../errors.js";
import { CONFIG_RAN } from "../globals.js";

/** The extensions a module specifier may leave out, as the config resolves one. */
export const MODULE_EXTENSIONS = ["", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/** `import { defineConfig }`, `import type { BlackboxConfig }`, `import { defineConfig, type BlackboxConfig }`. */
const OWN_IMPORT = /import\s*(?:type\s+)?\{[^}]*\}\s*from\s*["']@ardaulas\/blackbox\/config["']/g;

/**
 * The config's source, without its imports of @ardaulas/blackbox/config, when it has no other import or
 * require (import.meta too).
 */
function withoutOwnImports(source: string): string | undefined {
  const rest = source.replace(OWN_IMPORT, "");
  return /\bimport\b|\brequire\b/.test(rest) ? undefined : rest;
}
/**
 * What the data: road cannot run as jiti does: CommonJS (`module`, `exports`, `__dirname`;
 * `module` as a key, `module:`, or a property, `entry.module`, `entry.exports[0]`, is fine),
 * and TypeScript that sucrase drops or turns into CommonJS without a word (a `namespace` or
 * `module M {}` with values, `export =`). Read in wholeLineCode(source).
 */
const NOT_FOR_DATA_ROAD =
  /\b__dirname\b|\b__filename\b|(?<![^.]\.)\bexports\s*[.[=]|(?<![^.]\.)\bmodule\b(?!\s*:)|\bnamespace\b|\bexport\s*=/;

/**
 * `source` less the comments that take their lines whole (a header, JSDoc), for the word
 * checks: "the tools module" or "these tools require a key" in a comment is no CommonJS.
 * A comment that code follows on its last line, or whose lines hold a backtick (text of
 * a template literal may close there), is kept.
 */
function wholeLineCode(source: string): string {
  return source
    .replace(/^[ \t]*\/\*[^*`]*\*+(?:[^/*`][^*`]*\*+)*\/[ \t]*$/gm, "")
    .replace(/^[ \t]*\/\/[^`\n]*$/gm, (line) => (line.includes("*/") ? line : ""));
}
/** Set by the first statement of a stripped config: it began to run (so it is not run again by jiti). */
const RAN = Symbol.for(CONFIG_RAN);

let sucraseTransform: typeof import("sucrase").transform | undefined;

/**
 * sucrase's transform, loaded when first needed: the one-file bundle the build makes
 * (src/vendor/sucrase.ts), else (a tsc-only build in this repo) the package itself.
 */
export function sucrase(): typeof import("sucrase").transform {
  if (sucraseTransform) return sucraseTransform;
  const require = createRequire(import.meta.url);
  let mod: typeof import("sucrase");
  try {
    mod = require("../vendor/sucrase.cjs") as typeof import("sucrase");
  } catch {
    mod = require("sucrase") as typeof import("sucrase");
  }
  return (sucraseTransform = mod.transform);
}

/** The file URL `@ardaulas/blackbox/config` resolves to: this package's own (jiti gets it as an alias). */
function configEntry(): string {
  return fileURLToPath(new URL("./config.js", new URL("..", import.meta.url)));
}

/**
 * A .ts/.mts config whose imports are @ardaulas/blackbox/config (values or types), Node's
 * builtins and TypeScript modules of its own (./entries.ts, which import the same), each
 * with its types stripped by sucrase and imported as a data: module (a module's own
 * imports pointed at its dependencies' data: URLs); undefined when it cannot go this way
 * before any of it ran (then jiti loads it, and says what is wrong if anything is). Once a
 * module of it has begun to run, its error is the config's: thrown, not retried (a retry
 * would run its side effects twice).
 */
async function importStripped(file: string): Promise<{ config: unknown } | undefined> {
  let url: string | undefined;
  try {
    const lexer = await import("es-module-lexer");
    await lexer.init();
    url = strippedModule(realpathSync(file), lexer.parse, { built: new Map(), open: new Set(), cost: 0 });
  } catch {
    return undefined; // syntax sucrase or the lexer refuses (a syntax error: jiti names it)
  }
  if (url === undefined) return undefined;
  const g = globalThis as unknown as Record<symbol, unknown>;
  delete g[RAN];
  try {
    const mod = (await import(url)) as { default?: unknown };
    return { config: mod };
  } catch (err) {
    if (g[RAN]) throw err;
    return undefined; // refused before it ran: e.g. sloppy-mode syntax, an export a module does not have
  } finally {
    delete g[RAN];
  }
}

/**
 * What the data: modules of one config may cost Node to load, in characters of URL it
 * parses: Node reads a module's whole URL once, and again for each import it resolves
 * from it, and an importer's URL holds its imports' (a third bigger each level). Past
 * this (a cost that grows with each level of imports: bench/README.md) jiti takes the config.
 */
const DATA_ROAD_BUDGET = 8 * 1024 * 1024;

interface DataRoad {
  /** The modules done so far, by real path: one URL each, so a module imported twice is one instance. */
  built: Map<string, string>;
  /** The chain being built (a cycle). */
  open: Set<string>;
  /** DATA_ROAD_BUDGET spent so far. */
  cost: number;
}

/**
 * The data: URL of `file` with its types stripped and its imports pointed (see
 * importStripped), or undefined when it or a module it imports cannot go that way: an
 * import of a package or of JavaScript, import(), import.meta but for .url, .dirname and
 * .filename, CommonJS, a cycle, a graph past DATA_ROAD_BUDGET. Throws on syntax sucrase refuses.
 */
function strippedModule(
  file: string,
  parse: typeof import("es-module-lexer").parse,
  road: DataRoad,
): string | undefined {
  const { built, open } = road;
  const done = built.get(file);
  if (done !== undefined) return done;
  if (open.has(file)) return undefined; // a cycle: an import's URL would have to hold itself
  // a BOM would hide the first import from es-module-lexer, a hashbang must stay first: either sent the config to jiti
  const source = readFileSync(file, "utf8")
    .replace(/^\uFEFF/, "")
    .replace(/^#!/, "//");
  const words = wholeLineCode(source);
  if (/\brequire\b/.test(words) || NOT_FOR_DATA_ROAD.test(words)) return undefined;
  const js = sucrase()(source, { transforms: ["typescript"], disableESTransforms: true, filePath: file }).code;
  open.add(file);
  let out = "";
  let at = 0;
  let meta = false;
  const imports = parse(js)[0];
  let size = js.length;
  for (const i of imports) {
    if (i.type === "import-meta") {
      // import.meta.url, .dirname, .filename: what they are in the file itself (a data: module's are its own)
      META_USE.lastIndex = i.end;
      if (!META_USE.test(js) || js.includes(META)) return undefined;
      out += js.slice(at, i.start) + META;
      at = i.end;
      meta = true;
      continue;
    }
    if ((i.type !== "static" && i.type !== "reexport-star") || i.phase !== null || i.attributes !== null)
      return undefined; // import(), phases, attributes
    const spec = i.specifier;
    let target: string | undefined;
    if (spec === "@ardaulas/blackbox/config") target = pathToFileURL(configEntry()).href;
    else if (spec.startsWith("node:") || builtinModules.includes(spec)) target = spec;
    else {
      const dep = ownTypeScriptModule(file, spec);
      // by its real path, as Node's loader keys a module: a module reached through a symlink too is one instance
      target = dep === undefined ? undefined : strippedModule(realpathSync(dep), parse, road);
    }
    if (target === undefined) return undefined;
    size += target.length;
    // what this module's URL will cost at least: stop now
    if (road.cost + size * (1 + imports.length) > DATA_ROAD_BUDGET) return undefined;
    out += js.slice(at, i.start) + target;
    at = i.end;
  }
  open.delete(file);
  // one object per module, as import.meta is (a change to it is seen by the module's other uses)
  const head = meta
    ? `const ${META} = ${JSON.stringify({ url: pathToFileURL(file).href, dirname: dirname(file), filename: file })};`
    : "";
  // on line 1: lines stay as written; the file's URL last: two files of the same text are two modules
  const code = `globalThis[Symbol.for(${JSON.stringify(RAN.description)})] = true;${head}${out}${js.slice(at)}\n//# sourceURL=${pathToFileURL(file).href}`;
  const url = `data:text/javascript;base64,${Buffer.from(code, "utf8").toString("base64")}`;
  road.cost += url.length * (1 + imports.length);
  if (road.cost > DATA_ROAD_BUDGET) return undefined;
  built.set(file, url);
  return url;
}

/**
 * What may follow `import.meta` on this road: .url, .dirname or .filename (a data: module has no
 * import.meta.resolve of the file).
 */
const META_USE = /\s*\.\s*(?:url|dirname|filename)\b/y;
/** The module's own import.meta, declared on its first line. */
const META = "__blackbox_import_meta";

const JS_FOR_TS: Record<string, string> = { ".ts": ".js", ".mts": ".mjs" };

/**
 * The .ts/.mts file a relative specifier of `from` names where that is the only reading:
 * `./entries.ts`, `./entries` (no other file of that name), or TypeScript's `./entries.js`
 * for entries.ts when there is no entries.js. Else undefined (jiti resolves it).
 */
function ownTypeScriptModule(from: string, spec: string): string | undefined {
  if (!spec.startsWith("./") && !spec.startsWith("../")) return undefined;
  const path = resolve(dirname(from), spec);
  const ext = extname(path);
  if (ext === ".ts" || ext === ".mts") return isFile(path) ? path : undefined;
  if (ext === ".js" || ext === ".mjs") {
    const ts = path.slice(0, -ext.length) + (ext === ".js" ? ".ts" : ".mts");
    return !existsSync(path) && isFile(ts) ? ts : undefined;
  }
  if (ext !== "" || existsSync(path)) return undefined;
  const found = MODULE_EXTENSIONS.filter((e) => e !== "" && existsSync(path + e));
  return found.length === 1 && JS_FOR_TS[found[0]!] !== undefined && isFile(path + found[0])
    ? path + found[0]
    : undefined;
}

export const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

/** The config module's namespace, and whether jiti loaded it (then it may import modules of its own). */
export async function importConfig(file: string): Promise<{ mod: unknown; viaJiti: boolean }> {
  const mod = await importConfigRoad(file);
  if (mod !== JITI) return { mod, viaJiti: false };
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, {
    alias: { "@ardaulas/blackbox/config": configEntry() },
    moduleCache: false,
  });
  const ns = (await jiti.import(file)) as Record<string, unknown>;
  // CommonJS (module.exports = {...}): jiti hands module.exports itself, with no own __esModule
  const esm =
    Object.hasOwn(ns ?? {}, "__esModule") ||
    (ns as { [Symbol.toStringTag]?: unknown })?.[Symbol.toStringTag] === "Module"; // transpiled, or native (.mjs)
  const commonJs = ns !== null && typeof ns === "object" && !("default" in ns) && !esm;
  return { mod: commonJs ? { default: ns } : ns, viaJiti: true };
}

/**
 * The default export of a config module (CommonJS: its module.exports), or the refusal naming what it exports
 * instead.
 */
export function defaultExport(file: string, mod: unknown): unknown {
  const ns = mod as Record<string, unknown> | null;
  if (ns !== null && (typeof ns === "object" || typeof ns === "function") && "default" in ns) return ns.default;
  const names = ns !== null && typeof ns === "object" ? Object.keys(ns) : [];
  throw new BlackboxConfigError(
    `${file}: the config has no default export (it exports ${names.length ? names.join(", ") : "nothing"}); end it with export default defineConfig({ tools: [...] })`,
  );
}

/** An error's first line, with the file:line:col a later line of it names (jiti's syntax errors put it there). */
export function firstLine(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const [head = "", ...rest] = err.message.split("\n");
  const where = rest.map((l) => l.trim()).find((l) => /:\d+:\d+$/.test(l));
  return where && !head.includes(where) ? `${head.trim()} at ${where}` : head;
}

const JITI = Symbol("jiti");

async function importConfigRoad(file: string): Promise<unknown> {
  // An .mjs config that imports nothing but @ardaulas/blackbox/config skips jiti (bench/startup.mjs); when
  // Node cannot load it (the app lacks @ardaulas/blackbox) it goes to jiti. One that
  // imports more always goes to jiti, which keeps the modules it transpiles out of Node's
  // cache, but imports an ES module natively: a config reaching a tools module is refused
  // (refuseImportedTools), as that module would be cached before the hooks could wrap it.
  if (file.endsWith(".mjs") && withoutOwnImports(readFileSync(file, "utf8")) !== undefined) {
    // only "@ardaulas/blackbox/config not found" goes on to jiti: anything else is the config's
    // own error, and a retry would run its side effects twice
    const native = await import(pathToFileURL(file).href).then(
      (mod: unknown) => ({ config: mod }),
      (err: unknown) => {
        if ((err as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND") return undefined;
        throw err;
      },
    );
    if (native) return native.config;
  }
  if (file.endsWith(".ts") || file.endsWith(".mts")) {
    const stripped = await importStripped(file);
    if (stripped) return stripped.config;
  }
  return JITI;
}
