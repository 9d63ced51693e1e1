// The session: one engine and its modes. Its side effects come in as ports; src/blackbox.ts
// (the library) and src/register.ts (the hook) provide them.
export { SessionEngine } from "./engine.js";
export type * from "./types.js";
