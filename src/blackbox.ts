import { createSession } from "./session/session.js";
import type { Session, SessionOptions } from "./session/types.js";

/** Where the register hook keeps the process's session (shared by two package copies). */
export const PROCESS_SESSION_KEY = Symbol.for("ardaulas.blackbox.session.v1");

export function processSession(): Session | undefined {
  return (globalThis as unknown as Record<symbol, Session | undefined>)[PROCESS_SESSION_KEY];
}

/**
 * A Blackbox session: `bb.fetch` for the SDKs' `fetch` option, `bb.tools()` /
 * `bb.tool()` for the agent's tools, `bb.finish()` to end the run.
 *
 * Without a `mode`, it is the session the register hook made for this process
 * (`blackbox record|replay|fork -- <command>`), or a session in mode "off" that
 * records nothing and changes nothing.
 */
export function blackbox(options: SessionOptions = {}): Session {
  if (options.mode === undefined) {
    const existing = processSession();
    if (existing) return existing;
  }
  return createSession(options);
}
