/**
 * The wrapper module that stands at a configured ESM tool file's URL: it re-exports the
 * file itself (loaded under a `?blackbox-tool-original` query) and puts a wrapped function
 * in place of each configured export. Each wrapped export is a function declaration,
 * hoisted, so a module of an import cycle can call it before the wrapper has run, and each
 * call reads the original's live binding, so an export the module reassigns is called as
 * it is now. The calls go to the registry the main thread keeps on globalThis
 * (esmTools.ts), so the wrapper imports nothing but the original. An export that turns
 * out to be an SDK tool runner's tool object (src/tools/runnerTools.ts) has its function
 * wrapped in place when the file has loaded, and the export is rebound to the object.
 *
 * Pure: source text in, source text out. The same wrapper is served whichever way the
 * source reaches Node (a loader hook on either thread, or the main-thread read).
 */
import { ESM_TOOLS_REGISTRY } from "../globals.js";

/** The query that names a tool file's own module behind its wrapper. */
const ORIGINAL_MARK = "blackbox-tool-original";

const MARKED = new RegExp(`[?&]${ORIGINAL_MARK}(&|$)`);

/**
 * One configured file as the wrappers know it: its registry id and the export names to wrap; or a
 * framework's file (src/tools/frameworks/), served as it is with `append` added.
 */
export interface WrappedFile {
  id: number;
  exportNames: string[];
  append?: string;
}

/** es-module-lexer's `parse`, narrowed to what is read here. */
export type Lex = (
  source: string,
) => readonly [unknown, ReadonlyArray<{ type: string; name?: string; typeOnly: boolean }>, unknown, boolean];

/** Whether this URL (or its search part) is a tool file's own module, behind the wrapper. */
export function isOriginal(urlOrSearch: string): boolean {
  const q = urlOrSearch.indexOf("?");
  return q !== -1 && MARKED.test(urlOrSearch.slice(q));
}

/** The URL of the file's own module: the same URL with the mark added to its query. */
function originalUrl(href: string): string {
  const url = new URL(href);
  url.search = `${url.search ? `${url.search}&` : "?"}${ORIGINAL_MARK}`;
  return url.href;
}

function wrapperSource(originalHref: string, file: WrappedFile, hasDefault: boolean): string {
  const from = JSON.stringify(originalHref);
  const registry = `globalThis[Symbol.for(${JSON.stringify(ESM_TOOLS_REGISTRY)})]`;
  const lines = [`import * as __blackbox_ns from ${from};`, `export * from ${from};`];
  if (hasDefault && !file.exportNames.includes("default")) lines.push(`export { default } from ${from};`);
  file.exportNames.forEach((name, i) => {
    lines.push(
      `function __blackbox_${i}(...args) { return ${registry}.call(${file.id}, ${i}, __blackbox_ns, this, args, __blackbox_${i}); }`,
    );
    lines.push(`export { __blackbox_${i} as ${JSON.stringify(name)} };`);
  });
  const exported = file.exportNames.map((_, i) => `__blackbox_${i}`).join(", ");
  // an export that is a tool runner's tool object (wrapped in place: src/tools/runnerTools.ts) is exported as itself
  lines.push(`const __blackbox_tools = ${registry}.loaded(${file.id}, __blackbox_ns, [${exported}]);`);
  file.exportNames.forEach((_, i) =>
    lines.push(`if (__blackbox_tools[${i}] !== undefined) __blackbox_${i} = __blackbox_tools[${i}];`),
  );
  return `${lines.join("\n")}\n`;
}

/**
 * The wrapper for a tool file whose source is `source`, served at `href`; undefined when the
 * source is not an ES module (Node then loads it as CommonJS, where require() hooks take it)
 * or does not parse (Node reports that, as it would without us).
 */
export function wrapToolModule(
  lex: Lex,
  source: string,
  href: string,
  file: WrappedFile,
  unreadable?: (href: string, err: unknown) => void,
): string | undefined {
  if (file.append !== undefined) return source + file.append;
  let exports: ReturnType<Lex>[1];
  let hasModuleSyntax: boolean;
  try {
    [, exports, , hasModuleSyntax] = lex(source);
  } catch (err) {
    unreadable?.(href, err);
    return undefined;
  }
  if (!hasModuleSyntax) return undefined;
  const hasDefault = exports.some((e) => e.type !== "reexport-all" && e.name === "default" && !e.typeOnly);
  return wrapperSource(originalUrl(href), file, hasDefault);
}

/** What a module `load` hook returns (either thread, either hooks API). */
export interface LoadResult {
  format?: string | null;
  source?: unknown;
  shortCircuit?: boolean;
  [key: string]: unknown;
}

function text(source: unknown): string | undefined {
  if (typeof source === "string") return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source))
    return new TextDecoder().decode(source as ArrayBufferView);
  return undefined;
}

/**
 * A `load` hook's result for `href` with the wrapper in place of a configured ESM file
 * (found in `files` by its URL without query or hash); any other result as it was.
 * `unreadable`: told of a module the lexer cannot read (say, JSX a loader below has not
 * compiled), whose tools then go unrecorded.
 */
export function wrapLoaded(
  files: ReadonlyMap<string, WrappedFile>,
  lex: Lex,
  href: string,
  result: LoadResult,
  unreadable?: (href: string, err: unknown) => void,
): LoadResult {
  if (isOriginal(href)) return result;
  const file = files.get(href.replace(/[?#].*$/s, ""));
  if (!file || (result.format !== "module" && result.format !== "module-typescript")) return result;
  const source = text(result.source);
  const wrapped = source === undefined ? undefined : wrapToolModule(lex, source, href, file, unreadable);
  return wrapped === undefined ? result : { ...result, format: "module", source: wrapped };
}
