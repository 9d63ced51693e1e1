/**
 * Cassette bytes, chunk by chunk -> the root's own bytes and each step's bytes, so that a
 * cassette can be parsed one step at a time (src/store/stepwise.ts): the steps already
 * read are shared with the history before them (src/trace/share.ts) while the next is
 * parsed, and the whole text is never held. What prescanJson finds (nesting deeper than
 * the depth limit, more steps than the step limit) ends the split with no answer, and so
 * does anything the split cannot follow: the caller then loads the cassette whole, which
 * says what is wrong.
 *
 * Exact, not a guess: it tracks strings (quotes, backslashes), brackets and commas as
 * prescanJson does, and splits the root `steps` array at its commas. Whether each part is
 * JSON is left to JSON.parse: when the root's bytes with `[]` for the array, and every
 * part alone, parse, the whole text is that JSON value with those parts as the elements
 * (the grammar puts any JSON values, comma-separated, in an array), so what the caller
 * builds is what JSON.parse of the whole text returns. A part that does not parse, or a
 * text split wrongly because it is not JSON, is refused by JSON.parse. Pure.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** What a byte is outside strings: 0 for one that matters to nothing here (whitespace, numbers, `:`). */
const STRING = 1;
const OPEN = 2;
const CLOSE = 3;
const SEPARATOR = 4;
const bytesOf = (word: string): number[] => Array.from(word, (ch) => ch.charCodeAt(0));
const PAYLOAD = bytesOf("payload");
const MESSAGES = bytesOf("messages");
const KIND = new Uint8Array(256);
KIND[QUOTE] = STRING;
KIND[0x5b] = KIND[0x7b] = OPEN;
KIND[0x5d] = KIND[0x7d] = CLOSE;
KIND[COMMA] = SEPARATOR;

/** How many leading messages repeat() found, byte for byte, in which earlier step's bytes. */
export interface Repeated {
  of: Uint8Array | undefined;
  count: number;
}

export type SplitFault = "depth" | "steps" | "shape";

export class StepSplitter {
  /** The root's bytes: the file without the steps array's inside. */
  readonly root: Uint8Array[] = [];
  fault: SplitFault | undefined;
  private depth = 0;
  private inString = false;
  private escape = false;
  /** The last string at depth 1, 3 or 4 (a key that may be "steps", "payload", "messages"): up to 9 bytes. */
  private key: number[] = [];
  private keyOpen = false;
  /** Where payload.messages stands in the step being read (offsets into its bytes). */
  private partLength = 0;
  private inPayload = false;
  private payloadSeen = false;
  private inMessages = false;
  private messagesSeen = false;
  private noMessages = false;
  private messages: number[] = [];
  /** The last step with a payload.messages, for repeat(). */
  private last: { bytes: Uint8Array; messages: readonly number[] } | undefined;
  private repeated: Repeated = { of: undefined, count: 0 };
  private stepsDepth = 0; // the steps array is open (depth 2) when 2
  private stepsSeen = false;
  private part: Uint8Array[] = [];
  private commas = 0;

  constructor(
    private readonly maxDepth: number,
    private readonly maxSteps: number,
    /**
     * Called with each step's bytes (whitespace around it included), in order, and where its
     * payload.messages elements are: [start of the inside, then the end of each element (its
     * comma or the closing bracket)], when the step has exactly one such array, spelt plainly.
     */
    private readonly onStep: (bytes: Uint8Array, messages: readonly number[] | undefined, repeated: Repeated) => void,
  ) {}

