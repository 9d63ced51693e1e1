/**
 * The framework targets' pure parts (src/tools/frameworks/): the version check, and the line
 * appended to a framework file, run here as the ES module and the CommonJS module Node would
 * load: it hands the names over, rebinds a replaced function (and a CommonJS `exports` that
 * holds it), hands a name the file lacks as undefined, and does nothing with no registry.
 */
import { createContext, runInContext } from "node:vm";
import { describe, expect, test } from "vitest";
import { appendedSource, FRAMEWORKS_REGISTRY } from "../../../src/tools/frameworks/source.js";
import { inRange } from "../../../src/tools/frameworks/versions.js";

describe("inRange", () => {
  test.each([
    ["6.0.326", ">=6.0.0 <7.0.0", true],
    ["7.0.0", ">=6.0.0 <7.0.0", false],
    ["5.23.2", ">=6.0.0 <7.0.0", false],
    ["1.14.0-beta.1", ">=1.14.0 <2.0.0", true],
    ["0.20.0", ">=0.20.0 <0.21.0", true],
    ["0.21.0", ">=0.20.0 <0.21.0", false],
    ["not-a-version", ">=0.0.0", false],
  ])("%s in %s: %s", (version, range, expected) => {
    expect(inRange(version, range)).toBe(expected);
  });
});

/** Run `source` (a CommonJS body when `exports` is given) in a context with `registry` on globalThis. */
function run(source: string, registry?: unknown, exports?: Record<string, unknown>): Record<string, unknown> {
  const context = createContext({ exports, result: {} as Record<string, unknown> });
  if (registry)
    runInContext(
      `globalThis[Symbol.for(${JSON.stringify(FRAMEWORKS_REGISTRY)})] = reg;`,
      Object.assign(context, { reg: registry }),
    );
  runInContext(source, context);
  return context.result as Record<string, unknown>;
}

describe("appendedSource", () => {
  const file = { path: "dist/x.js", format: "cjs" as const, read: ["Klass", "missing"], replace: ["f"] };
  const module = `function f() { return "original"; } class Klass {} exports.f = f;`;

  test("hands the names over and rebinds the replaced function, in the module and in its exports", () => {
    const seen: unknown[] = [];
    const registry = Object.assign(
      (id: number, names: Record<string, unknown>) => {
        seen.push(id, Object.keys(names), typeof names.Klass, names.missing);
        return { f: () => "patched" };
      },
      { failed: () => {} },
    );
    const exports: Record<string, unknown> = {};
    const result = run(`${module}${appendedSource(3, file)}result.f = f();`, registry, exports);
    expect(seen).toEqual([3, ["Klass", "missing", "f"], "function", undefined]);
    expect(result.f).toBe("patched");
    expect((exports.f as () => string)()).toBe("original"); // rebindExports (install.ts) puts it there, not the line
  });

  test("with no registry, the module is as it was", () => {
    const result = run(`${module}${appendedSource(0, file)}result.f = f();`, undefined, {});
    expect(result.f).toBe("original");
  });

  test("an ES module's line reads no `exports`, and a binding that cannot be rebound is told to the registry", () => {
    const failed: unknown[] = [];
    const registry = Object.assign(() => ({ f: () => "patched" }), {
      failed: (id: number, name: string) => failed.push(id, name),
    });
    const esm = { path: "dist/x.mjs", format: "esm" as const, replace: ["f"] };
    expect(appendedSource(1, esm)).not.toContain("exports");
    run(`"use strict"; const f = () => "const"; ${appendedSource(1, esm)}`, registry);
    expect(failed).toEqual([1, "f"]);
  });
});
