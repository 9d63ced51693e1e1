import type { createHash as CreateHash } from "node:crypto";
import canonicalizeImport from "canonicalize";
import type { SharedValues } from "./share.js";
import type { JsonValue, TraceStep } from "./types.js";

// canonicalize ships CJS with `export default`; under NodeNext the default import
// is the module object in some setups, so take the function wherever it is. (The register
// hook's bundle imports a lazy stand-in instead, src/edges/lazyCanonicalize.ts: it hashes
// nothing before the first call, and importing CommonJS from ESM costs start-up.)
const canonicalize: (value: unknown) => string | undefined =
  typeof canonicalizeImport === "function"
    ? (canonicalizeImport as unknown as (v: unknown) => string | undefined)
    : (canonicalizeImport as unknown as { default: (v: unknown) => string | undefined }).default;

// node:crypto at the first hash, not with this module (~3 ms of every hooked process's start-up).
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

/**
 * SHA-256 (hex) of the canonical JSON of exactly index, type, timestamp, payload, prevHash.
 * `memo`: the trace's shared objects and their texts so far (canonicalJsonShared).
 */
export function stepHash(step: HashInput | TraceStep, memo?: { shared: SharedValues; texts: Map<object, string> }): string {
  const input = hashInputOf(step);
  return sha256Hex(memo ? canonicalJsonShared(input, memo.shared, memo.texts) : canonicalJson(input));
}
