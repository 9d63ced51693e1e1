import { readFileSync } from "node:fs";

/**
 * True while a process with this pid exists (EPERM: it exists, owned by someone else).
 * A zombie (ended, not yet reaped: an orphan under an init that does not reap, as in
 * some containers) has ended: on Linux its /proc state says so.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  return !zombie(pid);
}

function zombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false; // gone since, or no /proc: kill(0) said it is there
  }
}
