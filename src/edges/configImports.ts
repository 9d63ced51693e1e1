/**
 * A config that imports the module whose tools it names (directly, or through a module of
 * its own) may have Node load that module while the config loads, before the tool hooks
 * are in: jiti imports an ES module (.mjs, .js of a "type": "module" package) natively, so
 * the app later gets that cached, unwrapped copy, and a replay would run the tools for
 * real. A module jiti transpiles (TypeScript, CommonJS) is jiti's own copy: no harm. This walks the config's static (and
 * string-literal dynamic) imports of local files, as they run once types are stripped
 * (sucrase: type-only imports are gone), to find such a path. Only configs that go to jiti
 * are walked: the other roads import nothing but @ardaulas/blackbox/config.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, extname, isAbsolute, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const EXTENSIONS = ["", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", "/index.ts", "/index.mts", "/index.js", "/index.mjs", "/index.cjs"];
const TS_FOR_JS: Record<string, string> = { ".js": ".ts", ".mjs": ".mts", ".cjs": ".cts" };
const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

/**
 * The local file a specifier in `from` names, or undefined (a builtin, a file in
 * node_modules). A bare specifier is resolved as Node would (`#imports`, the package's
 * own name): it may still name a file of the project.
 */
function localTarget(from: string, spec: string): string | undefined {
  let path: string;
  if (spec.startsWith("file:")) path = fileURLToPath(spec);
  else if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..") path = resolve(dirname(from), spec);
  else if (isAbsolute(spec)) path = spec;
  else {
    if (spec.startsWith("node:") || builtinModules.includes(spec)) return undefined;
    try {
      const found = createRequire(from).resolve(spec);
      return isAbsolute(found) && !found.split(sep).includes("node_modules") ? found : undefined;
    } catch {
      return undefined;
    }
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
      const target = localTarget(file, m[2]!);
      if (target) found.push(target);
    }
  }
  return found;
}

/** The nearest package.json's "type" of a file's folder. */
function packageType(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(resolve(dir, "package.json"), "utf8")) as { type?: string }).type ?? "commonjs";
    } catch {
      // no (readable) package.json here: look further up
    }
    if (dirname(dir) === dir) return undefined;
  }
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
export async function importChain(config: string, targets: ReadonlySet<string>, strip: Transform): Promise<string[] | undefined> {
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
      if (native.has(file) || loadedNatively(next, lexer.parse)) native.add(next); // a native module's imports are Node's too
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
