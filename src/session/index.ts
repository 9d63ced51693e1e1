// The session with its cassette loader and writer provided up front (src/session/lazy.ts):
// what the library and replay/fork use. The register hook's record mode imports
// session.js alone and loads the writer at the first call.
import { loadTraceSync } from "../edges/store.js";
import { provideSessionModules } from "./lazy.js";
import { writeCassetteSync } from "./write.js";

provideSessionModules({ loadTraceSync, writeCassetteSync });

export { createSession, SessionImpl } from "./session.js";
export type * from "./types.js";
