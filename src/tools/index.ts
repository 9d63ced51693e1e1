/**
 * Wrapping the tool functions a config names, wherever the app loads them from. ES
 * modules: a wrapper module served at the file's URL (esmTools.ts, toolWrapper.ts).
 * CommonJS: `require()` through require-in-the-middle, limited to the configured files,
 * and an ESM `import` of the file, which never calls `require`: Node's ESM loader calls
 * `Module._load(filename)` and reads `module.exports`, so that call is wrapped too, for
 * the configured files only. Each call goes through `session.tool(name, fn)`. One module
 * can meet more than one of these, so a wrapped function carries a marker and is never
 * wrapped twice.
 */
import { realpathSync } from "node:fs";
import nodeModule, { createRequire } from "node:module";
import { dirname, parse, resolve } from "node:path";
import type { AnyFn, Session, SessionPort } from "../session/types.js";
import { CALL_FROM, WRAPPED_TOOL } from "../globals.js";
import { markReported } from "../process/reported.js";
import type { ToolTarget } from "../config/index.js";
import { installEsmTools } from "./esm.js";
import { installFrameworkTools } from "./frameworks/install.js";
import { insideFrameworkTool } from "./frameworks/scope.js";
import { modelArgumentsOnly } from "./objects.js";
import { replaceProperty } from "./patch.js";
import { describeExport, runnerTool, runnerToolName } from "./runnerTools.js";
import { findProviderId } from "../trace/neutrality.js";

type Exports = Record<string, unknown>;
type ToolSession = Pick<Session, "tool">;
type Load = (request: unknown, parent: unknown, ...rest: unknown[]) => unknown;

/** Reports an export the config names but the loaded module lacks (default: exit 2 with a message). */
export type MissingExport = (target: ToolTarget, found: string) => void;

/** A configured tool that cannot be wrapped: the config's one line, exit 2 before the agent goes on. */
function refuseTool(target: ToolTarget, problem: string): never {
  process.stderr.write(`blackbox: ${target.config}: ${target.entry}: ${problem}\n`);
  markReported(); // the run's root adds nothing to this line
  process.exit(2);
}

function defaultMissing(target: ToolTarget, found: string): void {
  refuseTool(
    target,
    `${target.file} has no function export "${target.exportName}" (${found}); fix the export name (a function, or a tool object: betaTool(), betaZodTool(), a runTools() function tool, an AI SDK tool(), a LangChain tool, an Agents SDK tool())`,
  );
}

function isWrapped(fn: unknown): boolean {
  return typeof fn === "function" && (fn as unknown as Record<symbol, unknown>)[WRAPPED_TOOL] !== undefined;
}

type CallFrom = (self: unknown, args: unknown[], entry: AnyFn) => Promise<unknown>;

/**
 * `fn` recorded as the configured tool; called inside a framework tool call Blackbox records
 * (src/tools/frameworks/), it just runs: it is part of that call, which a replay answers whole.
 */
function wrap(session: ToolSession, target: ToolTarget, fn: AnyFn, name = target.name): AnyFn {
  const recorded = session.tool(name, fn) as AnyFn;
  const from = (recorded as unknown as Record<symbol, CallFrom | undefined>)[CALL_FROM];
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    if (insideFrameworkTool()) return (async () => fn.apply(this, args))();
    // a refusal's stack starts at the agent's call of this function, not inside it
    return from ? from(this, args, wrapped) : recorded.apply(this, args);
  };
  Object.defineProperty(wrapped, "name", { value: recorded.name });
  if (from) {
    const callFrom: CallFrom = (self, args, entry) =>
      insideFrameworkTool() ? (async () => fn.apply(self, args))() : from(self, args, entry);
    Object.defineProperty(wrapped, CALL_FROM, { value: callFrom });
  }
  Object.defineProperty(wrapped, WRAPPED_TOOL, { value: fn });
  return wrapped;
}

/** Wrap `value`'s function in place if it is a tool runner's tool object; whether it was one. */
function wrapRunnerTool(session: ToolSession, target: ToolTarget, value: unknown, missing: MissingExport): boolean {
  const tool = runnerTool(value);
  if (!tool) return false;
  if (isWrapped(tool.fn)) return true;
  const name = runnerToolName(target, tool);
  // the tool's own name is what the model calls: a config name beside it would leave the model's calls
  // unanswered in the cassette
  if (target.named && name !== target.name) {
    refuseTool(
      target,
      `export "${target.exportName}" is a tool object named "${name}", the name the model calls it by, which its steps are recorded under; drop "name" from the entry`,
    );
  }
  // the config checked the export's name; the tool's own name is only known now (session.tool would throw mid-import)
  const looksProvider = findProviderId(name);
  if (looksProvider) {
    refuseTool(
      target,
      `tool name "${name}" (the tool object's own name) looks like a provider id (${looksProvider}), which a cassette must not contain; give the tool another name`,
    );
  }
  const wrapped = tool.modelArguments
    ? modelArgumentsOnly(session, name, tool.fn, tool.modelArguments)
    : wrap(session, target, tool.fn, name);
  if (!tool.replace(wrapped)) {
    missing(target, "it is a tool object whose function cannot be replaced: it is frozen");
  }
  return true;
}

