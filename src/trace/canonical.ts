import type { createHash as CreateHash } from "node:crypto";
import canonicalizeImport from "canonicalize";
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

/** SHA-256 (hex) of the canonical JSON of exactly index, type, timestamp, payload, prevHash. */
export function stepHash(step: HashInput | TraceStep): string {
  return sha256Hex(canonicalJson(hashInputOf(step)));
}
