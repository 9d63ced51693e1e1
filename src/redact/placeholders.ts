/**
 * Stable placeholders: each distinct value of a kind becomes `<KIND_n>`, numbered in the order
 * the run first wrote it, the same value the same placeholder everywhere. A replay numbers the
 * values the agent sends the same way, because it sees them in the same order and counts the
 * placeholders of the steps it serves (observe). Pure.
 */

/** A placeholder anywhere in a text. */
export const PLACEHOLDER = /<([A-Z][A-Z0-9_]*)_(\d+)>/g;

/** `value` is one placeholder, whole. */
export const isPlaceholder = (value: string): boolean => /^<[A-Z][A-Z0-9_]*_\d+>$/.test(value);

export class Placeholders {
  private readonly byValue = new Map<string, string>();
  private readonly next = new Map<string, number>();
  private readonly used = new Map<string, Set<string>>();

  /** The placeholder of `value` (of `kind` when it is new). */
  of(kind: string, value: string): string {
    const known = this.byValue.get(value);
    if (known) return known;
    const n = (this.next.get(kind) ?? 0) + 1;
    this.next.set(kind, n);
    const placeholder = `<${kind}_${n}>`;
    this.byValue.set(value, placeholder);
    let set = this.used.get(kind);
    if (!set) this.used.set(kind, (set = new Set()));
    set.add(placeholder);
    return placeholder;
  }

  /** Placeholders a recorded text holds: the next value of their kind takes the number after them. */
  observe(text: string): void {
    for (const m of text.matchAll(PLACEHOLDER)) {
      const kind = m[1]!;
      const n = Number(m[2]);
      if (n > (this.next.get(kind) ?? 0)) this.next.set(kind, n);
    }
  }

  /** How many distinct values of each kind were replaced in this run. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [kind, set] of this.used) out[kind] = set.size;
    return out;
  }
}

/** Applies `replace` to the parts of `text` outside placeholders, so no rule rewrites one. */
export function outsidePlaceholders(text: string, replace: (part: string) => string): string {
  if (!text.includes("<")) return replace(text);
  let out = "";
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    out += replace(text.slice(last, m.index)) + m[0];
    last = m.index! + m[0].length;
  }
  return out + replace(text.slice(last));
}