/** A CommonJS module's exports with the targets wrapped (a copy where they cannot be assigned). */
function patchExports(exported: unknown, targets: ToolTarget[], session: ToolSession, missing: MissingExport): unknown {
  if (exported === null || (typeof exported !== "object" && typeof exported !== "function")) return exported;
  let result = exported as Exports;
  for (const target of targets) {
    const current = result[target.exportName];
    if (isWrapped(current)) continue;
    if (typeof current !== "function") {
      if (!wrapRunnerTool(session, target, current, missing)) missing(target, describeExport(current));
      continue;
    }
    const wrapped = wrap(session, target, current as AnyFn);
    try {
      result[target.exportName] = wrapped;
      if (result[target.exportName] !== wrapped) throw new TypeError("read-only export");
    } catch {
      result = { ...result, [target.exportName]: wrapped };
    }
  }
  return result;
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** The script Node runs (process.argv[1]), by real path, as Node resolves it. */
function entryPoint(): string | undefined {
  const main = process.argv[1];
  if (!main) return undefined;
  for (const ext of ["", ".js", ".mjs", ".cjs"]) {
    try {
      return realpathSync(resolve(main + ext));
    } catch {
      // try the next extension
    }
  }
  return undefined;
}

/** The targets by file, keyed by real path: Node resolves modules through symlinks. */
function byFile(targets: ToolTarget[]): Map<string, ToolTarget[]> {
  const map = new Map<string, ToolTarget[]>();
  for (const t of targets) {
    const file = realpathOr(t.file);
    map.set(file, [...(map.get(file) ?? []), t]);
  }
  return map;
}

/** Wrap `Module._load` for ESM imports of the configured CommonJS files. Returns undo. */
function hookEsmImportOfCommonJs(
  files: Map<string, ToolTarget[]>,
  patchFile: (file: string, exported: unknown) => unknown,
): () => void {
  const mod = nodeModule as unknown as { _load: Load; _cache: Record<string, { exports: unknown } | undefined> };
  const original = mod._load;
  return replaceProperty(
    mod,
    "_load",
    function _load(this: unknown, request: unknown, parent: unknown, ...rest: unknown[]): unknown {
      const exported = original.call(this, request, parent, ...rest);
      // The ESM loader passes the resolved filename and no parent module.
      if (parent != null || typeof request !== "string" || !files.has(request)) return exported;
      const patched = patchFile(request, exported);
      const record = mod._cache[request];
      if (record && record.exports !== patched) record.exports = patched;
      return patched;
    },
  );
}

/** The configured CommonJS tool files' hooks: their require() and their ESM import. Returns undo. */
async function hookCommonJs(
  files: Map<string, ToolTarget[]>,
  imported: Map<string, ToolTarget[]>,
  patchFile: (file: string, exported: unknown) => unknown,
): Promise<() => void> {
  const undoImport = hookEsmImportOfCommonJs(imported, patchFile);
  const { Hook: RequireHook } = await import("require-in-the-middle");
  // require-in-the-middle passes a whitelisted file's base name without its extension and
  // its folder, which two files (tools.js, tools.cjs) can share: the module whose exports
  // these are tells them apart.
  const cache = createRequire(import.meta.url).cache;
  const onRequire = (exported: unknown, name: string, basedir?: string): unknown => {
    const candidates = [...files.keys()].filter((file) => dirname(file) === basedir && parse(file).name === name);
    const file = candidates.length > 1 ? candidates.find((f) => cache[f]?.exports === exported) : candidates[0];
    return file === undefined ? exported : patchFile(file, exported);
  };
  const cjsHook = new RequireHook([...files.keys()], onRequire as <T>(exports: T, name: string, basedir?: string) => T);
  return () => {
    undoImport();
    cjsHook.unhook();
  };
}

/**
 * Install the hooks for the configured tools, and for the frameworks' tool runs (src/tools/frameworks/) of
 * the copies found from `frameworksFrom` (none: no framework is patched). Returns undo (harmless twice).
 */
export async function installToolHooks(
  targets: ToolTarget[],
  session: ToolSession & Pick<SessionPort, "fail" | "mcpLive" | "lastOutput">,
  missing: MissingExport = defaultMissing,
  frameworksFrom: string[] = [],
): Promise<() => void> {
  const frameworks = installFrameworkTools(frameworksFrom, session);
  if (targets.length === 0 && frameworks.esm.size === 0) return frameworks.undo;
  const files = byFile(targets);
  const patchFile = (file: string, exported: unknown) => patchExports(exported, files.get(file)!, session, missing);
  // A tool file run as the entry point stays itself (its "am I the main module" checks hold);
  // nothing imports an entry point's exports.
  const entry = entryPoint();
  const imported = new Map([...files].filter(([file]) => file !== entry));
  const undoEsm = await installEsmTools(
    imported,
    {
      bind: (target, fn) => (isWrapped(fn) ? fn : wrap(session, target, fn)),
      adopt: (target, exported, fn) => {
        Object.defineProperty(exported, "name", { value: fn.name || target.name });
        Object.defineProperty(exported, WRAPPED_TOOL, { value: fn });
      },
      missing,
      tool: (target, value) => wrapRunnerTool(session, target, value, missing),
    },
    frameworks.esm,
  );
  const undoCommonJs = files.size === 0 ? () => {} : await hookCommonJs(files, imported, patchFile);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    undoEsm();
    undoCommonJs();
    frameworks.undo();
  };
}
