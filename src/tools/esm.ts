/**
 * Configured ESM tool files, wrapped by serving a wrapper module at their URLs
 * (toolWrapper.ts). The wrappers' calls come back to a registry on globalThis, here. The
 * wrapper source reaches Node by the cheapest of three roads that works in this process:
 *
 * 1. In-thread hooks (`module.registerHooks`, sound from Node 22.22.3 / 24.11.1 / 25.1):
 *    a `load` hook on this thread. Node runs these before any `module.register` loader.
 * 2. No module hooks at all, where Node has no sound in-thread hooks (Node 20, 22 < 22.15)
 *    and loads modules on this thread. There `module.register` would send every module the
 *    app loads afterwards across to a loader thread, whatever the hook does, a large
 *    start-up cost for an app importing both SDKs (bench/startup.mjs). Instead the read is where the
 *    source is swapped: Node 20's ESM loader reads a `file:` module through
 *    `fs.promises.readFile(url)`, looked up on that object at each load
 *    (node:internal/modules/esm/load `getSource`), and `require()` of an ES module goes
 *    through `Module.prototype._compile`. Both are patched for the configured files only
 *    (the read, only when Node's ESM loader is the caller). Whether loads happen here is
 *    tested, not assumed: a probe file is imported first, and its read must come through.
 * 3. A `module.register` loader (toolLoader.ts) when another loader came first.
 *
 * Ours stays the outermost hook: a loader registered after it (`--import tsx` after the
 * hook) would otherwise see a tool file first, and may answer it without asking the hooks
 * below it, or hand them raw TypeScript. So `module.register` (and `module.registerHooks`
 * on road 1) are wrapped: after each foreign registration ours is registered again on top.
 *
 * Over ~300 lines: the three roads share the registry and the fallbacks between them, and
 * which one a process takes is decided here at one place.
 */
import { writeSync } from "node:fs";
import fsPromises from "node:fs/promises";
import nodeModule from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ToolTarget } from "../config/index.js";
import { isOriginal, wrapLoaded, wrapToolModule, type Lex, type LoadResult, type WrappedFile } from "./esmWrapper.js";
import { replaceProperty } from "./patch.js";
import { describeExport } from "./runnerTools.js";
import { reportUnreadable } from "./esmWarn.js";
import { CALL_FROM, ESM_TOOLS_REGISTRY } from "../globals.js";

type AnyFn = (...args: unknown[]) => unknown;
type Namespace = Record<string, unknown>;
type ReadFile = (path: unknown, ...rest: unknown[]) => Promise<unknown>;
type Register = (...args: unknown[]) => unknown;
type Compile = (content: unknown, filename: unknown, ...rest: unknown[]) => unknown;
type RegisterHooks = (hooks: object) => { deregister(): void };

export interface EsmToolHost {
  /** The wrapped function for `target` over the export's current value `fn` (one per value). */
  bind(target: ToolTarget, fn: AnyFn): AnyFn;
  /** The wrapper module's `exported` function stands for `fn`: name it and mark it wrapped. */
  adopt(target: ToolTarget, exported: AnyFn, fn: AnyFn): void;
  /** A configured export that is missing or not a function (default: exit 2 with a message). */
  missing(target: ToolTarget, found: string): void;
  /**
   * Wrap `value`'s function in place if it is a tool runner's tool object (src/tools/runnerTools.ts); whether
   * it was one.
   */
  tool(target: ToolTarget, value: unknown): boolean;
}

/** Which of the three roads (top of this file) the wrapper source takes in this process. */
export type EsmRoad = "in-thread hooks" | "main-thread read" | "loader thread";

/** What the wrapper modules call; `road` is there to be read (tests, a debugger). */
interface Registry {
  road?: EsmRoad;
  /** `entry`: the wrapper module's function the agent called (a refusal's stack starts at that call). */
  call(id: number, i: number, ns: Namespace, self: unknown, args: unknown[], entry?: AnyFn): unknown;
  /** By index, the value to export in place of the wrapper's function (a runner tool object), else undefined. */
  loaded(id: number, ns: Namespace, exported: AnyFn[]): unknown[];
}

/** session.tool's entry for callers that name the function the agent called (src/session/engine.ts). */
type CallFrom = (self: unknown, args: unknown[], entry: AnyFn) => unknown;

