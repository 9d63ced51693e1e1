/**
 * Installs a fixture app's pinned dependencies (`npm ci` from its lock file) once, however
 * many test files in however many vitest workers ask for it at the same time.
 *
 * On a fresh clone several files want the same app (the LangChain app serves four); each
 * running its own `npm ci` deleted the node_modules another was loading from, and a file
 * that only checked for the folder started on a half-written tree. So: one installer at a
 * time per app (an exclusive lock folder), and a marker written last, holding the lock
 * file's hash, which is what "installed" means.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MARKER = ".blackbox-fixture-installed";
const WAIT_MS = 240_000;
/** A lock older than this was left by a killed run (an install takes well under it). */
const STALE_MS = 300_000;

function lockHash(dir: string): string {
  return createHash("sha256")
    .update(readFileSync(join(dir, "package-lock.json")))
    .digest("hex");
}

function installed(dir: string, hash: string): boolean {
  try {
    return readFileSync(join(dir, "node_modules", MARKER), "utf8") === hash;
  } catch {
    return false;
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs `npm ci` in `dir` unless its node_modules is a finished install of its current lock file. */
export function installFixture(dir: string): void {
  const hash = lockHash(dir);
  if (installed(dir, hash)) return;
  const lock = join(dir, ".blackbox-installing");
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // released between the two calls
      }
      if (age > STALE_MS) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) {
        throw new Error(`gave up waiting for another test's npm ci in ${dir} (remove ${lock} if no test is running)`);
      } else sleep(250);
    }
  }
  try {
    if (installed(dir, hash)) return; // another worker finished it while this one waited
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: "ignore", timeout: 180_000 });
    writeFileSync(join(dir, "node_modules", MARKER), hash);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
