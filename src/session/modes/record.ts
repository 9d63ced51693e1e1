/**
 * Record: every model call goes to the provider and is recorded; wrapped tools run and are recorded; the end
 * writes the cassette.
 */
import { TraceBuilder } from "../../trace/builder.js";
import { keepUnchanged } from "../../trace/rerecord.js";
import type { Trace } from "../../trace/types.js";
import { jsonEqual } from "../json.js";
import { liveModelCall } from "../live.js";
import { requireOut, traceIdOf } from "../options.js";
import { Recorder } from "../recorder.js";
import type { EngineContext, SessionMode } from "./mode.js";

export function recordMode(engine: EngineContext): SessionMode {
  const options = engine.options;
  requireOut(options);
  const recorder = new Recorder(engine, new TraceBuilder({ id: traceIdOf(options), createdAt: engine.now() }));
  return {
    name: "record",
    writes: true,
    haltsOnError: false,
    replaying: () => false,
    forwardsOther: () => true,
    model(call) {
      recorder.flush();
      return liveModelCall(engine, recorder, call, engine.now());
    },
    tool: (name, input, run) => recorder.tool(name, input, run),
    roundEntries: () => recorder.round?.entries,
    expectsTool(name, input) {
      const free = recorder.round?.entries.filter((e) => !e.claimed && e.call.toolName === name) ?? [];
      if (free.length === 0) return undefined;
      return free.some((e) => jsonEqual(e.call.toolInput, input)) ? "args" : "name";
    },
    end: (outcome, atExit) => recorder.write(outcome, atExit, (trace) => overPrevious(engine, trace)),
  };
}

/**
 * A recording over a cassette keeps what did not change (src/trace/rerecord.ts): an unchanged run is the
 * previous cassette, written again as the same bytes (so the CLI, which checks that its run wrote the file,
 * sees it written). The previous cassette is read only where the session reads one (readsPrevious) and passes
 * verify.
 */
function overPrevious(engine: EngineContext, trace: Trace): Trace {
  let previous: Trace | undefined;
  try {
    previous = engine.ports.readsPrevious ? engine.ports.loadCassette(engine.options.out!) : undefined;
  } catch {
    previous = undefined; // none there, or one that fails verify: the new recording replaces it
  }
  return keepUnchanged(previous, trace);
}
