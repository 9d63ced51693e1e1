/**
 * Running `<command...>` under the register hook: NODE_OPTIONS gains
 * `--import <register.mjs>`, the BLACKBOX_* variables are set, stdio is inherited,
 * SIGINT/SIGTERM/SIGHUP are passed on to the whole tree the command started, and the
 * child's exit code comes back (128 + signal number when a signal ended it).
 *
 * The tree: the direct child, its descendants (/proc on Linux, processTree.ts) and the
 * process holding the run's cassette claim (`holder`, which may have outlived a wrapper
 * such as `sh -c` or npm). The command keeps the CLI's process group, so an agent
 * reading the terminal still can. A Ctrl-C in the terminal already reaches every process
 * of the foreground group from the kernel, so SIGINT is not sent a second time to the
 * descendants in that group (the direct child gets it as before).
 */
import { spawn, type StdioOptions } from "node:child_process";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";
import { descendants, foregroundGroup, groupOf } from "./processTree.js";
import { setPlaceholderKeys } from "../config/env.js";

/** Absolute path of the package's register.mjs (dist/cli -> package root). */
export const REGISTER_PATH = fileURLToPath(new URL("../../register.mjs", import.meta.url));

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export function withPreload(nodeOptions: string | undefined): string {
  const flag = `--import ${JSON.stringify(REGISTER_PATH)}`;
  return nodeOptions && nodeOptions.trim() ? `${nodeOptions} ${flag}` : flag;
}

/** The child's environment: the caller's, the hook's variables, and placeholder keys when asked. */
export function hookedEnv(
  vars: Record<string, string | undefined>,
  options: { placeholderKeys?: boolean } = {},
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const key of Object.keys(env)) if (key.startsWith("BLACKBOX_")) delete env[key];
  if (base.BLACKBOX_CONFIG) env.BLACKBOX_CONFIG = base.BLACKBOX_CONFIG;
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
  env.NODE_OPTIONS = withPreload(base.NODE_OPTIONS);
  if (options.placeholderKeys) setPlaceholderKeys(env);
  return env;
}

export interface HookedOptions {
  /**
   * The live process holding the run's cassette claim, if any. It is signalled with the
   * tree, and the run ends only when it is gone (it writes the cassette at its exit).
   */
  holder?: () => number | undefined;
  /** The command's stdout goes to this process's stderr (under --json, where stdout is the JSON alone). */
  stdoutToStderr?: boolean;
}

/** The command's exit code, and whether it started at all (not: 127, command not found; 126, not executable). */
export interface HookedExit {
  code: number;
  started: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `signal` to `childPid`, its descendants and `holder`; a process already gone is skipped. */
function signalTree(childPid: number | undefined, signal: NodeJS.Signals, holder: number | undefined): void {
  if (childPid === undefined) return;
  // Read the tree before the child can die: its children would be re-parented and lost.
  const tree: Array<[number, number | undefined]> = descendants(childPid).map((p) => [p.pid, p.pgrp]);
  if (holder !== undefined && holder !== childPid) tree.push([holder, groupOf(holder)]);
  const keyboard = signal === "SIGINT" ? foregroundGroup() : undefined;
  const send = (pid: number) => {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  };
  send(childPid);
  const sent = new Set([childPid]);
  for (const [pid, group] of tree) {
    if (sent.has(pid) || (keyboard !== undefined && group === keyboard)) continue;
    sent.add(pid);
    send(pid);
  }
}

/**
 * Spawn the command and resolve to its exit code. A command that cannot start is one line
 * and 127 (not found) or 126 (found, not executable), as a shell says it.
 */
export function runHooked(command: string[], env: NodeJS.ProcessEnv, options: HookedOptions = {}): Promise<HookedExit> {
  return new Promise((resolve) => {
    const [file, ...args] = command;
    const stdio: StdioOptions = options.stdoutToStderr ? ["inherit", 2, "inherit"] : "inherit";
    const child = spawn(file!, args, { stdio, env });
    let exited = false;
    const forward = (signal: NodeJS.Signals) => () => {
      const holder = options.holder?.();
      if (!exited) signalTree(child.pid, signal, holder);
      else if (holder !== undefined) signalTree(holder, signal, undefined); // the child is gone, the holder is not
    };
    const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    let settled = false;
    const done = (code: number, started = true) => {
      if (settled) return;
      settled = true;
      for (const [signal, handler] of handlers) process.off(signal, handler);
      resolve({ code, started });
    };
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // it started: its exit is what counts
      const why =
        err.code === "ENOENT" ? "command not found" : err.code === "EACCES" ? "permission denied" : err.message;
      process.stderr.write(`blackbox: cannot run "${command.join(" ")}" (${why}); check the command after --\n`);
      done(err.code === "EACCES" ? 126 : 127, false);
    });
    child.on("exit", (code, signal) => {
      exited = true;
      const result = signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1);
      // A process of the run that still holds the claim is writing (or still making calls): wait for it.
      void (async () => {
        while (options.holder?.() !== undefined) await sleep(50);
        done(result);
      })();
    });
  });
}
