import { readFileSync, statSync } from "node:fs";
import { resolve, sep } from "node:path";

/** A file's text (a fork script the options name). */
export function readText(path: string): string {
  return readFileSync(path, "utf8");
}

/**
 * Whether two paths name one file: the same path, a symlink, or the other case on a case-insensitive disk
 * (macOS, Windows).
 */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false; // one of them does not exist yet
  }
}

/** A path that names a folder: it ends with a separator, or it is a folder already. */
export function namesFolder(p: string | undefined): boolean {
  if (!p) return false;
  if (p.endsWith("/") || p.endsWith(sep)) return true;
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