interface FileState {
  targets: ToolTarget[];
  bound: Array<{ fn: AnyFn; wrapped: AnyFn } | undefined>;
}

/** One target per export name (the first wins, as when a hook meets a function already wrapped). */
function distinctExports(targets: ToolTarget[]): ToolTarget[] {
  const seen = new Set<string>();
  return targets.filter((t) => !seen.has(t.exportName) && seen.add(t.exportName));
}

function makeRegistry(states: FileState[], host: EsmToolHost): Registry {
  return {
    call(id, i, ns, self, args, entry) {
      const state = states[id]!;
      const target = state.targets[i]!;
      const fn = ns[target.exportName];
      if (typeof fn !== "function") {
        host.missing(target, describeExport(fn));
        throw new TypeError(`blackbox: ${target.file}: export "${target.exportName}" is not a function`);
      }
      let bound = state.bound[i];
      if (bound?.fn !== fn) bound = state.bound[i] = { fn: fn as AnyFn, wrapped: host.bind(target, fn as AnyFn) };
      const from = (bound.wrapped as unknown as Record<symbol, CallFrom | undefined>)[CALL_FROM];
      return from && entry ? from(self, args, entry) : bound.wrapped.apply(self, args);
    },
    loaded(id, ns, exported) {
      return states[id]!.targets.map((target, i) => {
        let fn: unknown;
        try {
          fn = ns[target.exportName];
        } catch {
          return undefined; // still uninitialized (an import cycle): checked at its first call
        }
        if (typeof fn === "function") host.adopt(target, exported[i]!, fn as AnyFn);
        else if (host.tool(target, fn)) return fn;
        // `export let f;` assigned later: its first call checks it
        else if (!(fn === undefined && target.exportName in ns)) host.missing(target, describeExport(fn));
        return undefined;
      });
    },
  };
}

/**
 * Node's in-thread hooks, where they are sound (registerHooks' load hook refused CommonJS's null source
 * before nodejs/node#59929).
 */
function soundSyncHooks(): RegisterHooks | undefined {
  const registerHooks = (nodeModule as unknown as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks !== "function") return undefined;
  const [major, minor, patch] = process.versions.node.split(".").map(Number) as [number, number, number];
  const fixed =
    major >= 26 ||
    (major === 25 && minor >= 1) ||
    (major === 24 && (minor > 11 || (minor === 11 && patch >= 1))) ||
    (major === 22 && (minor > 22 || (minor === 22 && patch >= 3)));
  return fixed ? registerHooks : undefined;
}

/**
 * Wrap the configured ESM tool files (keyed by real path), and serve the frameworks' ES module files
 * (`appended`: by real path, the source line to append: src/tools/frameworks/). Returns undo (harmless twice).
 */
export async function installEsmTools(
  files: Map<string, ToolTarget[]>,
  host: EsmToolHost,
  appended: ReadonlyMap<string, string> = new Map(),
): Promise<() => void> {
  const states: FileState[] = [];
  const byUrl = new Map<string, WrappedFile>();
  for (const [file, append] of appended) byUrl.set(pathToFileURL(file).href, { id: -1, exportNames: [], append });
  for (const [file, targets] of files) {
    const distinct = distinctExports(targets);
    byUrl.set(pathToFileURL(file).href, { id: states.length, exportNames: distinct.map((t) => t.exportName) });
    states.push({ targets: distinct, bound: [] });
  }
  const globals = globalThis as unknown as Record<symbol, Registry | undefined>;
  const key = Symbol.for(ESM_TOOLS_REGISTRY);
  const registry = makeRegistry(states, host);
  globals[key] = registry;
  const undoRoad = await installRoad(byUrl, registry);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    undoRoad();
    if (globals[key] === registry) delete globals[key];
  };
}

/**
 * es-module-lexer's parse, loaded only where a configured tool file needs it: a framework's file
 * (`append`) is served without reading its exports, so an app with no config loads no lexer.
 */
async function lexer(byUrl: Map<string, WrappedFile>): Promise<Lex> {
  if ([...byUrl.values()].every((f) => f.append !== undefined)) {
    return () => {
      throw new Error("blackbox: no configured tool file to read. This is a bug in Blackbox, please report it");
    };
  }
  const { init, parse } = await import("es-module-lexer");
  await init();
  return parse as Lex;
}

