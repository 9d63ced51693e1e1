import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isMainThread, threadId } from "node:worker_threads";
import { SessionError } from "../errors.js";
import { sha256Hex } from "../trace/canonical.js";
import { aliveIn, pidNamespace } from "./pid.js";

/**
 * Claims a cassette for this process, so that two processes of one process tree
 * (say npm and the agent it starts, both loading the hook) never both write it.
 * A lock file in the temp folder, keyed by the cassette's absolute path, holds the
 * owner's pid and thread (a worker thread runs a hook and a session of its own, under
 * its process's pid); a lock whose owner is gone is taken over. Returns the release.
 *
 * A run (`run`: BLACKBOX_RUN, one token per `blackbox record|replay|fork`, or made by
 * the first hooked process of a tree under the bare hook, runToken()) starts with the
 * pid of its root: the CLI, or that first process. A released lock stays, marked done
 * for that run, so a later process of the same run is refused instead of clobbering the
 * cassette; the root removes it (`endRunClaim`). Once the root is gone the run is over:
 * its processes claim nothing more, write nothing more (`claimLostReason`), and a lock
 * they still hold may be taken over by another run.
 */
export function lockPathFor(path: string): string {
  const abs = resolve(path);
  return join(locksDir(), `${sha256Hex(abs).slice(0, 32)}.lock`);
}

/**
 * The folder of the locks and marks: the one a run's root named (BLACKBOX_LOCKS, set for
 * its processes, so a command that changes TMPDIR still finds them), else the temp folder's.
 */
export function locksDir(): string {
  return process.env.BLACKBOX_LOCKS || join(tmpdir(), "blackbox-locks");
}

