/**
 * The processes a command started, read from /proc (Linux), so that a signal the CLI
 * gets reaches the agent under `npm start` or `sh -c`, not only the wrapper. Nothing
 * is moved to another process group: the command stays in the terminal's foreground
 * group and can read it. Elsewhere (no /proc) the lists are empty and the CLI signals
 * its direct child alone, as before.
 */
import { readdirSync, readFileSync } from "node:fs";

interface Stat {
  pid: number;
  ppid: number;
  pgrp: number;
  ttyNr: number;
  tpgid: number;
}

/** `/proc/<pid>/stat` fields 1, 4, 5, 7, 8 (comm, field 2, may hold spaces and parentheses). */
function readStat(pid: number | "self"): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  const rest = text.slice(close + 2).split(" "); // state ppid pgrp session tty_nr tpgid ...
  return {
    pid: Number(text.slice(0, text.indexOf(" "))),
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    ttyNr: Number(rest[4]),
    tpgid: Number(rest[5]),
  };
}

/** Every live descendant of `root` (not `root` itself), parents before children; [] without /proc. */
export function descendants(root: number): Stat[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, Stat[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (!stat) continue;
    const list = children.get(stat.ppid);
    if (list) list.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  const out: Stat[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/**
 * This process's group when it is its terminal's foreground group (a Ctrl-C there reaches
 * every process of that group from the kernel itself); else undefined.
 */
export function foregroundGroup(): number | undefined {
  const self = readStat("self");
  return self && self.ttyNr !== 0 && self.tpgid === self.pgrp ? self.pgrp : undefined;
}

/** The group of one process, or undefined when it is gone or there is no /proc. */
export function groupOf(pid: number): number | undefined {
  return readStat(pid)?.pgrp;
}
