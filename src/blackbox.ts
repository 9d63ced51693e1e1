/**
 * `blackbox()`: a session with the library's ports (cassette files, the process end, the
 * environment) and its door for the SDKs' `fetch` option.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { commandOf } from "./process/command.js";
import { onProcessExit } from "./process/exit.js";
import { processSession } from "./process/session.js";
import { publicSession } from "./publicSession.js";

export { publicSession };
import { SessionEngine } from "./session/engine.js";
import { resolveAuto } from "./session/modes/resolve.js";
import { checkOptions } from "./session/options.js";
import type { Session, SessionOptions, SessionPorts } from "./session/types.js";
import { namesFolder, readText, sameFile } from "./store/files.js";
import { loadRunSync, writeRunIndexSync } from "./store/run.js";
import { RunSession, type RunPorts } from "./session/run.js";
import { loadVerifiedTraceSync } from "./store/loadVerified.js";
import { writeCassetteSync } from "./store/write.js";

/** The library's side effects: cassettes verified on load and write, the process end, the environment. */
export function libraryPorts(): SessionPorts {
  return {
    loadCassette: loadVerifiedTraceSync,
    writeCassette: writeCassetteSync,
    readsPrevious: true,
    readText,
    sameFile,
    env: process.env,
    onProcessExit,
    failDivergedReplayAtExit: true,
    warn: (message) => void process.stderr.write(`blackbox: warning: ${message}\n`),
  };
}

/** A session engine (what the doors and hooks are given); `ports`: the library's unless given. */
export function createSession(options: SessionOptions = {}, ports: SessionPorts = libraryPorts()): SessionEngine {
  return new SessionEngine(options, ports);
}

/**
 * A Blackbox session: `bb.fetch` for the SDKs' `fetch` option, `bb.tools()` /
 * `bb.tool()` for the agent's tools, `bb.finish()` to end the run.
 *
 * Without a `mode`, it is the session the register hook made for this process
 * (`blackbox record|replay|fork -- <command>`), or a session in mode "off" that
 * records nothing and changes nothing. Mode "auto" replays `cassette` or records it, by
 * the record mode (`record`, BLACKBOX_RECORD, CI: src/session/modes/resolve.ts).
 */
export function blackbox(options: SessionOptions = {}): Session {
  checkOptions(options);
  if (options.mode === undefined) {
    const existing = processSession();
    if (existing) return existing;
  }
  const resolved = autoResolved(options);
  return publicSession(runFolderOf(resolved) ? createRun(resolved) : createSession(resolved));
}

/** The run folder the options name (record's `out`, replay's `cassette` ending in `/` or a folder), if any. */
function runFolderOf(options: SessionOptions): string | undefined {
  const p = options.mode === "record" ? options.out : options.mode === "replay" ? options.cassette : undefined;
  return namesFolder(p) ? p : undefined;
}

/**
 * A run of several conversations written into (or replayed from) a folder (docs/conversations.md); `shape`
 * "file": recorded into a cassette file while it holds one conversation (as the register hook records).
 */
export function createRun(
  options: SessionOptions,
  ports: SessionPorts = libraryPorts(),
  shape: "folder" | "file" = "folder",
): RunSession {
  return new RunSession(options, runPorts(ports), shape);
}

/** A session's ports and a run's folder: its index read and written. */
export function runPorts(ports: SessionPorts): RunPorts {
  return { ...ports, writeRunIndex: writeRunIndexSync, loadRun: loadRunSync, join };
}

/** Mode "auto" made record or replay, by the cassette on disk and the environment; other options as given. */
export function autoResolved(options: SessionOptions, command: string = commandOf()): SessionOptions {
  return resolveAuto(options, process.env, existsSync, { command });
}
