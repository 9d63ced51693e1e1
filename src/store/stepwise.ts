/**
 * A cassette file read and parsed one step at a time (src/trace/stepSplit.ts): each
 * model_input is shared with the one before it (src/trace/share.ts) as soon as it is
 * parsed, so the repeats of a long run's history are garbage while young, and neither the
 * file's whole text nor a parsed copy of every repeat is ever held. For a 64 MB, 400-turn
 * cassette that halves the peak memory of `blackbox verify` and of a replay's load, and
 * takes the time of the text pre-scan and of the old-space collections a whole parse costs
 * (bench/verify.mjs, bench/whole-run.mjs).
 *
 * Only the plain case is taken: a regular file within the size limit, UTF-8 without a
 * byte-order mark, JSON the split can follow, version 2. For anything else (and any JSON
 * error) it answers undefined and the caller reads the file whole (loadTrace), which says
 * what is wrong in the words it always has. What it returns is what JSON.parse of the
 * file's text returns, and the set shareRecordedHistory would give for it.
 */
import { isUtf8 } from "node:buffer";
import { createHash, type Hash } from "node:crypto";
import * as fs from "node:fs";
import { MAX_JSON_DEPTH, maxCassetteBytes, maxSteps } from "../trace/limits.js";
import { historySharer, type SharedValues } from "../trace/share.js";
import { concat, type Repeated, StepSplitter } from "../trace/stepSplit.js";
import { CURRENT_TRACE_VERSION } from "../trace/types.js";

const CHUNK = 1 << 20;

export interface StepwiseLoad {
  /** The parsed cassette (any version-2 JSON object: its checks are the caller's). */
  value: Record<string, unknown>;
  shared: SharedValues;
  /** The SHA-256 (hex) of the file's bytes, when asked for. */
  sha256?: string;
}

const text = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The step's bytes without payload.messages' first `count` elements (and the comma after them). */
function without(bytes: Uint8Array, messages: readonly number[], count: number): string {
  const start = messages[0]!;
  const rest = count === 0 ? start : count === messages.length - 1 ? messages[count]! : messages[count]! + 1;
  return text(bytes.subarray(0, start)) + text(bytes.subarray(rest));
}

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Whether two elements' bytes are the same but for the whitespace around them (no Buffer made per element). */
function sameCore(a: Buffer, aFrom: number, aTo: number, b: Buffer, bFrom: number, bTo: number): boolean {
  while (aFrom < aTo && isSpace(a[aFrom]!)) aFrom++;
  while (aTo > aFrom && isSpace(a[aTo - 1]!)) aTo--;
  while (bFrom < bTo && isSpace(b[bFrom]!)) bFrom++;
  while (bTo > bFrom && isSpace(b[bTo - 1]!)) bTo--;
  return aTo - aFrom === bTo - bFrom && a.compare(b, bFrom, bTo, aFrom, aTo) === 0;
}

/**
 * JSON.parse of each step, where a model_input's leading messages are, byte for byte, the
 * previous model_input's: those are not parsed again but are the previous input's objects
 * (what shareRecordedHistory makes of them; only their identity is not JSON.parse's), and only
 * the rest of the step's text is parsed. Sound by the grammar: the previous elements' bytes
 * parsed to those values, so the step's whole text is the parsed rest with them in front.
 */
class HistoryParse {
  private prev: { bytes: Uint8Array; messages: readonly number[]; values: unknown[] } | undefined;

  parse(bytes: Uint8Array, messages: readonly number[] | undefined, repeated: Repeated): unknown {
    const prev = this.prev;
    let same = 0;
    if (messages && prev) {
      const n = Math.min(messages.length, prev.messages.length) - 1;
      // the split already found these the same, byte for byte, as the same earlier step's
      if (repeated.of === prev.bytes) same = Math.min(repeated.count, n);
      const at = (m: readonly number[], k: number): number => (k === 0 ? m[0]! : m[k]! + 1);
      const a = asBuffer(bytes);
      const b = asBuffer(prev.bytes);
      while (
        same < n &&
        sameCore(a, at(messages, same), messages[same + 1]!, b, at(prev.messages, same), prev.messages[same + 1]!)
      )
        same++;
    }
    let step = JSON.parse(same > 0 ? without(bytes, messages!, same) : text(bytes)) as unknown;
    if (same > 0) {
      if (isInput(step)) step.payload.messages = [...prev!.values.slice(0, same), ...step.payload.messages];
      else step = JSON.parse(text(bytes)); // not a model_input after all: as it is
    }
    // the model_input shareRecordedHistory shares the next one with (historySharer): the one compared with next
    if (isSharedInput(step))
      this.prev = messages && isInput(step) ? { bytes, messages, values: step.payload.messages } : undefined;
    return step;
  }
}