  /**
   * Takes the next chunk; false once it has given up (fault says why). The chunk may be reused
   * once this returns: what is kept is copied (a step's bytes are handed on during the call).
   */
  push(buf: Uint8Array): boolean {
    if (this.fault) return false;
    const n = buf.length;
    let from = 0; // start of the bytes of the current destination in this chunk
    let i = 0;
    let depth = this.depth;
    while (i < n) {
      if (this.inString) {
        // the string's end: the next quote that no backslash escapes (a tight loop: most strings are short)
        if (this.escape) {
          this.escape = false;
          i++;
          continue;
        }
        const start = i;
        i = stringStop(buf, i, n);
        if (this.keyOpen) this.addKey(buf, start, i);
        if (i === n) break;
        if (buf[i] === BACKSLASH) {
          // a string at depth 1 with an escape: a key spelt so could be "steps" (JSON.parse keeps the last)
          if (depth === 1) return this.stop("shape");
          if (this.stepsDepth === 2 && (depth === 3 || depth === 4)) this.noMessages = true; // "payload", "messages"
          if (i + 1 === n) this.escape = true;
          i += 2;
          continue;
        }
        this.keyOpen = false;
        this.inString = false;
        i++;
        continue;
      }
      // outside strings: skip to the next byte that matters
      i = plainStop(buf, i, n);
      if (i === n) break;
      const c = buf[i]!;
      const kind = KIND[c];
      if (kind === STRING) {
        this.inString = true;
        if (depth === 1 || (this.stepsDepth === 2 && (depth === 3 || depth === 4))) {
          this.keyOpen = true;
          this.key.length = 0;
        }
      } else if (kind === OPEN) {
        if (depth >= this.maxDepth) return this.stop("depth");
        if (depth === 1 && c === 0x5b && this.isStepsKey()) {
          if (this.stepsSeen) return this.stop("shape"); // two steps arrays: the whole text decides
          this.stepsSeen = true;
          this.stepsDepth = 2;
          depth++;
          i++;
          this.root.push(copyOf(buf, from, i));
          from = i;
          continue;
        }
        if (this.stepsDepth === 2) {
          if (depth === 3 && c === 0x7b && this.keyIs(PAYLOAD)) {
            if (this.payloadSeen) this.noMessages = true;
            this.payloadSeen = this.inPayload = true;
          } else if (depth === 4 && c === 0x5b && this.inPayload && this.keyIs(MESSAGES)) {
            if (this.messagesSeen) this.noMessages = true;
            this.messagesSeen = this.inMessages = true;
            this.messages.length = 0;
            this.messages.push(this.partLength + (i + 1 - from));
            const skip = this.repeat(buf, i + 1, n, from);
            if (skip > 0) {
              depth++;
              i += 1 + skip;
              continue;
            }
          }
        }
        depth++;
      } else if (kind === CLOSE) {
        if (depth === 0) return this.stop("shape");
        if (depth === 2 && this.stepsDepth === 2) {
          this.part.push(buf.subarray(from, i));
          this.endPart(true);
          this.stepsDepth = 0;
          from = i;
        } else if (this.stepsDepth === 2) {
          if (depth === 5 && this.inMessages) {
            this.messages.push(this.partLength + (i - from));
            this.inMessages = false;
          } else if (depth === 4) this.inPayload = false;
        }
        depth--;
      } else if (depth === 2 && this.stepsDepth === 2) {
        // a comma between steps
        this.part.push(buf.subarray(from, i));
        this.endPart(false);
        if (++this.commas >= this.maxSteps) return this.stop("steps");
        from = i + 1;
      } else if (depth === 5 && this.inMessages) {
        this.messages.push(this.partLength + (i - from));
      }
      i++;
    }
    this.depth = depth;
    if (from < n) {
      if (this.stepsDepth === 2) {
        this.part.push(copyOf(buf, from, n)); // a copy: the caller may reuse the chunk
        this.partLength += n - from;
      } else this.root.push(copyOf(buf, from, n));
    }
    return !this.fault;
  }

  /** After the last chunk: whether the text ended where a JSON text can (no string or bracket open). */
  end(): boolean {
    if (!this.fault && (this.inString || this.depth !== 0)) this.fault = "shape";
    return !this.fault;
  }

  /** Whether the root's `steps` array was split (else the root's bytes hold the whole text). */
  get split(): boolean {
    return this.stepsSeen;
  }

