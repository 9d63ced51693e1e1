/**
 * A hand-written check of the v2 cassette shape: the fast path of parseTrace (pure).
 *
 * It answers only "valid or not". It may be STRICTER than the zod schemas in
 * schema.ts (when in doubt it says "not valid", and the zod check in shape.ts then
 * decides and writes the messages), but it never accepts what they reject: a test
 * checks that on random valid traces with random single mutations, and on the golden
 * fixtures. A zod parse of a large cassette is far slower than this walk (bench/load.mjs).
 */
import type { SharedValues } from "./share.js";
import { TRACE_STEP_TYPES } from "./types.js";

type Obj = Record<string, unknown>;

/** Deeper than this, say "not valid" and let the zod check (and the depth check) decide. */
const MAX_DEPTH = 300;
const HASH = /^[0-9a-f]{64}$/;
const STEP_TYPES = new Set<unknown>(TRACE_STEP_TYPES);

/** A plain object as JSON.parse makes it (anything else: not valid, zod decides). */
function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

const isStr = (v: unknown): v is string => typeof v === "string";
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isInt = (v: unknown): boolean => Number.isSafeInteger(v);
const isNat = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/** An optional string field: absent, or a string (an explicit undefined is left to zod). */
function optStr(o: Obj, key: string): boolean {
  const v = o[key];
  return v === undefined ? !Object.prototype.hasOwnProperty.call(o, key) : typeof v === "string";
}

/**
 * During isValidTraceShape(trace, shared): the shared objects (src/trace/share.ts) found to be
 * JSON values (with the depth they were checked at; no deeper is fine too) and valid messages.
 */
let memo: { shared: SharedValues; json: Map<object, number>; messages: Set<object> } | undefined;

/** Any JSON value (z.json()): finite numbers, plain objects, arrays without holes. */
export function isJsonValue(v: unknown, depth = 0): boolean {
  if (memo && v !== null && typeof v === "object" && memo.shared.has(v)) {
    const at = memo.json.get(v);
    if (at !== undefined && at >= depth) return true; // fine that deep: fine less deep
    if (!jsonValue(v, depth)) return false;
    memo.json.set(v, depth);
    return true;
  }
  return jsonValue(v, depth);
}

function jsonValue(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v);
    case "object":
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!isJsonValue(v[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const k in v) {
    if (k === "__proto__" || !isJsonValue((v as Obj)[k], depth + 1)) return false;
  }
  return true;
}

/** Exactly one of `result` (JSON) or `error` (a string), as oneOfResultOrError asks. */
function resultOrError(o: Obj): boolean {
  const hasResult = Object.prototype.hasOwnProperty.call(o, "result");
  const hasError = Object.prototype.hasOwnProperty.call(o, "error");
  if (hasResult === hasError) return false;
  return hasError ? isStr(o.error) : o.result !== undefined; // its JSON-ness is checked with the payload
}

function isPart(p: unknown): boolean {
  if (!isObj(p)) return false;
  switch (p.type) {
    case "text":
      return isStr(p.text);
    case "tool_use":
      return isStr(p.toolCallId) && isStr(p.toolName) && p.toolInput !== undefined;
    case "tool_result":
      return isStr(p.toolCallId) && isStr(p.toolName) && resultOrError(p);
    default:
      return false;
  }
}

function isMessage(m: unknown): boolean {
  if (memo && memo.messages.has(m as object)) return true;
  if (!message(m)) return false;
  if (memo && memo.shared.has(m as object)) memo.messages.add(m as object);
  return true;
}

function message(m: unknown): boolean {
  if (!isObj(m) || (m.role !== "user" && m.role !== "assistant")) return false;
  const c = m.content;
  if (typeof c === "string") return true;
  if (!Array.isArray(c)) return false;
  for (let i = 0; i < c.length; i++) if (!isPart(c[i])) return false;
  return true;
}

function isToolDefinition(t: unknown): boolean {
  return isObj(t) && isStr(t.name) && optStr(t, "description") && t.inputSchema !== undefined;
}

