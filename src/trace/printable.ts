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

/** `text` cut to at most `width` UTF-16 units with "..." at the end, never inside a surrogate pair. */
export function clip(text: string, width: number): string {
  if (text.length <= width) return text;
  let end = width - 3;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate: its pair would be cut off
  return `${text.slice(0, end)}...`;
}
