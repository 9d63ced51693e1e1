/**
 * The text of a cassette: indented down to each step's payload fields, one element a line
 * in a payload's lists (each message, each tool, each call), and anything deeper written
 * compactly on that line. A long run's model_inputs repeat their history, so JSON.stringify's
 * indentation of every level was over half of the file (16.1 MB for a 200-turn loop, 7.2 MB
 * of it JSON): this writes 7.6 MB, loads faster, and a diff of two recordings still shows
 * each changed message as its own line. The value is JSON.stringify's, value for value
 * (whitespace is all that differs; hashes cover canonical JSON, so they do not change).
 */

/** Levels indented: the root (0), steps (1), a step (2), its payload (3), the payload's fields (4). */
const INDENTED = 5;

/** JSON.stringify(value), with `INDENTED` levels indented by two spaces, and a trailing newline. */
export function cassetteText(value: unknown): string {
  return `${write(value, 0, "") ?? "null"}\n`;
}

/** new Number(1) and the like, which JSON.stringify writes as the value they box. */
const BOXED = new Set(["[object Number]", "[object String]", "[object Boolean]", "[object BigInt]"]);

function write(value: unknown, level: number, indent: string): string | undefined {
  if (
    level >= INDENTED ||
    value === null ||
    typeof value !== "object" ||
    typeof (value as { toJSON?: unknown }).toJSON === "function" ||
    BOXED.has(Object.prototype.toString.call(value))
  )
    return JSON.stringify(value); // whatever JSON.stringify does with it (undefined for a function or symbol)
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items: string[] = [];
    for (let i = 0; i < value.length; i++) items.push(`${inner}${write(value[i], level + 1, inner) ?? "null"}`);
    return `[\n${items.join(",\n")}\n${indent}]`;
  }
  const members: string[] = [];
  for (const key of Object.keys(value)) {
    const text = write((value as Record<string, unknown>)[key], level + 1, inner);
    if (text !== undefined) members.push(`${inner}${JSON.stringify(key)}: ${text}`);
  }
  return members.length === 0 ? "{}" : `{\n${members.join(",\n")}\n${indent}}`;
}
