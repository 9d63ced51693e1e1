/**
 * Hostile cassettes for the fuzz tests: fast-check arbitraries that take a real
 * cassette and break it the ways files get broken (truncated, a wrong type at any
 * field, deep nesting, huge strings, __proto__/constructor keys, duplicate keys,
 * invalid UTF-8, numbers that do not round-trip, a chain re-hashed around a forged id).
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { stepHash } from "../../src/trace/canonical.js";

export const FIXTURES = ["basic", "parallel", "fork-child", "failed-calls-in-flight", "failed-agent-error"].map(
  (n) => ({
    name: n,
    text: readFileSync(`test/fixtures/${n}.json`, "utf8"),
  }),
);

/** A piece of JSON text placed as-is (for what JSON.stringify cannot write). */
class Raw {
  constructor(readonly text: string) {}
}

export type Path = Array<string | number>;

export function render(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(render).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const entries = (v as { [DUP]?: Array<[string, unknown]> })[DUP] ?? [];
    const all = [...entries, ...Object.entries(v)].map(([k, x]) => `${JSON.stringify(k)}:${render(x)}`);
    return `{${all.join(",")}}`;
  }
  return JSON.stringify(v);
}
const DUP = Symbol("extra entries written before the object's own");

export function pathsOf(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

export function parentOf(root: unknown, path: Path): any {
  let cur: any = root;
  for (const k of path.slice(0, -1)) cur = cur[k];
  return cur;
}

const deep = (n: number) => new Raw("[".repeat(n) + '"x"' + "]".repeat(n));
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, "", "x", [], {}, "call-99", "model_output", 2, "2"),
  fc.constantFrom(
    new Raw("1e400"),
    new Raw("-1e400"),
    new Raw("1e-400"),
    new Raw("123456789012345678901234567890"),
    new Raw("-0"),
    new Raw("0.1000000000000000055511151231257827"),
  ),
  fc.integer({ min: 100, max: 20_000 }).map(deep),
  fc.integer({ min: 1_000, max: 2_000_000 }).map((n) => "h".repeat(n)),
  fc.constantFrom(
    new Raw('{"__proto__":{"polluted":"yes"}}'),
    new Raw('{"constructor":{"prototype":{"polluted":"yes"}}}'),
    new Raw('{"prototype":{"polluted":"yes"},"toString":"x","hasOwnProperty":1,"valueOf":[]}'),
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

export type Mutation =
  | { kind: "truncate"; at: number }
  | { kind: "set"; pick: number; value: unknown; rehash: boolean }
  | { kind: "delete"; pick: number; rehash: boolean }
  | { kind: "addKey"; pick: number; key: string; value: unknown; rehash: boolean }
  | { kind: "duplicate"; pick: number; value: unknown }
  | { kind: "badUtf8"; at: number; bytes: number[] }
  | { kind: "forgeId"; step: number; id: string };

const pick = fc.nat({ max: 10_000 });
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("truncate" as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x),
  }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant("set" as const), pick, value: wrongValue, rehash: fc.boolean() }),
  fc.record({ kind: fc.constant("delete" as const), pick, rehash: fc.boolean() }),
  fc.record({
    kind: fc.constant("addKey" as const),
    pick,
    key: fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "extra"),
    value: wrongValue,
    rehash: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("duplicate" as const), pick, value: wrongValue }),
  fc.record({
    kind: fc.constant("badUtf8" as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.constantFrom(
      [0xff],
      [0xc3],
      [0xe2, 0x82],
      [0xed, 0xa0, 0x80],
      [0xc0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xfe, 0xfe],
    ),
  }),
  fc.record({
    kind: fc.constant("forgeId" as const),
    step: pick,
    id: fc.constantFrom("other:1", "basic:0", "", "x:999", "__proto__"),
  }),
) as fc.Arbitrary<Mutation>;

/** Re-links the hash chain after an edit, as a careful forger would (when the text allows it). */
export function rehashed(text: string): string {
  try {
    const trace = JSON.parse(text);
    let prev: string | null = null;
    for (const s of trace.steps) {
      s.prevHash = prev;
      s.hash = stepHash(s);
      prev = s.hash;
    }
    return render(trace);
  } catch {
    return text; // too broken (or too deep) to re-hash: the edit stays visible
  }
}

/** The bytes of a broken cassette. */
export function applyMutation(text: string, m: Mutation): Buffer {
  if (m.kind === "truncate") return Buffer.from(text.slice(0, Math.floor(m.at * text.length)));
  if (m.kind === "badUtf8") {
    const buf = Buffer.from(text);
    const at = Math.floor(m.at * buf.length);
    return Buffer.concat([buf.subarray(0, at), Buffer.from(m.bytes), buf.subarray(at + m.bytes.length)]);
  }
  const root = JSON.parse(text);
  if (m.kind === "forgeId") {
    const step = root.steps[m.step % root.steps.length];
    step.id = m.id;
    return Buffer.from(rehashed(render(root)));
  }
  const paths = pathsOf(root).filter((p) => p.length > 0);
  const path = paths[m.pick % paths.length]!;
  const parent = parentOf(root, path);
  const key = path.at(-1)!;
  if (m.kind === "set") parent[key] = m.value;
  else if (m.kind === "delete") Array.isArray(parent) ? parent.splice(key as number, 1) : delete parent[key];
  else {
    const objects = pathsOf(root)
      .map((p) => (p.length ? parentOf(root, p)[p.at(-1)!] : root))
      .filter((v) => v !== null && typeof v === "object" && !Array.isArray(v));
    const target = objects[m.pick % objects.length];
    if (m.kind === "addKey")
      Object.defineProperty(target, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
    else {
      const k = Object.keys(target)[0] ?? "version";
      target[DUP] = [[k, m.value]]; // the first of two `k` keys: JSON.parse keeps the last
    }
  }
  const text2 = render(root);
  return Buffer.from("rehash" in m && m.rehash ? rehashed(text2) : text2);
}
