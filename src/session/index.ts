export { createSession, SessionImpl } from "./session.js";
export type * from "./types.js";
