/**
 * Blackbox's error classes. One base class with a `code`; `isBlackboxError`
 * recognises them across two copies of the package (a brand on a global
 * symbol) and recognises the SDK error an agent sees when Blackbox refused a
 * call inside an SDK request (a 400 whose body carries type "blackbox_error").
 */
import { ERROR_BRAND } from "./globals.js";

export type BlackboxErrorCode =
  | "BLACKBOX_REPLAY_DIVERGENCE"
  | "BLACKBOX_UNSUPPORTED"
  | "BLACKBOX_TRACE_LOAD"
  | "BLACKBOX_TRACE_INVALID"
  | "BLACKBOX_CONFIG"
  | "BLACKBOX_USAGE"
  | "BLACKBOX_FORK"
  | "BLACKBOX_SECRET"
  | "BLACKBOX_SESSION"
  | "BLACKBOX_WRITE";

export class BlackboxError extends Error {
  readonly code: BlackboxErrorCode;
  constructor(code: BlackboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, ERROR_BRAND, { value: true });
  }
}

/** The agent's requests drifted from the recording. */
export class ReplayDivergenceError extends BlackboxError {
  /** Step index in the cassette where the divergence was found, when known. */
  readonly stepIndex: number | undefined;
  /** JSON path of the first difference, when known. */
  readonly path: string | undefined;
  readonly recorded: unknown;
  readonly actual: unknown;
  constructor(
    message: string,
    details: { stepIndex?: number; path?: string; recorded?: unknown; actual?: unknown } = {},
  ) {
    super("BLACKBOX_REPLAY_DIVERGENCE", message);
    this.stepIndex = details.stepIndex;
    this.path = details.path;
    this.recorded = details.recorded;
    this.actual = details.actual;
  }
}

/** A request or response uses something Blackbox cannot record and give back. */
export class BlackboxUnsupportedError extends BlackboxError {
  constructor(message: string) {
    super("BLACKBOX_UNSUPPORTED", message);
  }
}

/** A cassette file could not be read (missing, not JSON, wrong version, schema). */
export class TraceLoadError extends BlackboxError {
  readonly file: string | undefined;
  readonly jsonPath: string | undefined;
  constructor(message: string, details: { file?: string; jsonPath?: string } = {}) {
    super("BLACKBOX_TRACE_LOAD", message);
    this.file = details.file;
    this.jsonPath = details.jsonPath;
  }
}

/** Which of a cassette's limits (src/trace/limits.ts) a file goes past. */
export type CassetteLimit = "size" | "steps" | "depth";

/**
 * A cassette past one of the limits that keep a hostile file from exhausting memory (size, steps, nesting).
 * The CLI exits 2 on it, as on any input it cannot take.
 */
export class CassetteLimitError extends TraceLoadError {
  readonly limit: CassetteLimit;
  constructor(message: string, details: { file?: string; jsonPath?: string; limit: CassetteLimit }) {
    super(message, details);
    this.limit = details.limit;
  }
}

/** A bad blackbox.config file. */
export class BlackboxConfigError extends BlackboxError {
  constructor(message: string) {
    super("BLACKBOX_CONFIG", message);
  }
}

/** Forking at a step that cannot be a fork point, or with a bad replacement. */
export class ForkError extends BlackboxError {
  constructor(message: string) {
    super("BLACKBOX_FORK", message);
  }
}

/** Misuse of a session (calls after finish, overlapping calls, tools still running ...). */
export class SessionError extends BlackboxError {
  constructor(message: string) {
    super("BLACKBOX_SESSION", message);
  }
}

/** A cassette that would contain an API key. */
export class SecretLeakError extends BlackboxError {
  constructor(message: string) {
    super("BLACKBOX_SECRET", message);
  }
}

/** A cassette could not be written (unwritable folder, full disk ...). */
export class CassetteWriteError extends BlackboxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("BLACKBOX_WRITE", message, options);
  }
}

/** The body type a refused SDK call carries, so the SDK's APIError is recognisable. */
export const BLACKBOX_ERROR_TYPE = "blackbox_error";

export function isBlackboxError(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  const e = error as Record<string | symbol, unknown>;
  if (e[ERROR_BRAND] === true) return true;
  // The SDK's own APIError for a call Blackbox refused: its parsed body is on `.error`.
  const body = e.error as Record<string, unknown> | undefined;
  if (body && typeof body === "object") {
    const inner = body.error as Record<string, unknown> | undefined;
    if (inner && typeof inner === "object" && inner.type === BLACKBOX_ERROR_TYPE) return true;
    if (body.type === BLACKBOX_ERROR_TYPE) return true;
  }
  // @google/genai's ApiError carries the body's JSON as its message, the AI SDK's APICallError as responseBody:
  // the Gemini error body names Blackbox as its ErrorInfo's reason
  const reason = `"reason":"${BLACKBOX_ERROR_TYPE}"`;
  for (const text of [e.message, e.responseBody]) if (typeof text === "string" && text.includes(reason)) return true;
  return false;
}
