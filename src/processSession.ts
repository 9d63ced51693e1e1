import type { Session } from "./session/types.js";

/** Where the register hook keeps the process's session (shared by two package copies). */
export const PROCESS_SESSION_KEY = Symbol.for("ardaulas.blackbox.session.v1");

export function processSession(): Session | undefined {
  return (globalThis as unknown as Record<symbol, Session | undefined>)[PROCESS_SESSION_KEY];
}

export function setProcessSession(session: Session): void {
  (globalThis as unknown as Record<symbol, Session | undefined>)[PROCESS_SESSION_KEY] = session;
}
