/**
 * Values a message quotes from a cassette are safe to print: control characters (C0, DEL,
 * C1), bidi overrides and isolates, and line separators are escaped by the one function
 * that does it (src/trace/printable.ts), and a long value is clipped. Checked on the
 * function, on the messages load and verify build, and on the source (no second copy).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TraceLoadError } from "../../../src/errors.js";
import { stepHash } from "../../../src/trace/canonical.js";
import { parseTrace } from "../../../src/trace/parse.js";
import { printable, printableLines, quoted } from "../../../src/trace/printable.js";
import type { Trace } from "../../../src/trace/types.js";
import { verifyTrace } from "../../../src/trace/verify.js";

/** Every character a terminal may act on or reorder by. */
export const UNSAFE_CHARS =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = "a\u202egnp.exe\u202c\u0085\u001b]0;title\u0007\u2028\u2066x\u2069\u009b2J\u200f\r\t\n";

const text = readFileSync(new URL("../../fixtures/basic.json", import.meta.url), "utf8");
const base = (): Trace => JSON.parse(text) as Trace;
const rehash = (t: Trace): Trace => {
  let prev: string | null = null;
  for (const s of t.steps) {
    s.prevHash = prev;
    s.hash = stepHash(s);
    prev = s.hash;
  }
  return t;
};
function loadError(src: string): string {
  try {
    parseTrace(src, "x.json");
  } catch (error) {
    expect(error).toBeInstanceOf(TraceLoadError);
    return (error as Error).message;
  }
  throw new Error("parseTrace accepted it");
}

describe("printable, quoted, printableLines", () => {
  it("escape C0, DEL, C1, bidi controls and line separators, and nothing else", () => {
    expect(printable(HOSTILE)).toBe(
      "a\\u202egnp.exe\\u202c\\u0085\\u001b]0;title\\u0007\\u2028\\u2066x\\u2069\\u009b2J\\u200f\\r\\t\\n",
    );
    expect(printable(HOSTILE)).not.toMatch(UNSAFE_CHARS);
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      if (UNSAFE_CHARS.test(ch) || ch === "\n") expect(printable(ch), `U+${c.toString(16)}`).not.toBe(ch);
    }
    expect(printable("é 日本 🌧️ Ünïcödé")).toBe("é 日本 🌧️ Ünïcödé");
  });

  it("quoted: the value's JSON, printable (still a JSON literal of it), clipped to a width", () => {
    expect(JSON.parse(quoted(HOSTILE, 1000))).toBe(HOSTILE);
    expect(quoted("x".repeat(1_000_000))).toHaveLength(60);
    expect(quoted("\u202e".repeat(1_000_000), 80)).toMatch(/^"(\\u202e)+[\\u0-9a-f]*\.\.\.$/);
    expect(quoted({ a: [1, null] })).toBe('{"a":[1,null]}');
    expect(quoted(undefined)).toBe("undefined");
    expect(quoted(10n)).toBe("[object BigInt]");
  });

  it("printableLines keeps a message's line breaks and escapes the rest", () => {
    expect(printableLines("one \u202e\ntwo\u2028three")).toBe("one \\u202e\ntwo\\u2028three");
  });

  it("no other file in src/ keeps a copy of the list of characters to escape", () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.tsx?$/.test(n)) files.push(p);
      }
    };
    walk("src");
    // the bidi range as a character class is the mark of a copy (an HTML escaper may name U+2028 alone)
    const copies = files.filter((f) => /\\u202a-\\u202e/.test(readFileSync(f, "utf8")));
    expect(copies).toEqual([join("src", "trace", "printable.ts")]);
  });
});

describe("the messages of load and verify quote cassette values escaped", () => {
  it("a bidi override in a field the schema refuses (the role)", () => {
    const t = base();
    (t.steps[0]!.payload as { messages: Array<{ role: string }> }).messages[0]!.role = "user\u202egnp.exe\u202c\u0085";
    const message = loadError(JSON.stringify(t));
    expect(message).toContain('got "user\\u202egnp.exe\\u202c\\u0085"');
    expect(message.replace(/\n/g, "")).not.toMatch(UNSAFE_CHARS);
    const v = verifyTrace(t);
    expect(v.problems.map((p) => p.message).join("")).not.toMatch(UNSAFE_CHARS);
  });

  it("a key and a version holding control characters: paths and messages are escaped", () => {
    const t = base() as unknown as Record<string, unknown> & Trace;
    (t.steps[1]!.payload as Record<string, unknown>)[HOSTILE] = 1;
    (t as Record<string, unknown>).version = HOSTILE;
    const v = verifyTrace(t);
    expect(v.problems.length).toBeGreaterThan(0);
    for (const p of v.problems) {
      expect(p.path).not.toMatch(UNSAFE_CHARS);
      expect(p.message).not.toMatch(UNSAFE_CHARS);
    }
    expect(loadError(JSON.stringify(t))).toMatch(/^cassette x\.json has unsupported version "a\\u202egnp/);
  });

  it("a 1-million-character prevHash is clipped in the message, not repeated whole", () => {
    const t = base();
    t.steps[3]!.prevHash = "\u00e9".repeat(1_000_000);
    const v = verifyTrace(t);
    const longest = Math.max(...v.problems.map((p) => p.message.length));
    expect(longest).toBeLessThan(400);
  });

  it("a toolCallId with a bidi override in the step structure's messages", () => {
    const t = base();
    (t.steps[3]!.payload as { toolCallId: string }).toolCallId = "call-0\u202e\u2028";
    const v = verifyTrace(rehash(t));
    expect(v.ok).toBe(false);
    expect(v.problems.some((p) => p.message.includes("call-0\\u202e\\u2028"))).toBe(true);
    for (const p of v.problems) expect(p.message).not.toMatch(UNSAFE_CHARS);
  });

  it("a character JSON cannot start with, named escaped in the syntax error", () => {
    expect(loadError("\u2028{}")).toBe(
      'cassette x.json is not valid JSON (line 1, column 1: unexpected character "\\u2028"). Restore the file from version control or re-record the run.',
    );
  });
});
