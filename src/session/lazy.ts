/**
 * The cassette loader and writer, kept out of the session's static import graph: both
 * pull in zod (the loader for a cassette that fails the fast shape check, verify for
 * every write), ~60-120 ms of start-up the register hook's record mode does not need
 * before the first call. `session/index.ts` provides both eagerly (the library and
 * replay/fork see no change); the register hook's record mode loads the writer at the
 * session's first call (`writerReady`), before anything can need it at exit.
 */
import type { Trace } from "../trace/types.js";

interface Modules {
  loadTraceSync?: (file: string) => Trace;
  writeCassetteSync?: (path: string, trace: Trace, secrets: string[]) => void;
}

const modules: Modules = {};

let writerLoad: Promise<void> | undefined;

/** Hands the session the loader and the writer (session/index.ts does, statically). */
export function provideSessionModules(given: Modules): void {
  Object.assign(modules, given);
}

/** Undefined when the writer is there; else a promise that loads it (one load however often asked). */
export function writerReady(): Promise<void> | undefined {
  if (modules.writeCassetteSync) return undefined;
  writerLoad ??= import("./write.js").then((m) => {
    modules.writeCassetteSync ??= m.writeCassetteSync;
  });
  return writerLoad;
}

function missing(what: string, how: string): Error {
  return new Error(
    `blackbox: the session's ${what} was not loaded (${how}); import the session from @ardaulas/blackbox or session/index.js. This is a bug in Blackbox, please report it`,
  );
}

export function loadTraceSync(file: string): Trace {
  if (!modules.loadTraceSync) throw missing("cassette loader", "replay and fork need it when the session is created");
  return modules.loadTraceSync(file);
}

export function writeCassetteSync(path: string, trace: Trace, secrets: string[]): void {
  if (!modules.writeCassetteSync) throw missing("cassette writer", "it loads at the first model or tool call");
  modules.writeCassetteSync(path, trace, secrets);
}