/** A step historySharer takes as the previous model_input: a model_input whose payload is an object. */
function isSharedInput(step: unknown): boolean {
  if (step === null || typeof step !== "object" || (step as { type?: unknown }).type !== "model_input") return false;
  const p = (step as { payload?: unknown }).payload;
  return p !== null && typeof p === "object" && !Array.isArray(p);
}

function isInput(step: unknown): step is { payload: { messages: unknown[] } } {
  return isSharedInput(step) && Array.isArray((step as { payload: { messages?: unknown } }).payload.messages);
}

/** The cassette at `file` parsed step by step, or undefined: then read it whole. */
export function loadStepwiseSync(file: string, opts: { sha256?: boolean } = {}): StepwiseLoad | undefined {
  let fd: number;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > maxCassetteBytes()) return undefined;
    fd = fs.openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    if (!opts.sha256) return parseStepwise(fileChunks(fd));
    const hash = createHash("sha256");
    const load = parseStepwise(hashed(fileChunks(fd), hash));
    return load && { ...load, sha256: hash.digest("hex") };
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's bytes, read into one buffer over and over (the split copies what it keeps). */
function* fileChunks(fd: number): Generator<Uint8Array> {
  const chunk = Buffer.allocUnsafe(CHUNK);
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, CHUNK, null);
    if (n === 0) return;
    yield chunk.subarray(0, n);
  }
}

function* hashed(chunks: Iterable<Uint8Array>, hash: Hash): Generator<Uint8Array> {
  for (const chunk of chunks) {
    hash.update(chunk);
    yield chunk;
  }
}

/**
 * A cassette's bytes, in chunks of any size, parsed step by step; undefined when the text is
 * not one to take this way. Exported for the tests, which cut texts at random.
 */
export function parseStepwise(chunks: Iterable<Uint8Array>): StepwiseLoad | undefined {
  const steps: unknown[] = [];
  const sharer = historySharer();
  let broken = false;
  const history = new HistoryParse();
  const splitter = new StepSplitter(MAX_JSON_DEPTH, maxSteps(), (bytes, messages, repeated) => {
    if (broken) return;
    if (!isUtf8(bytes)) return void (broken = true);
    try {
      const step = history.parse(bytes, messages, repeated);
      sharer.add(step);
      steps.push(step);
    } catch {
      broken = true;
    }
  });
  const limit = maxCassetteBytes();
  let total = 0;
  let head: Uint8Array | undefined; // the first two bytes, for the check below
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    if (total < 2) {
      const both = head ? concat([head, chunk]) : chunk;
      // a byte-order mark, or UTF-16 (a zero byte beside the first character): decodeCassette's to judge
      if (both[0] === 0xef || both[0] === 0xfe || both[0] === 0xff || both[0] === 0 || both[1] === 0) return undefined;
      head = Uint8Array.prototype.slice.call(both, 0, 2); // a copy: the chunk is read into again
    }
    total += chunk.length;
    if (total > limit) return undefined;
    if (!splitter.push(asBuffer(chunk)) || broken) return undefined;
  }
  if (total < 2) return undefined;
  if (!splitter.end() || broken) return undefined;
  const rootBytes = concat(splitter.root);
  if (!isUtf8(rootBytes)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text(rootBytes));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const root = value as Record<string, unknown>;
  if (root.version !== CURRENT_TRACE_VERSION) return undefined;
  if (!splitter.split) return undefined; // no plain `steps` array: not a cassette to take this way
  // the array the split took out stands at root.steps as `[]` (no other root key can be spelt "steps")
  if (!Array.isArray(root.steps) || root.steps.length !== 0) return undefined;
  root.steps = steps;
  return { value: root, shared: sharer.shared };
}
