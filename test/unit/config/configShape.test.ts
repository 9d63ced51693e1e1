/**
 * The config fast check (src/config/shape.ts) may be stricter than the zod schema,
 * never looser: whatever it accepts, zod accepts unchanged.
 */
import fc from "fast-check";
import { expect, test } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { isPlainConfig } from "../../../src/config/shape.js";

const name = fc.oneof(fc.constantFrom("", "get_weather", "./tools.mjs", "x"), fc.string({ maxLength: 4 }));
const junk = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.constant([]), fc.constant({}), name);
const anyOf = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, junk);
const entry = fc.oneof(
  fc.record({ module: anyOf(name), exports: anyOf(fc.array(anyOf(name), { maxLength: 3 })) }, { requiredKeys: [] }),
  fc.record({ module: anyOf(name), export: anyOf(name), name: anyOf(name) }, { requiredKeys: [] }),
  fc.record(
    { module: anyOf(name), exports: anyOf(fc.array(name)), export: anyOf(name), extra: junk },
    { requiredKeys: [] },
  ),
);
const config = fc.oneof(
  fc.record({ tools: anyOf(fc.array(anyOf(entry), { maxLength: 3 })) }, { requiredKeys: [] }),
  fc.record({
    tools: fc.array(entry, { maxLength: 2 }),
    providers: fc.record({ anthropic: fc.array(fc.webUrl(), { maxLength: 1 }) }),
  }),
  fc.record({ tools: fc.array(entry, { maxLength: 2 }), other: junk }),
  junk,
);

test("what the fast check accepts, zod accepts with the same data", () => {
  let accepted = 0;
  fc.assert(
    fc.property(config, (raw) => {
      if (!isPlainConfig(raw)) return;
      accepted++;
      const parsed = configSchema.safeParse(raw);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(raw);
    }),
    { numRuns: 3000 },
  );
  expect(accepted).toBeGreaterThan(50); // the generator reaches the accepting side
});

test("the usual configs pass the fast check; providers, unknown keys and bad entries go to zod", () => {
  expect(isPlainConfig({ tools: [{ module: "./tools.mjs", exports: ["get_weather", "book_hotel"] }] })).toBe(true);
  expect(isPlainConfig({ tools: [{ module: "./t.js", export: "run", name: "runner" }] })).toBe(true);
  expect(isPlainConfig({})).toBe(true);
  expect(isPlainConfig({ providers: { anthropic: ["http://localhost:1"] } })).toBe(false);
  expect(isPlainConfig({ tools: [], toolz: [] })).toBe(false);
  expect(isPlainConfig({ tools: [{ module: "./t.js", exports: [] }] })).toBe(false);
  expect(isPlainConfig({ tools: [{ module: "./t.js", export: "run", name: undefined }] })).toBe(false);
  expect(isPlainConfig([{ module: "./t.js", exports: ["a"] }])).toBe(false);
});
