/**
 * The wrapper module served at a configured ESM tool file's URL (src/tools/esmWrapper.ts),
 * as source text: what a load hook's result becomes, and what it is left alone for.
 * The wrappers running in Node are tested in test/integration/zero-code-esm-tools.test.ts.
 */
import { init, parse } from "es-module-lexer";
import { beforeAll, describe, expect, test } from "vitest";
import { isOriginal, wrapLoaded, wrapToolModule, type Lex, type WrappedFile } from "../../../src/tools/esmWrapper.js";

const lex = parse as unknown as Lex;
beforeAll(() => init());

const URL_ = "file:///app/tools.mjs";
const file: WrappedFile = { id: 3, exportNames: ["get_weather", "odd name"] };
const files = new Map([[URL_, file]]);

describe("isOriginal", () => {
  test.each([
    ["file:///a.mjs?blackbox-tool-original", true],
    ["file:///a.mjs?v=2&blackbox-tool-original", true],
    ["file:///a.mjs?blackbox-tool-original&v=2", true],
    ["?blackbox-tool-original", true],
    ["file:///a.mjs", false],
    ["file:///a.mjs?blackbox-tool-originals", false],
    ["file:///a.mjs?x-blackbox-tool-original", false],
    ["file:///blackbox-tool-original.mjs", false],
  ])("%s: %s", (url, expected) => expect(isOriginal(url)).toBe(expected));
});

describe("wrapToolModule", () => {
  test("re-exports the file itself under the mark and wraps each configured export by registry id and index", () => {
    const out = wrapToolModule(lex, "export function get_weather() {}\nexport const other = 1;\n", URL_, file)!;
    const from = JSON.stringify(`${URL_}?blackbox-tool-original`);
    expect(out.split("\n")).toEqual([
      `import * as __blackbox_ns from ${from};`,
      `export * from ${from};`,
      'function __blackbox_0(...args) { return globalThis[Symbol.for("ardaulas.blackbox.esmTools.v1")].call(3, 0, __blackbox_ns, this, args, __blackbox_0); }',
      'export { __blackbox_0 as "get_weather" };',
      'function __blackbox_1(...args) { return globalThis[Symbol.for("ardaulas.blackbox.esmTools.v1")].call(3, 1, __blackbox_ns, this, args, __blackbox_1); }',
      'export { __blackbox_1 as "odd name" };',
      'const __blackbox_tools = globalThis[Symbol.for("ardaulas.blackbox.esmTools.v1")].loaded(3, __blackbox_ns, [__blackbox_0, __blackbox_1]);',
      // an export that is a tool runner's tool object is exported as itself (its function wrapped in place)
      "if (__blackbox_tools[0] !== undefined) __blackbox_0 = __blackbox_tools[0];",
      "if (__blackbox_tools[1] !== undefined) __blackbox_1 = __blackbox_tools[1];",
      "",
    ]);
  });

  test("keeps the file's query and hash in the original's URL", () => {
    const out = wrapToolModule(lex, "export const a = 1;", "file:///app/tools.mjs?v=2#h", file)!;
    expect(out).toContain('from "file:///app/tools.mjs?v=2&blackbox-tool-original#h";');
  });

  test.each([
    ["export default function () {}", true],
    ["const x = 1; export { x as default };", true],
    ['export { default } from "./other.mjs";', true],
    ['export { a as default } from "./other.mjs";', true],
    ['export * from "./other.mjs";', false], // `export *` never re-exports a default
    ["export const notDefault = 1; // export default", false],
    ["export type { T as default } from './t';", false], // TypeScript: a type, not a value
  ])("re-exports the default when the file has one: %s", (source, hasDefault) => {
    const out = wrapToolModule(lex, source, URL_, { id: 0, exportNames: ["x"] })!;
    expect(out.includes("export { default } from")).toBe(hasDefault);
  });

  test("a configured default is the wrapped function, not re-exported", () => {
    const out = wrapToolModule(lex, "export default function lookup() {}", URL_, { id: 0, exportNames: ["default"] })!;
    expect(out).not.toContain("export { default } from");
    expect(out).toContain('export { __blackbox_0 as "default" };');
  });

  test.each([
    ["CommonJS (no module syntax)", "exports.get_weather = () => 1;"],
    ["not JavaScript at all", "export function (("],
  ])("nothing for %s: Node loads it as it would", (_what, source) => {
    expect(wrapToolModule(lex, source, URL_, file)).toBeUndefined();
  });
});

describe("wrapLoaded", () => {
  const module = (source: unknown, format = "module") => ({ format, source, shortCircuit: false });

  test("a configured ES module's source, as a string or bytes, becomes the wrapper; other fields stay", () => {
    for (const source of [
      "export function get_weather() {}",
      new TextEncoder().encode("export function get_weather() {}"),
    ]) {
      const out = wrapLoaded(files, lex, URL_, module(source));
      expect(out.format).toBe("module");
      expect(out.shortCircuit).toBe(false);
      expect(String(out.source)).toContain('export { __blackbox_0 as "get_weather" };');
    }
  });

  test("found by its URL whatever the query (a cache-busting import), but never the original behind the wrapper", () => {
    expect(String(wrapLoaded(files, lex, `${URL_}?t=1`, module("export const a = 1;")).source)).toContain(
      "__blackbox_0",
    );
    const original = module("export const a = 1;");
    expect(wrapLoaded(files, lex, `${URL_}?blackbox-tool-original`, original)).toBe(original);
  });

  test("left as it is: other files, CommonJS, JSON, a source that is not text", () => {
    const cases = [
      ["file:///app/other.mjs", module("export const a = 1;")],
      [URL_, module(null, "commonjs")],
      [URL_, module('{"a":1}', "json")],
      [URL_, module(undefined)],
    ] as const;
    for (const [url, result] of cases) expect(wrapLoaded(files, lex, url, result)).toBe(result);
  });

  test("a TypeScript module (Node's type stripping) is served as plain JavaScript", () => {
    const out = wrapLoaded(
      files,
      lex,
      URL_,
      module("export function get_weather(city: string): number { return 1; }", "module-typescript"),
    );
    expect(out.format).toBe("module");
    expect(String(out.source)).toContain("__blackbox_ns");
  });
});
