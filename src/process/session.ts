import { PROCESS_SESSION } from "../globals.js";
import type { Session } from "../session/types.js";

/** The session the register hook made for this process, if any (shared by two package copies). */
export function processSession(): Session | undefined {
  return (globalThis as unknown as Record<symbol, Session | undefined>)[PROCESS_SESSION];
}

export function setProcessSession(session: Session): void {
  (globalThis as unknown as Record<symbol, Session | undefined>)[PROCESS_SESSION] = session;
}
