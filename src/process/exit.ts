/**
 * Process end, seen once for every live session: normal exit (with its code), an
 * uncaught exception or unhandled rejection, SIGINT, SIGTERM and SIGHUP (a closed
 * terminal, or `blackbox` passing one on: ended like SIGTERM, exit code 129; an app that
 * goes on after it, as a reload, has its run ended there all the same: another listener
 * cannot be told from a library's that re-raises the signal, as signal-exit does, once it
 * is the last). Listeners are
 * installed once per process (state on a global symbol, so two copies of the package
 * share it) and removed when the last session is gone.
 */
import { PROCESS_EXIT } from "../globals.js";
import type { ExitInfo } from "../session/types.js";
import { markReported } from "./reported.js";

export type { ExitInfo };
export type ExitSignal = NonNullable<ExitInfo["signal"]>;
export type ExitHandler = (info: ExitInfo) => void;

interface ExitState {
  handlers: Set<ExitHandler>;
  uncaught: unknown;
  undo: (() => void) | undefined;
}

const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;

function state(): ExitState {
  const g = globalThis as unknown as Record<symbol, ExitState | undefined>;
  return (g[PROCESS_EXIT] ??= { handlers: new Set(), uncaught: undefined, undo: undefined });
}

function runAll(info: ExitInfo): void {
  const s = state();
  for (const h of [...s.handlers]) {
    s.handlers.delete(h);
    try {
      h(info);
    } catch (err) {
      process.stderr.write(`blackbox: ${(err as Error).message}\n`);
      markReported(undefined, err); // the CLI (or the run's first process) adds no guess of its own
      if (!process.exitCode) process.exitCode = 1;
    }
  }
}

function install(s: ExitState): void {
  const onExit = (code: number): void => {
    runAll({ exitCode: typeof process.exitCode === "number" ? process.exitCode : code, uncaught: s.uncaught });
  };
  const onUncaught = (err: unknown): void => {
    s.uncaught = err;
  };
  const onSignal = (signal: ExitSignal): void => {
    runAll({ exitCode: 128 + SIGNALS[signal], signal, uncaught: s.uncaught });
    uninstall();
    // Nobody else handles it: end the way the signal would have ended us.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const listeners = (Object.keys(SIGNALS) as ExitSignal[]).map(
    (signal) => [signal, (): void => onSignal(signal)] as const,
  );
  process.on("exit", onExit);
  process.on("uncaughtExceptionMonitor", onUncaught);
  for (const [signal, listener] of listeners) process.on(signal, listener);
  const uninstall = (): void => {
    process.off("exit", onExit);
    process.off("uncaughtExceptionMonitor", onUncaught);
    for (const [signal, listener] of listeners) process.off(signal, listener);
    s.undo = undefined;
  };
  s.undo = uninstall;
}

/** Calls `handler` once at process end; returns the undo. */
export function onProcessExit(handler: ExitHandler): () => void {
  const s = state();
  s.handlers.add(handler);
  if (!s.undo) install(s);
  return () => {
    s.handlers.delete(handler);
    if (s.handlers.size === 0 && s.undo) s.undo();
  };
}
