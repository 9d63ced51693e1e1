import type { createHash as CreateHash } from "node:crypto";
import { createRequire } from "node:module";
import type { JsonValue, TraceStep } from "./types.js";

// node:crypto and canonicalize load at the first use, not with this module: the register
// hook's record mode imports it at start-up and hashes nothing before the first call, and
// the two cost ~9 ms of every hooked process's start-up on Node 20 (canonicalize is
// CommonJS: importing it from ESM also starts Node's CommonJS export lexer).
const load = createRequire(import.meta.url);
let canonicalize: ((value: unknown) => string | undefined) | undefined;
let createHash: typeof CreateHash | undefined;

/** Canonical JSON (RFC 8785): keys sorted recursively, arrays in order, no whitespace. */
export function canonicalJson(value: unknown): string {
  canonicalize ??= load("canonicalize") as (value: unknown) => string | undefined;
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
  createHash ??= (load("node:crypto") as { createHash: typeof CreateHash }).createHash;
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** SHA-256 (hex) of the canonical JSON of exactly index, type, timestamp, payload, prevHash. */
export function stepHash(step: HashInput | TraceStep): string {
  return sha256Hex(canonicalJson(hashInputOf(step)));
}
