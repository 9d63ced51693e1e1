/**
 * More ways a cassette someone sent you can be broken, on top of hostile.ts's: two values'
 * types swapped, a null put into a list, a list made huge, a value nested deep, and strings
 * holding what a terminal acts on (escape sequences, C1 controls, bidi overrides, line
 * separators), re-hashed or not, so that a valid cassette carries them to show, diff,
 * replay, fork and view.
 */
import fc from "fast-check";
import { applyMutation, mutation, parentOf, pathsOf, rehashed, render, type Mutation, type Path } from "./hostile.js";

/** Strings a terminal would act on, or that reorder or break the line it shows. */
export const TERMINAL_HOSTILE = [
  "\u202egnp.exe\u202c",
  "\u001b[2J\u001b]0;pwned\u0007",
  "line\u2028forged\u2029",
  "\u0085\u009b31m",
  "\u2066iso\u2069\u200e\u200f",
  "a\r\nb\tc\u0000\u007f",
];

export type MoreMutation =
  | { kind: "swap"; a: number; b: number; rehash: boolean }
  | { kind: "nullInList"; pick: number; at: number; rehash: boolean }
  | { kind: "hugeList"; pick: number; n: number; item: unknown }
  | { kind: "deep"; pick: number; depth: number }
  | { kind: "control"; pick: number; text: string; rehash: boolean };

const pick = fc.nat({ max: 10_000 });
const more: fc.Arbitrary<MoreMutation> = fc.oneof(
  fc.record({ kind: fc.constant("swap" as const), a: pick, b: pick, rehash: fc.boolean() }),
  fc.record({ kind: fc.constant("nullInList" as const), pick, at: pick, rehash: fc.boolean() }),
  fc.record({
    kind: fc.constant("hugeList" as const),
    pick,
    n: fc.constantFrom(1_000, 60_000, 100_001),
    item: fc.constantFrom<unknown>(0, null, "x", {}, []),
  }),
  fc.record({ kind: fc.constant("deep" as const), pick, depth: fc.constantFrom(255, 256, 257, 300, 5_000) }),
  fc.record({
    kind: fc.constant("control" as const),
    pick,
    text: fc.constantFrom(...TERMINAL_HOSTILE),
    rehash: fc.boolean(),
  }),
);

export type AnyMutation = Mutation | MoreMutation;
export const anyMutation: fc.Arbitrary<AnyMutation> = fc.oneof(mutation, more, more);

const valueAt = (root: unknown, p: Path): any => (p.length === 0 ? root : parentOf(root, p)[p.at(-1)!]);

/** The bytes of a broken cassette. */
export function applyAnyMutation(text: string, m: AnyMutation): Buffer {
  switch (m.kind) {
    case "swap":
    case "nullInList":
    case "hugeList":
    case "deep":
    case "control":
      break;
    default:
      return applyMutation(text, m);
  }
  const root = JSON.parse(text);
  const paths = pathsOf(root).filter((p) => p.length > 0);
  const of = (n: number, keep: (v: unknown) => boolean): Path | undefined => {
    const fit = paths.filter((p) => keep(valueAt(root, p)));
    return fit.length === 0 ? undefined : fit[n % fit.length];
  };
  let rehash = false;
  if (m.kind === "swap") {
    const a = paths[m.a % paths.length]!;
    const b = paths[m.b % paths.length]!;
    const [va, vb] = [valueAt(root, a), valueAt(root, b)];
    if (!a.join(".").startsWith(b.join(".")) && !b.join(".").startsWith(a.join("."))) {
      parentOf(root, a)[a.at(-1)!] = vb;
      parentOf(root, b)[b.at(-1)!] = va;
    }
    rehash = m.rehash;
  } else if (m.kind === "nullInList") {
    const p = of(m.pick, Array.isArray);
    if (p) {
      const list = valueAt(root, p) as unknown[];
      list.splice(m.at % (list.length + 1), 0, null);
    }
    rehash = m.rehash;
  } else if (m.kind === "hugeList") {
    const p = of(m.pick, Array.isArray) ?? ["steps"];
    parentOf(root, p)[p.at(-1)!] = new Array(m.n).fill(m.item);
  } else if (m.kind === "deep") {
    const p = paths[m.pick % paths.length]!;
    const text2 = render(root);
    const marker = "__deep_marker__";
    parentOf(root, p)[p.at(-1)!] = marker;
    return Buffer.from(render(root).replace(`"${marker}"`, `${"[".repeat(m.depth)}1${"]".repeat(m.depth)}`) || text2);
  } else {
    const p = of(m.pick, (v) => typeof v === "string");
    if (p) parentOf(root, p)[p.at(-1)!] = `${valueAt(root, p) as string}${m.text}`;
    rehash = m.rehash;
  }
  const out = render(root);
  return Buffer.from(rehash ? rehashed(out) : out);
}
