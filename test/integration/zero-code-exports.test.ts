/**
 * The config check reads a tool module's exports from its source without running it
 * (running it would load it before the hooks see it). A name that is not found is only
 * proof of absence when the scan is complete.
 */
import { expect, test } from "vitest";
import { scanExports } from "../../src/config/staticExports.js";

const names = (source: string) => [...scanExports(source).names].sort();

test("ESM and TypeScript declarations, lists and renames", () => {
  const ts = `import type { Foo } from "./x";
// export function commented() {}
/* export const hidden = 1 */
enum Color { Red }
export interface Args<T extends string = "a"> { city: T }
export async function get_weather(args: Args): Promise<{ temp: number }> { return { temp: 21 } }
export function* gen() {}
export const book_hotel = async ({ city }: { city: string }): Promise<string> => \`booked \${city}\`;
export class Planner {}
const a = 1, b = 2; export { a as alpha, b };
export default function () {}`;
  expect(names(ts)).toEqual(["Planner", "alpha", "b", "book_hotel", "default", "gen", "get_weather"]);
  expect(scanExports(ts).complete).toBe(true);
});

test("CommonJS: exports.x, module.exports.x and an object literal", () => {
  expect(names("exports.a = 1; module.exports.b = function () {}; exports['c-d'] = 2;")).toEqual(["a", "b", "c-d"]);
  const literal = "module.exports = { get_weather, book_hotel: async (x) => { return { a: 1, b: 2 } }, other() {} };";
  expect(names(literal)).toEqual(["book_hotel", "get_weather", "other"]);
  expect(scanExports(literal).complete).toBe(true);
});

test("what cannot be read statically makes the scan incomplete, so the hook checks instead", () => {
  expect(scanExports('export * from "./more"; export function z() {}').complete).toBe(false);
  expect(scanExports('module.exports = require("./impl");').complete).toBe(false);
  expect(scanExports("module.exports = { ...base, extra };").complete).toBe(false);
  expect(scanExports("export const { a, b } = make();").complete).toBe(false);
});
