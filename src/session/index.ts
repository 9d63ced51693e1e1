// The session with its cassette loader and writer provided up front (src/session/lazy.ts):
// what the library and replay/fork use. The register hook's record mode imports
// session.js alone and loads the writer at the first call.
import { provideSessionModules } from "./lazy.js";
import { loadVerifiedTraceSync } from "./loadVerified.js";
import { writeCassetteSync } from "./write.js";

provideSessionModules({ loadTraceSync: loadVerifiedTraceSync, writeCassetteSync });

export { createSession, SessionImpl } from "./session.js";
export type * from "./types.js";
