/**
 * A hand-written check of the common blackbox.config shape, so a valid config does not
 * pay for zod's import (bench/startup.mjs) in the register hook. It may be stricter than
 * configSchema, never looser: whatever it does not accept goes to zod, which gives the
 * message. A config with `providers` always goes to zod (its URLs are zod's to judge).
 */
import type { BlackboxConfig } from "../config.js";

const ENTRY_KEYS = [new Set(["module", "exports"]), new Set(["module", "export", "name"])];

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  return proto === Object.prototype || proto === null;
}

const isName = (x: unknown): boolean => typeof x === "string" && x.length > 0;

function onlyKeys(obj: Record<string, unknown>, allowed: Set<string>): boolean {
  return Reflect.ownKeys(obj).every((k) => typeof k === "string" && allowed.has(k));
}

function isToolEntry(x: unknown): boolean {
  if (!isPlainObject(x) || !isName(x.module)) return false;
  if (onlyKeys(x, ENTRY_KEYS[0]!)) return Array.isArray(x.exports) && x.exports.length > 0 && x.exports.every(isName);
  if (onlyKeys(x, ENTRY_KEYS[1]!)) return isName(x.export) && ("name" in x ? isName(x.name) : true);
  return false;
}

/** True only for a config configSchema surely accepts unchanged: `{ tools?: [...] }` with plain entries. */
export function isPlainConfig(raw: unknown): raw is BlackboxConfig {
  if (!isPlainObject(raw) || !onlyKeys(raw, new Set(["tools"]))) return false;
  if (!("tools" in raw)) return true;
  return Array.isArray(raw.tools) && raw.tools.every(isToolEntry);
}
