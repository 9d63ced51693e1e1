/**
 * Temp files a killed writer left beside a cassette. A save writes
 * `.<name>.<pid>.<12 hex>.tmp` and renames it over the target; SIGKILL between the
 * two leaves the temp file behind (nothing can run in a killed process). The next
 * save of the same target removes those whose writer process is gone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pidAlive } from "../process/pid.js";

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Removes the temp files of dead writers beside `file`; returns the names removed. Never throws. */
export function removeStaleTemps(file: string): string[] {
  const dir = path.dirname(file);
  const pattern = new RegExp(`^\\.${escapeRegExp(path.basename(file))}\\.(\\d+)\\.[0-9a-f]{12}\\.tmp$`);
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed; // no folder yet: nothing stale
  }
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || pidAlive(pid)) continue;
    try {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // best effort: a temp file we cannot remove does not stop the save
    }
  }
  return removed;
}
