/**
 * A config that imports the module whose tools it names (directly, or through a module of
 * its own) may have Node load that module while the config loads, before the tool hooks
 * are in: jiti imports an ES module (.mjs, .js of a "type": "module" package) natively, so
 * the app later gets that cached, unwrapped copy, and a replay would run the tools for
 * real. A module jiti transpiles (TypeScript, CommonJS) is jiti's own copy: no harm. This walks the config's
 * static (and
 * string-literal dynamic) imports of local files, as they run once types are stripped
 * (sucrase: type-only imports are gone), to find such a path. Only configs that go to jiti
 * are walked: the other roads import nothing but @ardaulas/blackbox/config, builtins and
 * TypeScript modules of the config's own (as data: copies, never Node's cached file).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, extname, isAbsolute, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const EXTENSIONS = [
  "",
  ".ts",
  ".mts",
  ".cts",
  ".js",
  ".mjs",
  ".cjs",
  "/index.ts",
  "/index.mts",
  "/index.js",
  "/index.mjs",
  "/index.cjs",
];
const TS_FOR_JS: Record<string, string> = { ".js": ".ts", ".mjs": ".mts", ".cjs": ".cts" };
const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

/**
 * The local file a specifier in `from` names, or undefined (a builtin, a file in
 * node_modules). A bare specifier is resolved as Node would (`#imports`, the package's
 * own name): it may still name a file of the project.
 */
function localTarget(from: string, spec: string, kind: "import" | "require" = "import"): string | undefined {
  let path: string;
  if (spec.startsWith("file:")) path = fileURLToPath(spec);
  else if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..")
    path = resolve(dirname(from), spec);
  else if (isAbsolute(spec)) path = spec;
  else {
    if (spec.startsWith("node:") || builtinModules.includes(spec)) return undefined;
    // as an import resolves it (the "import" condition), or a require() (Node's own require resolution)
    let found = kind === "import" ? ownPackageTarget(from, spec) : undefined;
    if (found === undefined) {
      try {
        found = createRequire(from).resolve(spec);
      } catch {
        return undefined;
      }
    }
    if (!isAbsolute(found) || found.split(sep).includes("node_modules")) return undefined;
    path = found;
  }
  for (const ext of EXTENSIONS) if (isFile(path + ext)) return path + ext;
  const ts = TS_FOR_JS[extname(path)]; // TypeScript's `./tools.js` for tools.ts
  if (ts && isFile(path.slice(0, -extname(path).length) + ts)) return path.slice(0, -extname(path).length) + ts;
  return undefined;
}

type Transform = (source: string, file: string) => string;

