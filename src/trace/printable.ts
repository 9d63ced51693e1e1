/**
 * Cassette text made safe to print on a terminal. A cassette is data anyone may send
 * you: a tool name or answer holding escape sequences would clear the screen or set the
 * window title under `blackbox show`, a newline would forge a line, a bidi override
 * would reorder what you read. Control characters (C0, DEL, C1), bidi controls and line
 * separators are shown as escapes (`\n`, `\u001b`) instead.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A message made of lines (a load error listing its problems) made safe to print: each line
 * through printable, the line breaks kept.
 */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}

/**
 * A value from a cassette as a message quotes it: its JSON, printable, and at most `width`
 * characters (a 1 MB string is not repeated whole in a message). The JSON of a string stays
 * a valid JSON string literal of it (printable writes JSON escapes).
 */
export function quoted(value: unknown, width = 60): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value); // a cycle or a BigInt, handed in memory
  }
  // escaping makes text no shorter: what is past width * 6 could never be shown
  return clip(printable(text.length > width * 6 ? text.slice(0, width * 6) : text), width);
}

/** `text` cut to at most `width` UTF-16 units with "..." at the end, never inside a surrogate pair. */
export function clip(text: string, width: number): string {
  if (text.length <= width) return text;
  let end = width - 3;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate: its pair would be cut off
  return `${text.slice(0, end)}...`;
}

/**
 * Code point ranges a terminal draws two columns wide: East Asian wide and fullwidth, emoji (generously: too
 * wide cuts a little early, too narrow wraps).
 */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x23e9, 0x23f3],
  [0x2600, 0x27bf],
  [0x2b00, 0x2bff],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f000, 0x1faff],
  [0x20000, 0x3fffd],
];

/** Columns one code point takes: 0 for combining marks and zero-width joiners, 2 for wide ones, else 1. */
function charColumns(cp: number): number {
  if (
    (cp >= 0x0300 && cp <= 0x036f) ||
    (cp >= 0x200b && cp <= 0x200d) ||
    (cp >= 0xfe20 && cp <= 0xfe2f) ||
    (cp >= 0x20d0 && cp <= 0x20ff)
  )
    return 0;
  for (const [lo, hi] of WIDE) if (cp >= lo && cp <= hi) return 2;
  return 1;
}

/** The columns `text` takes on a terminal (CJK and emoji take two). */
export function columnsOf(text: string): number {
  let n = 0;
  for (const ch of text) n += charColumns(ch.codePointAt(0)!);
  return n;
}

/** `text` cut to at most `columns` terminal columns with "..." at the end, between characters. */
export function clipColumns(text: string, columns: number): string {
  if (columnsOf(text) <= columns) return text;
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const w = charColumns(ch.codePointAt(0)!);
    if (used + w > columns - 3) break;
    used += w;
    end += ch.length;
  }
  return `${text.slice(0, end)}...`;
}
