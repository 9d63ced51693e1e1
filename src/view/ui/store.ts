/**
 * The page's data: the view data (parsed once, it is small) and each run's payloads, one
 * JSON text a line in a script element of their own, read when first needed and parsed a
 * step at a time (a small cache keeps the steps just shown). Search scans the lines'
 * text, not parsed values, so a 100 MB run is searched without parsing it.
 */
import { DATA_ELEMENT_ID, payloadElementId, type ViewData } from "../model.js";

export function readViewData(): ViewData {
  const el = document.getElementById(DATA_ELEMENT_ID);
  if (!el) throw new Error("this page holds no Blackbox view data");
  return JSON.parse(el.textContent ?? "") as ViewData;
}

/** The payload lines of the runs are after the script that runs the page: ready once the page is parsed. */
export function payloadsReady(): boolean {
  return document.readyState !== "loading";
}

const CACHE_STEPS = 64;

export class RunPayloads {
  private text: string | null = null;
  private lower: string | null = null;
  private starts: number[] = [];
  private cache = new Map<number, unknown>();

  constructor(
    readonly key: number,
    readonly count: number,
  ) {}

  private load(): string {
    if (this.text !== null) return this.text;
    const el = document.getElementById(payloadElementId(this.key));
    if (!el) throw new Error(`the page holds no payloads for run ${this.key} (the file is cut short?)`);
    const text = el.textContent ?? "";
    const starts = [0];
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
    if (starts.length !== this.count)
      throw new Error(`run ${this.key} has ${this.count} steps but ${starts.length} payloads (the file was edited?)`);
    this.text = text;
    this.starts = starts;
    return text;
  }

  /** The step's payload as the JSON text it was recorded as (`<` written as \u003c). */
  raw(i: number): string {
    const text = this.load();
    const end = i + 1 < this.starts.length ? this.starts[i + 1]! - 1 : text.length;
    return text.slice(this.starts[i], end);
  }

  payload(i: number): unknown {
    if (this.cache.has(i)) {
      const v = this.cache.get(i);
      this.cache.delete(i); // most recent last
      this.cache.set(i, v);
      return v;
    }
    const v: unknown = JSON.parse(this.raw(i));
    this.cache.set(i, v);
    if (this.cache.size > CACHE_STEPS) this.cache.delete(this.cache.keys().next().value!);
    return v;
  }

  /** The step holding text position `pos`. */
  private stepAt(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Steps whose payload holds `query` (case-insensitive) in a value: a string, a number, a
   * message's text, a tool input or result; object keys alone do not count. At most
   * `limit` steps, each with the text around its first match.
   */
  search(query: string, limit: number): SearchHit[] {
    const text = this.load();
    if (this.lower === null) this.lower = text.toLowerCase();
    const needle = jsonEscape(query).toLowerCase();
    if (needle === "") return [];
    // lower-casing changed some lengths (a few letters, like İ, grow): search step by step
    if (this.lower.length !== text.length) return this.searchByStep(needle, limit);
    const stepEnd = (i: number): number => (i + 1 < this.starts.length ? this.starts[i + 1]! : text.length);
    return scan(this.lower, text, needle, limit, (pos) => this.stepAt(pos), stepEnd, this.key);
  }

  private searchByStep(needle: string, limit: number): SearchHit[] {
    const hits: SearchHit[] = [];
    for (let i = 0; i < this.count && hits.length < limit; i++) {
      const raw = this.raw(i);
      const found = scan(
        raw.toLowerCase(),
        raw,
        needle,
        1,
        () => i,
        () => raw.length,
        this.key,
      );
      if (found.length > 0) hits.push(found[0]!);
    }
    return hits;
  }
}

export interface SearchHit {
  run: number;
  step: number;
  /** Text around the first match in the step, and where the match is in it. */
  before: string;
  match: string;
  after: string;
}

/** The query as it is written inside a JSON string here. */
function jsonEscape(query: string): string {
  return JSON.stringify(query).slice(1, -1).replace(/</g, "\\u003c");
}

/** Whether the string around `end` is an object key: its closing quote is followed by a colon. */
function inKey(text: string, end: number): boolean {
  for (let i = end; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) return false;
    if (c === 0x22 /* " */) {
      let slashes = 0;
      for (let j = i - 1; text.charCodeAt(j) === 0x5c; j--) slashes++;
      if (slashes % 2 === 1) continue;
      return text.charCodeAt(i + 1) === 0x3a; /* : */
    }
  }
  return false;
}

/** JSON text shown as the reader knows it: escapes read back, roughly (a snippet, not a value). */
function unescapeSnippet(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, e: string) => {
    if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    return e === "n" ? "\u21b5" : e === "t" ? " " : e === "r" ? "" : e;
  });
}

function scan(
  lower: string,
  text: string,
  needle: string,
  limit: number,
  stepAt: (pos: number) => number,
  stepEnd: (step: number) => number,
  run: number,
): SearchHit[] {
  const hits: SearchHit[] = [];
  let next = 0;
  for (let at = lower.indexOf(needle); at !== -1 && hits.length < limit; at = lower.indexOf(needle, next)) {
    next = at + 1;
    if (inKey(lower, at + needle.length)) continue;
    const step = stepAt(at);
    next = stepEnd(step); // one hit a step: go on from the next one
    const from = Math.max(0, at - 40);
    const to = Math.min(text.length, at + needle.length + 80);
    const cut = (s: string): string => s.split("\n")[0] ?? "";
    const beforeRaw = text.slice(from, at);
    const before = beforeRaw.includes("\n") ? beforeRaw.slice(beforeRaw.lastIndexOf("\n") + 1) : beforeRaw;
    hits.push({
      run,
      step,
      before: (from > 0 && !beforeRaw.includes("\n") ? "\u2026" : "") + unescapeSnippet(before),
      match: unescapeSnippet(text.slice(at, at + needle.length)),
      after: unescapeSnippet(cut(text.slice(at + needle.length, to))),
    });
  }
  return hits;
}
