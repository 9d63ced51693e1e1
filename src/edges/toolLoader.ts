/**
 * `module.register` hooks that serve the tool wrappers (toolWrapper.ts) from Node's loader
 * thread: the road for a process where another loader (tsx, `--experimental-loader`) has
 * already moved module loading off the main thread. `initialize` receives the configured
 * files by URL; the wrapper modules themselves run on the main thread and call its registry.
 */
import { init, parse } from "es-module-lexer";
import { reportUnreadable } from "./toolWarn.js";
import { wrapLoaded, type Lex, type LoadResult, type WrappedFile } from "./toolWrapper.js";

let files = new Map<string, WrappedFile>();

export async function initialize(data: { files: Array<[string, WrappedFile]> }): Promise<void> {
  files = new Map(data.files);
  await init();
}

export async function load(
  url: string,
  context: unknown,
  nextLoad: (url: string, context: unknown) => Promise<LoadResult>,
): Promise<LoadResult> {
  return wrapLoaded(files, parse as Lex, url, await nextLoad(url, context), reportUnreadable);
}
