/**
 * `module.register` hooks that serve the tool wrappers (toolWrapper.ts) from Node's loader
 * thread: the road for a process where another loader (tsx, `--experimental-loader`) has
 * already moved module loading off the main thread. `initialize` receives the configured
 * files by URL; the wrapper modules themselves run on the main thread and call its registry.
 * The lexer is loaded only for configured tool files: a framework's file is served as it is
 * with a line appended (src/tools/frameworks/).
 */
import { reportUnreadable } from "./esmWarn.js";
import { wrapLoaded, type Lex, type LoadResult, type WrappedFile } from "./esmWrapper.js";

let files = new Map<string, WrappedFile>();
let lex: Lex = () => {
  throw new Error("blackbox: no configured tool file to read. This is a bug in Blackbox, please report it");
};

export async function initialize(data: { files: Array<[string, WrappedFile]> }): Promise<void> {
  files = new Map(data.files);
  if ([...files.values()].every((f) => f.append !== undefined)) return;
  const { init, parse } = await import("es-module-lexer");
  await init();
  lex = parse as Lex;
}

export async function load(
  url: string,
  context: unknown,
  nextLoad: (url: string, context: unknown) => Promise<LoadResult>,
): Promise<LoadResult> {
  return wrapLoaded(files, lex, url, await nextLoad(url, context), reportUnreadable);
}
