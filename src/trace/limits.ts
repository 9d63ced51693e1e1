/**
 * The limits a cassette stays within, so that a hostile or corrupted file is refused with a
 * clear message instead of exhausting memory or the stack: its size (checked before it is
 * read, src/store/index.ts), its number of steps and its nesting depth (checked in the text
 * before JSON.parse, prescan.ts, and again in a parsed value by verifyTrace). Real runs stay
 * far below each (docs/cassette-format.md#limits). Size and steps can be raised with an
 * environment variable; depth cannot (the checks recurse, and the stack is what it guards).
 */
import { BlackboxConfigError } from "../errors.js";
import { MAX_JSON_DEPTH } from "./depth.js";
import { printable } from "./printable.js";

export { MAX_JSON_DEPTH };

export const DEFAULT_MAX_CASSETTE_MB = 256;
/** V8 holds no string much longer than 512 MiB: a cassette is read as one, so the size limit stops there. */
export const HARD_MAX_CASSETTE_MB = 512;
export const DEFAULT_MAX_STEPS = 100_000;

export const SIZE_VAR = "BLACKBOX_MAX_CASSETTE_MB";
export const STEPS_VAR = "BLACKBOX_MAX_STEPS";

function fromEnv(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new BlackboxConfigError(
      `${name}=${printable(raw.slice(0, 40))} is not a limit Blackbox can use: set it to a whole number from 1 to ${max} (default ${fallback}), or unset it.`,
    );
  }
  return Number(raw);
}

/** Largest cassette, in bytes, a load reads (BLACKBOX_MAX_CASSETTE_MB, default 256 MiB). */
export function maxCassetteBytes(): number {
  return fromEnv(SIZE_VAR, DEFAULT_MAX_CASSETTE_MB, HARD_MAX_CASSETTE_MB) * 1024 * 1024;
}

/** Most steps a cassette may hold (BLACKBOX_MAX_STEPS, default 100000). */
export function maxSteps(): number {
  return fromEnv(STEPS_VAR, DEFAULT_MAX_STEPS, Number.MAX_SAFE_INTEGER);
}

/** `<what> is too large to load ...`: `what` names the cassette ("cassette run.json"). */
export function tooLargeMessage(what: string, bytes: number): string {
  const mib = (bytes / 1024 / 1024).toFixed(1);
  const limit = maxCassetteBytes() / 1024 / 1024;
  return `${what} is too large to load (${mib} MiB; the limit is ${limit} MiB). Split the run into shorter runs or record less tool output. (A real run this large can raise the limit with ${SIZE_VAR}, up to ${HARD_MAX_CASSETTE_MB}.)`;
}

/** `<what> has more than N steps ...`. */
export function tooManyStepsMessage(what: string, limit = maxSteps()): string {
  return `${what} has more than ${limit} steps, the most a cassette may hold, so it is not checked or loaded. A recorded run stays far below that: check where the file came from, or, for a real run this long, raise the limit with ${STEPS_VAR}.`;
}
