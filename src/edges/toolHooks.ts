/**
 * Wrapping the tool functions a config names, wherever the app loads them from:
 * ESM imports (import-in-the-middle, its loader limited to the configured files) and
 * CommonJS require() (require-in-the-middle, limited to the same files). Each call goes
 * through `session.tool(name, fn)`. One CJS file can be seen by both hooks, so a
 * wrapped function carries a marker and is never wrapped twice.
 */
import { register as registerLoader } from "node:module";
import { dirname, parse } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AnyFn, Session } from "../session/types.js";
import type { ToolTarget } from "./config.js";

const WRAPPED = Symbol.for("ardaulas.blackbox.tool.v1");
const LOADER = Symbol.for("ardaulas.blackbox.esmLoader.v1");

type Exports = Record<string, unknown>;
type ToolSession = Pick<Session, "tool">;

/** Reports an export the config names but the loaded module lacks (default: exit 2 with a message). */
export type MissingExport = (target: ToolTarget, found: string) => void;

function defaultMissing(target: ToolTarget, found: string): void {
  process.stderr.write(`blackbox: ${target.config}: ${target.entry}: ${target.file} has no function export "${target.exportName}" (${found}); fix the export name\n`);
  process.exit(2);
}

export function isWrapped(fn: unknown): boolean {
  return typeof fn === "function" && (fn as unknown as Record<symbol, unknown>)[WRAPPED] !== undefined;
}

function wrap(session: ToolSession, target: ToolTarget, fn: AnyFn): AnyFn {
  const wrapped = session.tool(target.name, fn) as AnyFn;
  Object.defineProperty(wrapped, WRAPPED, { value: fn });
  return wrapped;
}

/** Wrap the targets' exports in `exported`; returns the (possibly replaced) exports object. */
function patch(exported: Exports, targets: ToolTarget[], session: ToolSession, missing: MissingExport, esm: boolean): Exports {
  let result = exported;
  for (const target of targets) {
    const current = result[target.exportName];
    if (isWrapped(current)) continue;
    if (typeof current !== "function") {
      missing(target, current === undefined ? "it is not exported" : `it is a ${typeof current}`);
      continue;
    }
    const wrapped = wrap(session, target, current as AnyFn);
    try {
      result[target.exportName] = wrapped;
      if (result[target.exportName] !== wrapped) throw new TypeError("read-only export");
    } catch (err) {
      if (esm) throw err;
      result = { ...result, [target.exportName]: wrapped };
    }
  }
  return result;
}

function byFile(targets: ToolTarget[]): Map<string, ToolTarget[]> {
  const map = new Map<string, ToolTarget[]>();
  for (const t of targets) map.set(t.file, [...(map.get(t.file) ?? []), t]);
  return map;
}

/** Register import-in-the-middle's loader for exactly these files (in-thread where Node can). */
async function registerEsmLoader(urls: string[]): Promise<void> {
  const globals = globalThis as unknown as Record<symbol, boolean>;
  if (globals[LOADER]) return;
  globals[LOADER] = true;
  const sync = await import("import-in-the-middle/supports-sync-hooks.mjs" as string).catch(() => undefined);
  if (sync?.supportsSyncHooks?.()) {
    const hooks = await import("import-in-the-middle/register-hooks.mjs" as string);
    hooks.register({ include: urls });
    return;
  }
  registerLoader("import-in-the-middle/hook.mjs", import.meta.url, { data: { include: urls } });
}

/** Install the ESM and CommonJS hooks for the configured tools. Returns undo (harmless twice). */
export async function installToolHooks(
  targets: ToolTarget[],
  session: ToolSession,
  missing: MissingExport = defaultMissing,
): Promise<() => void> {
  if (targets.length === 0) return () => {};
  const files = byFile(targets);
  const urls = [...files.keys()].map((f) => pathToFileURL(f).href);
  await registerEsmLoader(urls);
  const [{ default: iitm }, { Hook: RequireHook }] = await Promise.all([
    import("import-in-the-middle"),
    import("require-in-the-middle"),
  ]);
  const esmHook = (url: string, exported: Exports) => {
    if (!url.startsWith("file:")) return;
    const list = files.get(fileURLToPath(url.split("?")[0]!));
    if (list) patch(exported, list, session, missing, true);
  };
  iitm.addHook(esmHook);
  // For a whitelisted absolute path, require-in-the-middle passes the file's base name and folder.
  const onRequire = (exported: unknown, name: string, basedir?: string): unknown => {
    const list = [...files.entries()].find(([file]) => dirname(file) === basedir && parse(file).name === name)?.[1];
    if (!list || exported === null || (typeof exported !== "object" && typeof exported !== "function")) return exported;
    return patch(exported as Exports, list, session, missing, false);
  };
  const cjsHook = new RequireHook([...files.keys()], onRequire as <T>(exports: T, name: string, basedir?: string) => T);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    iitm.removeHook(esmHook);
    cjsHook.unhook();
  };
}