function isModelInput(p: Obj): boolean {
  const { messages, tools } = p;
  if (!Array.isArray(messages) || !Array.isArray(tools)) return false;
  for (let i = 0; i < messages.length; i++) if (!isMessage(messages[i])) return false;
  for (let i = 0; i < tools.length; i++) if (!isToolDefinition(tools[i])) return false;
  if (!optStr(p, "systemPrompt") || !optStr(p, "model")) return false;
  return p.params === undefined ? !Object.prototype.hasOwnProperty.call(p, "params") : isObj(p.params);
}

const isToolCall = (c: unknown): boolean =>
  isObj(c) && isStr(c.toolCallId) && isStr(c.toolName) && c.toolInput !== undefined;

function optStop(o: Obj): boolean {
  const s = o.stop;
  return s === undefined ? !Object.prototype.hasOwnProperty.call(o, "stop") : s === "length" || s === "refusal";
}

function isModelOutput(p: Obj): boolean {
  switch (p.type) {
    case "tool_call":
      return isToolCall(p);
    case "tool_calls": {
      const calls = p.calls;
      if (!Array.isArray(calls) || !optStr(p, "text") || !optStop(p)) return false;
      for (let i = 0; i < calls.length; i++) if (!isToolCall(calls[i])) return false;
      return true;
    }
    case "final_answer":
      return isStr(p.text) && optStop(p);
    default:
      return false;
  }
}

function isMetadata(p: Obj): boolean {
  if (p.event === "run_completed") return p.status === "success" && p.result !== undefined;
  if (p.event !== "run_failed") return isStr(p.event);
  if (p.status !== "error") return false;
  switch (p.reason) {
    case "agent_error":
      return isStr(p.message);
    case "process_exit":
      return isInt(p.exitCode);
    case "calls_in_flight":
      return isInt(p.exitCode) && isNat(p.inFlight);
    case "max_steps_exceeded":
      return isNat(p.maxSteps);
    case "unknown_tool":
      return isStr(p.toolName);
    default:
      return false;
  }
}

function isPayload(type: unknown, p: unknown): boolean {
  if (!isObj(p) || !isJsonValue(p)) return false;
  switch (type) {
    case "model_input":
      return isModelInput(p);
    case "model_output":
      return isModelOutput(p);
    case "tool_call":
      return isToolCall(p);
    case "tool_result":
      return isStr(p.toolCallId) && isStr(p.toolName) && resultOrError(p);
    case "metadata":
      return isMetadata(p);
    default:
      return false;
  }
}

function isStep(s: unknown): boolean {
  if (!isObj(s)) return false;
  return (
    isStr(s.id) &&
    isNat(s.index) &&
    STEP_TYPES.has(s.type) &&
    isNum(s.timestamp) &&
    (s.prevHash === null || isStr(s.prevHash)) &&
    isStr(s.hash) &&
    HASH.test(s.hash) &&
    isPayload(s.type, s.payload)
  );
}

/**
 * True when `value` is certainly a well-formed v2 trace (checkShape would find no
 * problem). False means "not sure": run checkShape for the verdict and the messages.
 * `shared`: objects standing at several places (src/trace/share.ts), each checked once.
 */
export function isValidTraceShape(value: unknown, shared?: SharedValues): boolean {
  memo = shared && shared.size > 0 ? { shared, json: new Map(), messages: new Set() } : undefined;
  try {
    return traceShape(value);
  } finally {
    memo = undefined;
  }
}

function traceShape(value: unknown): boolean {
  if (!isObj(value)) return false;
  if (value.version !== 2 || !isStr(value.id) || !isNum(value.createdAt)) return false;
  if (!optStr(value, "parentId") || !optStr(value, "forkedFromStepId")) return false;
  const steps = value.steps;
  if (!Array.isArray(steps)) return false;
  for (let i = 0; i < steps.length; i++) if (!isStep(steps[i])) return false;
  return true;
}
