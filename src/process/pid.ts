import { readdirSync, readFileSync, readlinkSync } from "node:fs";

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

let ownNamespace: string | null | undefined;
/** This process's pid namespace (Linux), "" where it cannot be read. */
export function pidNamespace(): string {
  if (ownNamespace === undefined) {
    try {
      ownNamespace = readlinkSync("/proc/self/ns/pid").replace(/\D/g, "");
    } catch {
      ownNamespace = null;
    }
  }
  return ownNamespace ?? "";
}

/** The kernel's initial pid namespace (PROC_PID_INIT_INO): every other one is below it. */
const INIT_PID_NAMESPACE = "4026531836";

/**
 * Whether `pid`, of pid namespace `ns` ("" when not known), is alive. A pid of another
 * namespace (a command run under `unshare -p`, a sandbox) means nothing here: undefined.
 * From the initial namespace every other one is below and in view: there it is false once
 * no process is left in that namespace (it ended with them). From a nested one, the other
 * may be above, out of sight: undefined.
 */
export function aliveIn(pid: number, ns: string): boolean | undefined {
  const mine = pidNamespace();
  if (ns !== "" && mine !== "" && ns !== mine)
    return mine === INIT_PID_NAMESPACE && !namespaceInUse(ns) ? false : undefined;
  return pidAlive(pid);
}

/** Whether any process this one can see is in pid namespace `ns` (a scan of /proc, on the rare conflict paths only). */
function namespaceInUse(ns: string): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  const link = `pid:[${ns}]`;
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readlinkSync(`/proc/${e}/ns/pid`) !== link) continue;
      const stat = readFileSync(`/proc/${e}/stat`, "latin1");
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") return true; // a zombie is gone
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}
