/**
 * Finding, loading (src/config/load.ts) and validating blackbox.config.*. zod loads only for
 * a config the fast check in shape.ts does not accept. Every problem is one
 * BlackboxConfigError naming the file and the entry.
 */
import { OPT_IN_DETECTORS, redactRulesProblem, type RedactRules } from "../redact/index.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { BlackboxConfig } from "../config.js";
import { BlackboxConfigError } from "../errors.js";
import { findProviderId } from "../trace/neutrality.js";
import { isPlainConfig } from "./shape.js";
import { scanExports } from "./staticExports.js";
import { defaultExport, firstLine, importConfig, MODULE_EXTENSIONS, sucrase } from "./load.js";
import { SERVICE_NAMES } from "../providers/index.js";
import type { ServiceName } from "../providers/types.js";

export const CONFIG_NAMES = [
  "blackbox.config.ts",
  "blackbox.config.mts",
  "blackbox.config.cts",
  "blackbox.config.js",
  "blackbox.config.mjs",
  "blackbox.config.cjs",
];

/** One tool the hooks wrap: `exportName` of the file `file`, recorded as `name`. */
export interface ToolTarget {
  name: string;
  /**
   * The config gave `name` ({ module, export, name }); a runner tool object's must be its own
   * (src/tools/runnerTools.ts).
   */
  named?: boolean;
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
  providers: Record<ServiceName, string[]>;
  redact?: RedactRules | false;
}

/**
 * The config file to use: BLACKBOX_CONFIG when given, else the first blackbox.config.* in
 * cwd, else `fallback` (BLACKBOX_CONFIG_DEFAULT: the one the CLI found in its own folder).
 */
export function findConfig(cwd: string, explicit: string | undefined, fallback?: string): string | undefined {
  if (explicit) {
    const file = resolve(cwd, explicit);
    if (!existsSync(file))
      throw new BlackboxConfigError(
        `config file ${file} (BLACKBOX_CONFIG / --config) does not exist; fix the path or unset it`,
      );
    return file;
  }
  return (
    CONFIG_NAMES.map((n) => resolve(cwd, n)).find((f) => existsSync(f)) ??
    (fallback && existsSync(fallback) ? fallback : undefined)
  );
}

function resolveModule(base: string, spec: string): string | undefined {
  const path = isAbsolute(spec) ? spec : resolve(base, spec);
  for (const ext of MODULE_EXTENSIONS) {
    const candidate = path + ext;
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

async function checkedConfig(file: string, raw: unknown): Promise<BlackboxConfig> {
  if (isPlainConfig(raw)) return raw; // zod loads only for providers or a config it must refuse
  const { configSchema, formatIssue } = await import("./schema.js");
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new BlackboxConfigError(
      `${file}: ${formatIssue(first)}. Each tools entry is { module, exports: [names] } or { module, export, name? }; providers is { ${SERVICE_NAMES.map((p) => `${p}?: [urls]`).join(", ")} }`,
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
    if (!path)
      throw new BlackboxConfigError(
        `${file}: ${entry}: module "${tool.module}" does not exist (looked in ${base}); fix the path, relative to the config file`,
      );
    const named = !("exports" in tool) && tool.name !== undefined;
    const wanted =
      "exports" in tool ? tool.exports.map((e) => [e, e] as const) : [[tool.export, tool.name ?? tool.export] as const];
    const scan = scanExports(readFileSync(path, "utf8"));
    for (const [exportName, name] of wanted) {
      if (scan.complete && !scan.names.has(exportName)) {
        const has = [...scan.names].join(", ") || "nothing";
        throw new BlackboxConfigError(
          `${file}: ${entry}: module "${tool.module}" has no export "${exportName}" (it exports ${has}); fix the export name`,
        );
      }
      const before = seen.get(name);
      if (before === entry)
        throw new BlackboxConfigError(`${file}: ${entry}: tool name "${name}" is listed twice; list each export once`);
      if (before)
        throw new BlackboxConfigError(
          `${file}: ${entry}: tool name "${name}" is already used by ${before}; give one of them another name`,
        );
      const looksProvider = findProviderId(name);
      if (looksProvider) {
        throw new BlackboxConfigError(
          `${file}: ${entry}: tool name "${name}" looks like a provider id (${looksProvider}), which a cassette must not contain; give it another name ({ module, export, name })`,
        );
      }
      seen.set(name, entry);
      tools.push({ name, ...(named ? { named } : {}), file: path, exportName, entry, config: file });
    }
  });
  const redactProblem = redactRulesProblem(config.redact, Object.keys(OPT_IN_DETECTORS));
  if (redactProblem) throw new BlackboxConfigError(`${file}: ${redactProblem}`);
  return {
    file,
    tools,
    providers: providerLists(config.providers),
    ...(config.redact !== undefined ? { redact: config.redact } : {}),
  };
}

/** Each provider's extra base URLs ([] when the config names none). */
function providerLists(given: BlackboxConfig["providers"]): Record<ServiceName, string[]> {
  return Object.fromEntries(SERVICE_NAMES.map((p) => [p, given?.[p] ?? []])) as Record<ServiceName, string[]>;
}

/** Find, load and validate the config; no file means no tools and no extra providers. */
export async function loadConfig(cwd: string, explicit?: string, fallback?: string): Promise<LoadedConfig> {
  const file = findConfig(cwd, explicit, fallback);
  if (!file) return { file: undefined, tools: [], providers: providerLists(undefined) };
  let loaded: { mod: unknown; viaJiti: boolean };
  try {
    loaded = await importConfig(file);
  } catch (err) {
    throw new BlackboxConfigError(
      `${file}: the config could not be loaded (${firstLine(err)}); fix the file so that it loads and default-exports defineConfig({...})`,
    );
  }
  const config = await validateConfig(file, defaultExport(file, loaded.mod));
  if (loaded.viaJiti) await refuseImportedTools(config);
  return config;
}

/** A config that imports a module whose tools it names (src/config/imports.ts): one clear refusal. */
async function refuseImportedTools(config: LoadedConfig): Promise<void> {
  if (!config.file || config.tools.length === 0) return;
  const { importChain } = await import("./imports.js");
  const strip = (source: string, path: string): string =>
    sucrase()(source, { transforms: ["typescript"], disableESTransforms: true, filePath: path }).code;
  const chain = await importChain(config.file, new Set(config.tools.map((t) => t.file)), strip);
  if (!chain) return;
  const tool = config.tools.find((t) => t.file === chain[chain.length - 1])!;
  const base = dirname(config.file);
  const path = chain.map((f) => relative(base, f) || f).join(" -> ");
  throw new BlackboxConfigError(
    `${config.file}: ${tool.entry}: the config imports the module whose tools it names (${path}), so Node loads it before Blackbox can wrap them, and a replay would run them for real. ` +
      'Do not import the tools module from the config: list its exports by name (exports: ["a", "b"])',
  );
}