async function installRoad(byUrl: Map<string, WrappedFile>, registry: Registry): Promise<() => void> {
  const undo: Array<() => void> = [];
  const undoAll = () => {
    for (const u of undo.splice(0).reverse()) u();
  };
  const registerHooks = soundSyncHooks();
  if (registerHooks) {
    const lex = await lexer(byUrl);
    const ours = {
      load: (url: string, context: unknown, next: (u: string, c: unknown) => LoadResult) =>
        wrapLoaded(byUrl, lex, url, next(url, context), reportUnreadable),
    };
    let hooks = registerHooks(ours);
    registry.road = "in-thread hooks";
    undo.push(() => hooks.deregister());
    // in-thread hooks registered after ours run before it: ours goes on top again
    undo.push(
      replaceProperty(nodeModule, "registerHooks", function (this: unknown, ...args: unknown[]) {
        const theirs = (registerHooks as (...a: unknown[]) => { deregister(): void }).apply(this, args);
        hooks.deregister();
        hooks = registerHooks(ours);
        return theirs;
      }),
    );
    return undoAll;
  }
  const register = nodeModule.register as unknown as Register;
  const onMainThread = await mainThreadRoad(byUrl, undo);
  registry.road = onMainThread ? "main-thread read" : "loader thread";
  if (!onMainThread) loaderThreadRoad(byUrl, register);
  // A loader registered after ours (on road 2: the first one, which takes module loads off
  // this thread) gets ours on top of it. Loader-thread hooks cannot be unregistered: a copy
  // below the top one only ever sees what the top one asks it for, and wraps it the same way.
  undo.push(
    replaceProperty(nodeModule, "register", function (this: unknown, ...args: unknown[]) {
      const theirs = register.apply(this, args);
      loaderThreadRoad(byUrl, register);
      registry.road = "loader thread";
      return theirs;
    }),
  );
  return undoAll;
}

/** Road 3: toolLoader.ts on Node's loader thread. */
function loaderThreadRoad(byUrl: Map<string, WrappedFile>, register: Register): void {
  register(new URL("../tools/esmLoader.js", import.meta.url).href, { data: { files: [...byUrl.entries()] } });
}

function pathOf(url: URL): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined; // e.g. a file URL with a host: not one of ours
  }
}

/**
 * Road 2, its undo pushed to `undo`; false when module loads do not happen on this thread
 * (or Node's call sites cannot be read here, which the read's caller check needs).
 */
async function mainThreadRoad(byUrl: Map<string, WrappedFile>, undo: Array<() => void>): Promise<boolean> {
  if (!callSitesReadable()) return false;
  const lex = await lexer(byUrl);
  const byPath = new Map([...byUrl].map(([href, file]) => [fileURLToPath(href), { href, file }]));
  const probeHref = new URL(`../config.js?blackbox-probe=${process.pid}-${Date.now()}`, import.meta.url).href;
  let probeSeen = false;
  /** The tool files whose wrapper Node has (or that were warned of). */
  const served = new Set<string>();
  const originalRead = fsPromises.readFile as unknown as ReadFile;
  const readFile = function readFile(this: unknown, path: unknown, ...rest: unknown[]): Promise<unknown> {
    const read = originalRead.call(this, path, ...rest);
    if (!(path instanceof URL) || path.protocol !== "file:") return read;
    if (path.href === probeHref) probeSeen = true;
    if (isOriginal(path.search)) return read;
    const file = pathOf(path);
    const tool = file === undefined ? undefined : byPath.get(file);
    if (tool === undefined || !calledByEsmLoader(readFile)) return read;
    return read.then((bytes) => {
      if (!Buffer.isBuffer(bytes)) return bytes;
      const wrapped = wrapToolModule(lex, bytes.toString("utf8"), path.href, tool.file);
      if (wrapped === undefined) return bytes;
      served.add(tool.href);
      return Buffer.from(wrapped, "utf8");
    });
  };
  Object.defineProperty(readFile, "length", { value: originalRead.length });
  const mine: Array<() => void> = [replaceProperty(fsPromises, "readFile", readFile)];
  await import(probeHref);
  if (!probeSeen) {
    mine[0]!();
    return false;
  }

  // require() of an ES module (Node >= 20.19) compiles the source the CommonJS loader read;
  // with require(esm) turned off, Node's own error must stay about the file as it is.
  const proto = nodeModule.prototype as unknown as { _compile: Compile };
  const originalCompile = proto._compile;
  if ((process.features as { require_module?: boolean }).require_module) {
    mine.push(
      replaceProperty(
        proto,
        "_compile",
        function _compile(this: unknown, content: unknown, filename: unknown, ...rest: unknown[]) {
          if (typeof filename !== "string" || typeof content !== "string")
            return originalCompile.call(this, content, filename, ...rest);
          const tool = byPath.get(filename);
          const wrapped = tool && wrapToolModule(lex, content, tool.href, tool.file);
          if (wrapped) served.add(tool.href);
          else if (rest[0] === "module") warnUnwrappable(lex, content, filename, byPath, served);
          return originalCompile.call(this, wrapped ?? content, filename, ...rest);
        },
      ),
    );
  }
  undo.push(...mine);
  return true;
}

