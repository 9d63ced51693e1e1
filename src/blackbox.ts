import { createSession } from "./session/index.js";
import { processSession } from "./processSession.js";
import { checkOptions } from "./session/setup.js";
import type { Session, SessionOptions } from "./session/types.js";


/**
 * A Blackbox session: `bb.fetch` for the SDKs' `fetch` option, `bb.tools()` /
 * `bb.tool()` for the agent's tools, `bb.finish()` to end the run.
 *
 * Without a `mode`, it is the session the register hook made for this process
 * (`blackbox record|replay|fork -- <command>`), or a session in mode "off" that
 * records nothing and changes nothing.
 */
export function blackbox(options: SessionOptions = {}): Session {
  checkOptions(options);
  if (options.mode === undefined) {
    const existing = processSession();
    if (existing) return existing;
  }
  return createSession(options);
}
