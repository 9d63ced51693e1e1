import type { createHash as CreateHash } from "node:crypto";
import canonicalizeImport from "canonicalize";
import type { SharedValues } from "./share.js";
import type { JsonValue, TraceStep } from "./types.js";

// canonicalize ships CJS with `export default`; under NodeNext the default import
// is the module object in some setups, so take the function wherever it is. (The register
// hook's bundle imports a lazy stand-in instead, src/vendor/lazyCanonicalize.ts: it hashes
// nothing before the first call, and importing CommonJS from ESM costs start-up.)
const canonicalize: (value: unknown) => string | undefined =
  typeof canonicalizeImport === "function"
    ? (canonicalizeImport as unknown as (v: unknown) => string | undefined)
    : (canonicalizeImport as unknown as { default: (v: unknown) => string | undefined }).default;

// node:crypto at the first hash, not with this module (it is on every hooked process's start-up: bench/startup.mjs).
let createHash: typeof CreateHash | undefined;

/** Canonical JSON (RFC 8785): keys sorted recursively, arrays in order, no whitespace. */
export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError("value has no JSON form");
  return out;
}

/**
 * canonicalJson for a trace whose `shared` objects stand at several places (src/trace/share.ts):
 * each one's text is made once and remembered in `texts`. The same text as canonicalize
 * gives, value for value: this follows its code step by step (the errors, the skipped
 * undefined and symbol members, null for them in arrays, holes skipped), and hands anything with a
 * toJSON to it (test/unit/perf/sharedVerify.test.ts compares the two).
 */
export function canonicalJsonShared(value: unknown, shared: SharedValues, texts: Map<object, string>): string {
  const out = canonicalShared(value, shared, texts);
  if (out === undefined) throw new TypeError("value has no JSON form");
  return out;
}

function canonicalShared(value: unknown, shared: SharedValues, texts: Map<object, string>): string | undefined {
  if (typeof value === "number" && isNaN(value)) throw new Error("NaN is not allowed");
  if (typeof value === "number" && !isFinite(value)) throw new Error("Infinity is not allowed");
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if ((value as { toJSON?: unknown }).toJSON instanceof Function) return canonicalize(value);
  const known = shared.has(value);
  if (known) {
    const text = texts.get(value);
    if (text !== undefined) return text;
  }
  let text: string;
  if (Array.isArray(value)) {
    text = "[";
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) continue; // a hole: canonicalize's reduce skips it
      const item: unknown = value[i];
      text += `${i === 0 ? "" : ","}${canonicalShared(item === undefined || typeof item === "symbol" ? null : item, shared, texts)}`;
    }
    text += "]";
  } else {
    const o = value as Record<string, unknown>;
    let members = "";
    for (const key of Object.keys(o).sort()) {
      const v = o[key];
      if (v === undefined || typeof v === "symbol") continue;
      members += `${members.length === 0 ? "" : ","}${JSON.stringify(key)}:${canonicalShared(v, shared, texts)}`;
    }
    text = `{${members}}`;
  }
  if (known) texts.set(value, text);
  return text;
}

/** The fields of a step that its hash covers ("Hash Input"). */
export interface HashInput {
  index: number;
  type: string;
  timestamp: number;
  payload: JsonValue;
  prevHash: string | null;
}

export function hashInputOf(step: HashInput): HashInput {
  return {
    index: step.index,
    type: step.type,
    timestamp: step.timestamp,
    payload: step.payload,
    prevHash: step.prevHash,
  };
}

export function sha256Hex(text: string): string {
  createHash ??= process.getBuiltinModule("node:crypto").createHash;
  return createHash("sha256").update(text, "utf8").digest("hex");
}

type Memo = { shared: SharedValues; texts: Map<object, string> };

/**
 * Writes the canonical JSON of `value` to `out` piece by piece: canonicalize's text, token for
 * token (the same errors, undefined and symbol members skipped, null for them in arrays, holes
 * skipped, toJSON followed), without ever holding the whole text. canonicalize builds it by
 * concatenation: for an array of 5 million numbers that is some 450 MB of intermediate strings,
 * where the file is 10 MB. A shared object's text (memo) is made once as a string and reused.
 */
function writeCanonical(value: unknown, out: (piece: string) => void, memo: Memo | undefined): void {
  if (typeof value === "number" && isNaN(value)) throw new Error("NaN is not allowed");
  if (typeof value === "number" && !isFinite(value)) throw new Error("Infinity is not allowed");
  if (value === null || typeof value !== "object") return out(`${JSON.stringify(value)}`);
  if (memo?.shared.has(value)) return out(canonicalJsonShared(value, memo.shared, memo.texts));
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (toJSON instanceof Function) return writeCanonical(toJSON.call(value), out, memo);
  if (Array.isArray(value)) {
    out("[");
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) continue; // a hole: canonicalize's reduce skips it (and still writes the comma by index)
      if (i !== 0) out(",");
      const item: unknown = value[i];
      writeCanonical(item === undefined || typeof item === "symbol" ? null : item, out, memo);
    }
    return out("]");
  }
  const o = value as Record<string, unknown>;
  out("{");
  let first = true;
  for (const key of Object.keys(o).sort()) {
    const v = o[key];
    if (v === undefined || typeof v === "symbol") continue;
    out(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    writeCanonical(v, out, memo);
  }
  out("}");
}

/** Pieces of text hashed at a time. */
const CHUNK = 1 << 16;

/**
 * SHA-256 (hex) of the canonical JSON of exactly index, type, timestamp, payload, prevHash, hashed
 * as it is written (writeCanonical): the same hash as sha256Hex(canonicalJson(input)). Pieces are
 * whole JSON tokens, so a chunk never ends inside a surrogate pair.
 * `memo`: the trace's shared objects and their texts so far (canonicalJsonShared).
 */
export function stepHash(step: HashInput | TraceStep, memo?: Memo): string {
  createHash ??= process.getBuiltinModule("node:crypto").createHash;
  const hash = createHash("sha256");
  let pending = "";
  writeCanonical(
    hashInputOf(step),
    (piece) => {
      pending += piece;
      if (pending.length >= CHUNK) {
        hash.update(pending, "utf8");
        pending = "";
      }
    },
    memo,
  );
  return hash.update(pending, "utf8").digest("hex");
}
