import { forkMode } from "./fork.js";
import type { EngineContext, SessionMode } from "./mode.js";
import { offMode } from "./off.js";
import { recordMode } from "./record.js";
import { replayMode } from "./replay.js";

const MODES: Record<EngineContext["mode"], (engine: EngineContext) => SessionMode> = {
  off: () => offMode,
  record: recordMode,
  replay: replayMode,
  fork: forkMode,
};

/** The mode object of the engine's options (checked already: one of MODES). */
export function createMode(engine: EngineContext): SessionMode {
  return MODES[engine.mode](engine);
}
