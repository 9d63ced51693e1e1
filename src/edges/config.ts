/**
 * Finding, loading and validating blackbox.config.{ts,mts,js,mjs}. A config that imports
 * nothing but @ardaulas/blackbox/config (the usual one) loads without jiti: an .mjs one is
 * imported natively; a .ts/.mts one has its types stripped by sucrase (~40 ms, no cache
 * needed) and is imported as a data: module. Anything else (other imports, import.meta,
 * CommonJS, syntax sucrase refuses) loads through jiti (Node 20 cannot strip types; jiti
 * measured ~45 ms over the .mjs path with its disk cache warm, ~180 ms cold, vs ~400 ms
 * for tsx's tsImport). zod, ~60 ms to import, loads only for a config the fast check in
 * configShape.ts does not accept. Every problem is one BlackboxConfigError naming the
 * file and the entry.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BlackboxConfig } from "../config.js";
import { BlackboxConfigError } from "../errors.js";
import { isPlainConfig } from "./configShape.js";
import { scanExports } from "./staticExports.js";

export const CONFIG_NAMES = ["blackbox.config.ts", "blackbox.config.mts", "blackbox.config.js", "blackbox.config.mjs"];
const MODULE_EXTENSIONS = ["", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/** One tool the hooks wrap: `exportName` of the file `file`, recorded as `name`. */
export interface ToolTarget {
  name: string;
  file: string;
  exportName: string;
  /** "tools[i]" for messages. */
  entry: string;
  /** The config file that named it. */
  config: string;
}

export interface LoadedConfig {
  file: string | undefined;
  tools: ToolTarget[];
  providers: { anthropic: string[]; openai: string[] };
}

/** The config file to use: BLACKBOX_CONFIG when given, else the first blackbox.config.* in cwd. */
export function findConfig(cwd: string, explicit: string | undefined): string | undefined {
  if (explicit) {
    const file = resolve(cwd, explicit);
    if (!existsSync(file)) throw new BlackboxConfigError(`config file ${file} (BLACKBOX_CONFIG / --config) does not exist; fix the path or unset it`);
    return file;
  }
  return CONFIG_NAMES.map((n) => resolve(cwd, n)).find((f) => existsSync(f));
}

