/**
 * The public face of a session engine, as `blackbox()` and the register hook hand it out:
 * bb.fetch, the tools (a framework's tool objects too), finish and dispose, and nothing of the doors'. Light: the hook's
 * record mode loads it at start-up.
 */
import { createFetch } from "./interception/fetch/door.js";
import type { SessionEngine } from "./session/engine.js";
import type { RunSession } from "./session/run.js";
import type { Session } from "./session/types.js";
import { sessionTools } from "./tools/objects.js";

/** The public face of an engine: bb.fetch, the tools, finish and dispose, and nothing of the doors'. */
export function publicSession(engine: SessionEngine | RunSession): Session {
  const fetch = createFetch(engine);
  const tool = engine.tool.bind(engine);
  const tools = engine.tools.bind(engine);
  return Object.freeze({
    get mode() {
      return engine.mode;
    },
    fetch,
    tools: ((t: Record<string, unknown>) =>
      sessionTools(
        {
          tool,
          tools,
          fail: (err) => engine.fail(err),
          get mcpLive() {
            return engine.mcpLive;
          },
          get lastOutput() {
            return engine.lastOutput;
          },
        },
        t,
      )) as Session["tools"],
    tool,
    finish: engine.finish.bind(engine),
    dispose: engine.dispose.bind(engine),
  } as Session);
}