/**
 * require() of an ES module loads the modules it imports through Node 20's synchronous
 * path, which reads them with a `readFileSync` the loader took at start-up: a tool file
 * first loaded that way cannot be wrapped. Said once per tool file, for the ones the
 * required module imports directly (those further down go unsaid).
 */
function warnUnwrappable(
  lex: Lex,
  source: string,
  filename: string,
  byPath: Map<string, { href: string }>,
  served: Set<string>,
): void {
  let imports: ReturnType<Lex>[0];
  let exports: ReturnType<Lex>[1];
  try {
    [imports, exports] = lex(source);
  } catch {
    return;
  }
  const specifiers = [
    ...(imports as ReadonlyArray<{ type: string; specifier?: string | null }>)
      .filter((i) => i.type === "static" || i.type === "reexport-star")
      .map((i) => i.specifier),
    ...(exports as ReadonlyArray<{ type: string; from?: string }>)
      .filter((e) => e.type === "reexport")
      .map((e) => e.from),
  ];
  const base = pathToFileURL(filename);
  for (const specifier of specifiers) {
    if (typeof specifier !== "string" || !/^(\.{1,2}\/|\/|file:)/.test(specifier)) continue;
    const target = pathOf(new URL(specifier, base));
    const tool = target === undefined ? undefined : byPath.get(target);
    if (!tool || served.has(tool.href)) continue;
    served.add(tool.href);
    writeSync(
      2,
      `blackbox: ${filename} is loaded with require() and imports the tool file ${target}: on Node ${process.versions.node} a module that require() loads cannot be wrapped, so calls of its configured tools are not recorded. Load ${filename} with import() instead, or run on Node >= 22.22.3 / 24.11.1.\n`,
    );
  }
}

/** Error's stack settings can be set here (not so with `--frozen-intrinsics` or a frozen Error). */
function callSitesReadable(): boolean {
  const limit = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
  const prepare = Object.getOwnPropertyDescriptor(Error, "prepareStackTrace");
  return (
    !Object.isFrozen(Error) &&
    limit?.writable !== false &&
    (prepare === undefined || prepare.writable !== false || prepare.set !== undefined)
  );
}

/**
 * Whether the caller of `fn` is Node's ESM loader reading a module's source (and not the
 * app reading its own tool file by URL): `getSource` of node:internal/modules/esm/load a few
 * frames down (an fs wrapper installed after the hook adds frames). Read from V8's call
 * sites, whatever the app's Error.prepareStackTrace does; where they cannot be read, the
 * read is taken to be the loader's.
 */
function calledByEsmLoader(fn: AnyFn): boolean {
  const { prepareStackTrace, stackTraceLimit } = Error;
  const holder: { stack?: unknown } = {};
  try {
    Error.stackTraceLimit = 10;
    Error.prepareStackTrace = (_err, sites) => sites;
    Error.captureStackTrace(holder, fn);
    const sites = holder.stack;
    return (
      !Array.isArray(sites) ||
      sites.some((site: NodeJS.CallSite) => site.getFileName() === "node:internal/modules/esm/load")
    );
  } catch {
    return true;
  } finally {
    try {
      Error.prepareStackTrace = prepareStackTrace;
      Error.stackTraceLimit = stackTraceLimit;
    } catch {
      // left as it was: nothing was changed
    }
  }
}
