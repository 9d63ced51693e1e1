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
import { concat, StepSplitter } from "../trace/stepSplit.js";
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

function* fileChunks(fd: number): Generator<Uint8Array> {
  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK);
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
  const splitter = new StepSplitter(MAX_JSON_DEPTH, maxSteps(), (bytes) => {
    if (broken) return;
    if (!isUtf8(bytes)) return void (broken = true);
    try {
      const step: unknown = JSON.parse(text(bytes));
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
      head = both.subarray(0, 2);
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
