/**
 * The cassettes that passed verify, remembered by the SHA-256 of their bytes, so that a
 * replay or fork of a cassette already verified by this same Blackbox parses it without
 * verifying it again (~100 ms of a 15 MB cassette's start-up: bench/whole-run.mjs).
 *
 * Sound by what the key holds: the same bytes, read by the same code under the same
 * limits, get the same verdict. An entry is named by the bytes' hash and holds the code's
 * identity (this package's version and the size and time of the installed file this code
 * runs from, which every build and install writes anew) and the step limit. An edited
 * cassette has other bytes, so it is verified in full and fails as before; only a pass is
 * remembered. Where: node_modules/.cache/blackbox/verified/ of the project this package is
 * installed in (of the checkout, for a checkout with node_modules). Best effort: a cache
 * that cannot be read or written is no cache, never an error. BLACKBOX_VERIFY_CACHE=off
 * turns it off; an absolute path there keeps the entries in that folder instead (a CI
 * cache, a test).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { MAX_JSON_DEPTH, maxSteps } from "../trace/limits.js";

const HEX = /^[0-9a-f]{64}$/;
let where: { dir: string | undefined; code: string } | null | undefined;

/** The code's identity and the default cache folder (none outside a project's node_modules), or null: no cache. */
function place(): { dir: string | undefined; code: string } | null {
  if (where !== undefined) return where;
  where = null;
  try {
    const self = fileURLToPath(import.meta.url);
    let root = path.dirname(self);
    for (let up = 0; up < 4 && !fs.existsSync(path.join(root, "package.json")); up++) root = path.dirname(root);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      name?: string;
      version?: string;
    };
    if (pkg.name !== "@ardaulas/blackbox") return where;
    const parts = root.split(path.sep);
    const at = parts.lastIndexOf("node_modules");
    const modules = at >= 0 ? parts.slice(0, at + 1).join(path.sep) : path.join(root, "node_modules");
    const stat = fs.statSync(self);
    const code = `${pkg.version} ${stat.size} ${stat.mtimeMs}`;
    where = { dir: fs.existsSync(modules) ? path.join(modules, ".cache", "blackbox", "verified") : undefined, code };
  } catch {
    where = null;
  }
  return where;
}

/** BLACKBOX_VERIFY_CACHE: off (or 0, false), an absolute folder to keep the entries in, or unset (the default folder). */
function cache(): { dir: string; code: string } | null {
  const v = process.env.BLACKBOX_VERIFY_CACHE?.trim();
  if (v !== undefined && ["off", "0", "false"].includes(v.toLowerCase())) return null;
  const p = place();
  const dir = v !== undefined && path.isAbsolute(v) ? v : p?.dir;
  return p && dir !== undefined ? { dir, code: p.code } : null;
}

/** What an entry for a pass holds: the code and limits the pass was found under. */
const entryText = (code: string): string => JSON.stringify({ code, maxSteps: maxSteps(), maxDepth: MAX_JSON_DEPTH });

/** Whether bytes of this hash passed verify under this code and these limits. */
export function verifiedBefore(sha256: string): boolean {
  const p = cache();
  if (!p || !HEX.test(sha256)) return false;
  try {
    return fs.readFileSync(path.join(p.dir, `${sha256}.json`), "utf8") === entryText(p.code);
  } catch {
    return false;
  }
}

/** Remembers that bytes of this hash passed verify (atomically: a temp file renamed). */
export function rememberVerified(sha256: string): void {
  const p = cache();
  if (!p || !HEX.test(sha256)) return;
  const file = path.join(p.dir, `${sha256}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(p.dir, { recursive: true });
    fs.writeFileSync(tmp, entryText(p.code));
    fs.renameSync(tmp, file);
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing to clean
    }
  }
}