/** A new run token: the root's pid and pid namespace first (so its processes can tell when the run is over). */
export function runToken(): string {
  return `${process.pid}-${pidNamespace() || "x"}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** The root process of a run and its pid namespace, when the token names them. */
function rootOf(run: string): { pid: number; ns: string } | undefined {
  const m = /^(\d+)-(\d+|x)-/.exec(run);
  return m ? { pid: Number(m[1]), ns: m[2] === "x" ? "" : m[2]! } : undefined;
}

/** The run's root is gone (never said of a root this process cannot see: another pid namespace). */
export function runOver(run: string): boolean {
  const root = rootOf(run);
  if (root === undefined || (root.pid === process.pid && root.ns === pidNamespace())) return false;
  return aliveIn(root.pid, root.ns) === false;
}

interface LockText {
  owner: number;
  run: string | undefined;
  /** The owner's pid namespace ("" when not known). */
  ns: string;
  /** The owner's thread in its process (worker_threads threadId; 0: the main thread). */
  thread: number;
}

/** This process and thread, as a refusal names it. */
function self(): string {
  return isMainThread ? `process ${process.pid}` : `worker thread ${threadId} of process ${process.pid}`;
}

/** Whether a lock names this very process and thread. */
const isMine = (l: LockText): boolean => l.owner === process.pid && l.thread === threadId;

function readLock(lock: string): LockText | undefined {
  let text: string;
  try {
    text = readFileSync(lock, "utf8");
  } catch {
    return undefined;
  }
  const [ownerText = "", run, ns = "", thread = "0"] = text.trim().split(" ");
  return {
    owner: Number(ownerText),
    run: run === "-" ? undefined : run,
    ns: ns === "x" ? "" : ns,
    thread: Number(thread) || 0,
  };
}

/** A lock's text: owner pid (0: released, done for the run), run ("-": none), the owner's pid namespace, its thread. */
function lockText(owner: number, run: string | undefined): string {
  return `${owner} ${run ?? "-"} ${pidNamespace() || "x"} ${owner === 0 ? 0 : threadId}`;
}

/** Whether a lock's owner may still be running (alive, or in a pid namespace this process cannot see). */
const ownerMayLive = (l: LockText): boolean => l.owner > 0 && aliveIn(l.owner, l.ns) !== false;

export function claimCassette(path: string, run: string | undefined = process.env.BLACKBOX_RUN): () => void {
  const abs = resolve(path);
  const lock = lockPathFor(abs);
  if (run && runOver(run)) {
    throw new SessionError(
      `the blackbox run that started process ${process.pid} (process ${rootOf(run)?.pid}) has ended, so its calls are not recorded and ${abs} is left as it is. ` +
        "Keep the agent in the foreground of the command blackbox runs (no `&`, no detached process), or run it under blackbox again.",
    );
  }
  mkdirSync(locksDir(), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, lockText(process.pid, run));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const now = readLock(lock);
        if (!now || !isMine(now) || now.run !== run) return; // another run took it over: its lock now
        if (run && !runOver(run)) writeFileSync(lock, lockText(0, run));
        else rmSync(lock, { force: true }); // no run, or nobody is left to remove the mark
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const held = readLock(lock) ?? { owner: 0, run: undefined, ns: "", thread: 0 };
      const { owner, run: ownerRun } = held;
      if (run && ownerRun === run && !isMine(held) && !ownerMayLive(held)) {
        throw new SessionError(
          `another process of this run already made model or tool calls under one cassette (${abs}) and wrote it; now ${self()} makes calls too. ` +
            "Blackbox records one process per cassette: run the agent process alone under blackbox, or record each process separately.",
        );
      }
      if (owner === process.pid && held.thread !== threadId && ownerRun === run) {
        // another thread of this process and run (its pid is alive: this one's) made calls first, running or not
        const first = held.thread === 0 ? "its main thread" : `worker thread ${held.thread}`;
        throw new SessionError(
          `two threads of process ${process.pid} are making model or tool calls under one cassette (${abs}): ${first} already did, and now ${isMainThread ? "its main thread" : `worker thread ${threadId}`}. ` +
            "Blackbox records one thread per cassette: run one agent (one worker thread) under blackbox, or give each its own cassette (blackbox({ out }) in that thread).",
        );
      }
      // A live owner of a run that is over (its CLI was killed) is a stale writer: take the lock over.
      const stale = ownerRun !== undefined && ownerRun !== run && runOver(ownerRun);
      if (owner && owner !== process.pid && ownerMayLive(held) && !stale) {
        throw new SessionError(
          `two processes are making model or tool calls under one cassette (${abs}): process ${owner} already did, and now ${self()}. ` +
            "Blackbox records one process per cassette: run the agent process alone under blackbox, or give each process its own cassette (blackbox({ out })).",
        );
      }
      rmSync(lock, { force: true });
    }
  }
  throw new SessionError(`could not claim the cassette ${abs}: its lock file kept changing; try again`);
}

/**
 * Why this process no longer holds the claim it made on `path` (claimCassette), or
 * undefined while it does: the lock must still name its pid and run, and the run's
 * root must still be there. A process that lost it must not write the cassette.
 */
export function claimLostReason(path: string, run: string | undefined = process.env.BLACKBOX_RUN): string | undefined {
  const lock = readLock(lockPathFor(path));
  if (!lock) return "its lock was removed: the blackbox run that started this process ended before it did";
  if (!isMine(lock) || lock.run !== run) {
    return lock.owner && lock.run !== run
      ? `process ${lock.owner} of another run claimed the cassette since`
      : "the lock no longer names this process";
  }
  if (run && runOver(run)) return `the blackbox run that started this process (process ${rootOf(run)?.pid}) has ended`;
  return undefined;
}

/** Throws when this process may not write `path` any more (claimLostReason). */
export function assertClaimHeld(path: string): void {
  const why = claimLostReason(path);
  if (why === undefined) return;
  throw new SessionError(
    `not writing the cassette ${resolve(path)}: ${self()} no longer holds its claim on it (${why}), so the file there is left as it is. ` +
      "Let blackbox wait for the agent (do not background it or kill blackbox itself), then record again.",
  );
}

/**
 * Whether a process of `run` claimed `path`, the pid still holding that claim (alive), if
 * any, and the process (and thread: 0, its main thread) of a holder that is gone without
 * having released it (`unfinished`: it never wrote or checked the cassette at its end:
 * killed with SIGKILL, or a worker thread terminated, or cut short by its process's end).
 */
export function runClaim(
  path: string,
  run: string,
): { claimed: boolean; holder: number | undefined; unfinished: Unfinished | undefined } {
  const lock = readLock(lockPathFor(path));
  if (!lock || lock.run !== run) return { claimed: false, holder: undefined, unfinished: undefined };
  // a holder of another pid namespace cannot be waited for from here (it ends with that namespace's command)
  const visible =
    lock.owner > 0 && lock.owner !== process.pid && aliveIn(lock.owner, lock.ns) === true && startedIn(lock.owner, run);
  // a thread of this process that is gone by this process's end, or a process known to be gone
  const gone =
    lock.owner > 0 && (lock.owner === process.pid ? lock.thread !== threadId : aliveIn(lock.owner, lock.ns) === false);
  return {
    claimed: true,
    holder: visible ? lock.owner : undefined,
    unfinished: gone ? { pid: lock.owner, thread: lock.thread } : undefined,
  };
}

/** A process (or one of its worker threads) of a run that claimed the cassette and ended without releasing it. */
export interface Unfinished {
  pid: number;
  /** worker_threads threadId; 0: the main thread. */
  thread: number;
}

/**
 * What an unfinished holder did and what to do instead, as a message: `what` is the step it
 * never reached. A worker thread is ended without its end-of-run step by anything that ends
 * its process first, a signal (Ctrl-C, SIGTERM) as much as process.exit(); a main thread
 * runs that step on those, so only SIGKILL (or a crash) cuts it short.
 */
export function unfinishedWhy(u: Unfinished, what: string, again: string): string {
  if (u.thread !== 0) {
    return (
      `process ${u.pid} made model or tool calls but ended before ${what}: it made them in its worker thread ${u.thread}, which was terminated (worker.terminate()) ` +
      `or cut short when the process ended first (process.exit(), or a signal such as Ctrl-C or SIGTERM: a worker thread's run ends only when the thread itself ends). ` +
      `Let that thread end on its own before its process ends, then ${again}`
    );
  }
  return `process ${u.pid} made model or tool calls but ended before ${what}: it was killed (SIGKILL) or crashed (a fatal error, such as running out of memory). Let that process end on its own, or on Ctrl-C or SIGTERM, then ${again}`;
}

/**
 * Whether process `pid` was started in `run` (its environment from exec names the run), so
 * that a pid the system reused for another process after the holder died is not waited
 * for. True where that cannot be read (no /proc, another user's process).
 */
function startedIn(pid: number, run: string): boolean {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return true;
  }
  return environ.split("\0").includes(`BLACKBOX_RUN=${run}`);
}

/**
 * The run's end, by its root: whether a process of the run claimed `path`, and the pid of
 * one that ended without finishing its run (runClaim's `unfinished`); the run's lock is removed.
 */
export function endRunClaim(path: string, run: string): { claimed: boolean; unfinished: Unfinished | undefined } {
  const { claimed, unfinished } = runClaim(path, run);
  if (claimed) rmSync(lockPathFor(path), { force: true }); // only the run's own: another run's claim stays
  return { claimed, unfinished };
}
