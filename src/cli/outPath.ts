/**
 * `-o` naming a folder (one that exists, or any path ending in `/`): the cassette is a
 * named file inside it, never the folder itself. record: `record-<UTC date>-<time>.json`
 * (`-2`, `-3` ... when one of that second is there); fork: `<parent>.fork-<N>.json`.
 */
import { existsSync, statSync } from "node:fs";
import { basename, join, resolve, sep } from "node:path";

/** Whether `given` names a folder: it ends with a separator, or is one. */
export function namesFolder(given: string): boolean {
  if (given.endsWith("/") || given.endsWith(sep)) return true;
  try {
    return statSync(given).isDirectory();
  } catch {
    return false;
  }
}

/** `record-20261204-024224` for the given time, in UTC. */
export function recordName(now: Date): string {
  const iso = now.toISOString(); // 2026-12-04T02:42:24.123Z
  return `record-${iso.slice(0, 10).replace(/-/g, "")}-${iso.slice(11, 19).replace(/:/g, "")}`;
}

/** The file inside `dir` named `name`.json, or `name-2`.json ... when that is taken. */
function free(dir: string, name: string): string {
  let file = join(dir, `${name}.json`);
  for (let n = 2; existsSync(file); n++) file = join(dir, `${name}-${n}.json`);
  return file;
}

/** The absolute cassette path of record's `-o`. */
export function recordOut(given: string, now: Date = new Date()): string {
  return namesFolder(given) ? free(resolve(given), recordName(now)) : resolve(given);
}

/** The absolute cassette path of fork's `-o` (a folder: the default name inside it). */
export function forkOut(given: string, defaultPath: string): string {
  return namesFolder(given) ? join(resolve(given), basename(defaultPath)) : resolve(given);
}