/** The local files `file` imports, as it runs (types stripped); [] when it cannot be read or lexed. */
function importsOf(file: string, parse: typeof import("es-module-lexer").parse, strip: Transform): string[] {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
    if (/\.[cm]?tsx?$/.test(file)) source = strip(source, file);
  } catch {
    return [];
  }
  const found: string[] = [];
  let esm = true;
  try {
    const [imports, , , hasModuleSyntax] = parse(source);
    esm = hasModuleSyntax;
    for (const i of imports) {
      if (typeof i.specifier !== "string") continue; // import.meta, or import() of an expression
      const target = localTarget(file, i.specifier);
      if (target) found.push(target);
    }
  } catch {
    esm = false; // syntax the lexer refuses: read it as CommonJS
  }
  if (!esm) {
    // CommonJS: its require() calls of a string
    for (const m of source.matchAll(/\brequire\s*\(\s*(["'])([^"']+)\1\s*\)/g)) {
      const target = localTarget(file, m[2]!, "require");
      if (target) found.push(target);
    }
  }
  return found;
}

interface PackageJson {
  name?: string;
  type?: string;
  imports?: unknown;
  exports?: unknown;
}

/** The nearest package.json of a file's folder, and its folder. */
function packageOf(file: string): { dir: string; json: PackageJson } | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      return { dir, json: JSON.parse(readFileSync(resolve(dir, "package.json"), "utf8")) as PackageJson };
    } catch {
      // no (readable) package.json here: look further up
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function packageType(file: string): string | undefined {
  const pkg = packageOf(file);
  return pkg ? (pkg.json.type ?? "commonjs") : undefined;
}

/** The conditions Node's ESM loader (which jiti hands JavaScript to) matches, in a map's own key order. */
const IMPORT_CONDITIONS = new Set(["node", "import", "module-sync", "default"]);

/**
 * A package map entry's target for an import: a string, the first of a list, or the first branch (in key
 * order) whose condition matches.
 */
function conditionTarget(entry: unknown, star: string): string | undefined {
  if (typeof entry === "string") return entry.replaceAll("*", star);
  if (Array.isArray(entry)) {
    for (const e of entry) {
      const t = conditionTarget(e, star);
      if (t !== undefined) return t;
    }
    return undefined;
  }
  if (entry === null || typeof entry !== "object") return undefined;
  for (const [c, branch] of Object.entries(entry)) {
    if (!IMPORT_CONDITIONS.has(c)) continue;
    const t = conditionTarget(branch, star);
    if (t !== undefined) return t;
  }
  return undefined;
}

/**
 * `key` in an imports/exports map: exactly, or by the `*` pattern Node picks (the longest part before `*`,
 * then the longest key).
 */
function mapTarget(map: Record<string, unknown>, key: string): string | undefined {
  if (key in map && !key.includes("*")) return conditionTarget(map[key], "");
  let best: { k: string; head: string; tail: string } | undefined;
  for (const k of Object.keys(map)) {
    const at = k.indexOf("*");
    if (at < 0) continue;
    const [head, tail] = [k.slice(0, at), k.slice(at + 1)];
    if (!key.startsWith(head) || !key.endsWith(tail) || key.length < k.length - 1) continue;
    if (!best || head.length > best.head.length || (head.length === best.head.length && k.length > best.k.length))
      best = { k, head, tail };
  }
  return best && conditionTarget(map[best.k], key.slice(best.head.length, key.length - best.tail.length));
}

/**
 * A `#imports` specifier or the package's own name (`pkg/tools`), resolved through the
 * package.json of `from` as an ES import is: the file of the project it names, if any.
 */
function ownPackageTarget(from: string, spec: string): string | undefined {
  const pkg = packageOf(from);
  if (!pkg) return undefined;
  const { name, imports, exports } = pkg.json;
  let target: string | undefined;
  if (spec.startsWith("#")) {
    if (imports && typeof imports === "object") target = mapTarget(imports as Record<string, unknown>, spec);
  } else if (name && (spec === name || spec.startsWith(`${name}/`)) && exports !== undefined) {
    const subpath = `.${spec.slice(name.length)}`;
    const map =
      exports &&
      typeof exports === "object" &&
      !Array.isArray(exports) &&
      Object.keys(exports).some((k) => k.startsWith("."))
        ? (exports as Record<string, unknown>)
        : { ".": exports };
    target = mapTarget(map, subpath);
  }
  return target?.startsWith("./") ? resolve(pkg.dir, target) : undefined;
}

/**
 * Whether jiti hands `file` to Node's own loader (which then caches it, and everything it
 * imports): any JavaScript file but a .js file with ESM syntax outside a "type": "module"
 * package (.mjs, .cjs, a module package's .js, a CommonJS .js). jiti transpiles the rest
 * (TypeScript, that .js) itself, into instances of its own that Node never caches.
 */
function loadedNatively(file: string, parse: typeof import("es-module-lexer").parse): boolean {
  if (/\.[cm]?tsx?$/.test(file)) return false;
  if (extname(file) !== ".js" || packageType(file) === "module") return true;
  try {
    return !parse(readFileSync(file, "utf8"))[3]; // ESM syntax: jiti transpiles it
  } catch {
    return true;
  }
}

/**
 * The chain of local imports from `config` to the first file of `targets` that Node itself
 * loads on the way ([config, ..., target]), or undefined when there is none.
 */
export async function importChain(
  config: string,
  targets: ReadonlySet<string>,
  strip: Transform,
): Promise<string[] | undefined> {
  const lexer = await import("es-module-lexer");
  await lexer.init();
  const via = new Map<string, string | undefined>([[config, undefined]]);
  const native = new Set<string>(loadedNatively(config, lexer.parse) ? [config] : []);
  const queue = [config];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of importsOf(file, lexer.parse, strip)) {
      if (via.has(next)) continue;
      via.set(next, file);
      // a native module's imports are Node's too
      if (native.has(file) || loadedNatively(next, lexer.parse)) native.add(next);
      if (targets.has(next) && native.has(next)) {
        const chain = [next];
        for (let at = via.get(next); at !== undefined; at = via.get(at)) chain.unshift(at);
        return chain;
      }
      queue.push(next);
    }
  }
  return undefined;
}