function resolveModule(base: string, spec: string): string | undefined {
  const path = isAbsolute(spec) ? spec : resolve(base, spec);
  for (const ext of MODULE_EXTENSIONS) {
    const candidate = path + ext;
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

const DEFINE_CONFIG_IMPORT = /import\s*\{\s*defineConfig\s*\}\s*from\s*["']@ardaulas\/blackbox\/config["']/g;

function importsOnlyDefineConfig(source: string): boolean {
  return !/\bimport\b|\brequire\b/.test(source.replace(DEFINE_CONFIG_IMPORT, ""));
}

/** `import { defineConfig }`, `import type { BlackboxConfig }`, `import { defineConfig, type BlackboxConfig }`. */
const OWN_IMPORT = /import\s+(?:type\s+)?\{[^}]*\}\s*from\s*["']@ardaulas\/blackbox\/config["']/g;
const OWN_SPECIFIER = /(["'])@ardaulas\/blackbox\/config\1/g;

/** The file URL `@ardaulas/blackbox/config` resolves to: this package's own (jiti gets it as an alias). */
function configEntry(): string {
  return fileURLToPath(new URL("./config.js", new URL("..", import.meta.url)));
}

/**
 * A .ts/.mts config importing nothing but @ardaulas/blackbox/config (values or types),
 * with its types stripped by sucrase and imported as a data: module; undefined when it
 * cannot go this way (then jiti loads it, and says what is wrong if it is).
 */
async function importStripped(file: string, source: string): Promise<{ config: unknown } | undefined> {
  if (/\bimport\b|\brequire\b/.test(source.replace(OWN_IMPORT, ""))) return undefined; // import.meta too
  try {
    const { transform } = await import("../vendor/sucrase.js");
    const js = transform(source, { transforms: ["typescript"], disableESTransforms: true, filePath: file }).code;
    const code = js.replace(OWN_SPECIFIER, JSON.stringify(pathToFileURL(configEntry()).href));
    const mod = (await import(`data:text/javascript;base64,${Buffer.from(code, "utf8").toString("base64")}`)) as { default?: unknown };
    return { config: mod.default ?? mod };
  } catch {
    return undefined; // e.g. CommonJS (module.exports), a re-export from a relative file, a namespace
  }
}

async function importConfig(file: string): Promise<unknown> {
  // An .mjs config that imports nothing but defineConfig skips jiti (~50-100 ms); when
  // Node cannot load it (the app lacks @ardaulas/blackbox) it goes to jiti. One that
  // imports more always goes to jiti, which keeps those modules out of Node's cache
  // (a tools module cached before the hooks are installed would not be wrapped).
  if (file.endsWith(".mjs") && importsOnlyDefineConfig(readFileSync(file, "utf8"))) {
    const native = await import(pathToFileURL(file).href).then(
      (mod: { default?: unknown }) => ({ config: mod.default ?? mod }),
      () => undefined,
    );
    if (native) return native.config;
  }
  if (file.endsWith(".ts") || file.endsWith(".mts")) {
    const stripped = await importStripped(file, readFileSync(file, "utf8"));
    if (stripped) return stripped.config;
  }
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, { alias: { "@ardaulas/blackbox/config": configEntry() }, moduleCache: false });
  return jiti.import(file, { default: true });
}

async function checkedConfig(file: string, raw: unknown): Promise<BlackboxConfig> {
  if (isPlainConfig(raw)) return raw; // zod loads only for providers or a config it must refuse
  const { configSchema, formatIssue } = await import("./configSchema.js");
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new BlackboxConfigError(
      `${file}: ${formatIssue(first)}. Each tools entry is { module, exports: [names] } or { module, export, name? }; providers is { anthropic?: [urls], openai?: [urls] }`,
    );
  }
  return parsed.data as BlackboxConfig;
}

export async function validateConfig(file: string, raw: unknown): Promise<LoadedConfig> {
  const config = await checkedConfig(file, raw);
  const base = dirname(file);
  const tools: ToolTarget[] = [];
  const seen = new Map<string, string>();
  (config.tools ?? []).forEach((tool, i) => {
    const entry = `tools[${i}]`;
    const path = resolveModule(base, tool.module);
    if (!path) throw new BlackboxConfigError(`${file}: ${entry}: module "${tool.module}" does not exist (looked in ${base}); fix the path, relative to the config file`);
    const wanted = "exports" in tool ? tool.exports.map((e) => [e, e] as const) : [[tool.export, tool.name ?? tool.export] as const];
    const scan = scanExports(readFileSync(path, "utf8"));
    for (const [exportName, name] of wanted) {
      if (scan.complete && !scan.names.has(exportName)) {
        const has = [...scan.names].join(", ") || "nothing";
        throw new BlackboxConfigError(`${file}: ${entry}: module "${tool.module}" has no export "${exportName}" (it exports ${has}); fix the export name`);
      }
      const before = seen.get(name);
      if (before) throw new BlackboxConfigError(`${file}: ${entry}: tool name "${name}" is already used by ${before}; give one of them another name`);
      seen.set(name, entry);
      tools.push({ name, file: path, exportName, entry, config: file });
    }
  });
  return { file, tools, providers: { anthropic: config.providers?.anthropic ?? [], openai: config.providers?.openai ?? [] } };
}

/** Find, load and validate the config; no file means no tools and no extra providers. */
export async function loadConfig(cwd: string, explicit?: string): Promise<LoadedConfig> {
  const file = findConfig(cwd, explicit);
  if (!file) return { file: undefined, tools: [], providers: { anthropic: [], openai: [] } };
  let raw: unknown;
  try {
    raw = await importConfig(file);
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    throw new BlackboxConfigError(`${file}: the config could not be loaded (${why}); fix the file so that it loads and default-exports defineConfig({...})`);
  }
  return validateConfig(file, raw);
}