  private stop(fault: SplitFault): false {
    this.fault = fault;
    return false;
  }

  /**
   * At the start of a payload.messages: when the bytes from `at` are, byte for byte, the last
   * step's messages up to the comma after its last but one, skips them (their element ends
   * recorded) and says how many bytes it skipped, else 0. Scanning them again would end in the
   * same state (they were scanned in it: inside a messages array, at an element's start), with
   * no limit passed; a tool loop's history is most of its cassette.
   */
  private repeat(buf: Uint8Array, at: number, n: number, from: number): number {
    const last = this.last;
    if (!last || last.messages.length < 3) return 0;
    const m = last.messages;
    const start = m[0]!;
    const end = m[m.length - 2]! + 1; // after the comma that ends the last but one element
    const length = end - start;
    if (at + length > n) return 0; // not all in this chunk: scanned as usual
    const a = buf.subarray(at, at + length);
    const b = last.bytes.subarray(start, end);
    for (let k = 0; k < 4 && k < length; k++) if (a[k] !== b[k]) return 0; // the usual miss, seen early
    if (Buffer.compare(a, b) !== 0) return 0;
    const shift = this.partLength + (at - from) - start;
    for (let k = 1; k < m.length - 1; k++) this.messages.push(m[k]! + shift);
    this.repeated = { of: last.bytes, count: m.length - 2 };
    return length;
  }

  private keyIs(word: readonly number[]): boolean {
    const k = this.key;
    if (k.length !== word.length) return false;
    for (let j = 0; j < word.length; j++) if (k[j] !== word[j]) return false;
    return true;
  }

  private isStepsKey(): boolean {
    const k = this.key;
    // the raw bytes of the last string at depth 1, as prescanJson compares them: "steps" spelt plainly
    return k.length === 5 && k[0] === 0x73 && k[1] === 0x74 && k[2] === 0x65 && k[3] === 0x70 && k[4] === 0x73;
  }

  private addKey(buf: Uint8Array, from: number, to: number): void {
    if (this.key.length + (to - from) > 8) {
      this.key.length = 9; // longer than "messages": none of them
      return;
    }
    for (let j = from; j < to; j++) this.key.push(buf[j]!);
  }

  private endPart(last: boolean): void {
    const parts = this.part;
    this.part = [];
    const messages = this.messagesSeen && !this.noMessages && !this.inMessages ? this.messages.slice() : undefined;
    // a step kept past this call (repeat() compares the next one with it) is copied out of the chunk
    const bytes = parts.length !== 1 ? concat(parts) : messages ? copyOf(parts[0]!, 0, parts[0]!.length) : parts[0]!;
    const repeated = messages ? this.repeated : { of: undefined, count: 0 };
    this.repeated = { of: undefined, count: 0 };
    if (messages) this.last = { bytes, messages };
    this.partLength = 0;
    this.inPayload = this.payloadSeen = this.inMessages = this.messagesSeen = this.noMessages = false;
    // `[]` and `[ ]`: no step; anything else is a step for JSON.parse to judge
    if (last && this.commas === 0 && isBlank(bytes)) return;
    this.onStep(bytes, messages, repeated);
  }
}

/** The first quote or backslash at or after i (n if none): where a string's plain run stops. */
function stringStop(buf: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = buf[i]!;
    if (c === QUOTE || c === BACKSLASH) return i;
    i++;
  }
  return n;
}

/** The first byte at or after i, outside strings, that is a quote, a bracket or a comma (n if none). */
function plainStop(buf: Uint8Array, i: number, n: number): number {
  while (i < n && KIND[buf[i]!] === 0) i++;
  return i;
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  return true;
}

/** A copy of bytes from..to (a Buffer's own slice() is a view, not a copy). */
function copyOf(buf: Uint8Array, from: number, to: number): Uint8Array {
  return Uint8Array.prototype.slice.call(buf, from, to);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
