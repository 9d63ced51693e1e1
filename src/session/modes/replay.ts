/**
 * Replay: every model call and wrapped tool is answered from the cassette; nothing is sent or run; the end
 * checks the run.
 */
import { BlackboxError } from "../../errors.js";
import { requireCassette } from "../options.js";
import { recordedOutcome, Replayer } from "../replayer.js";
import { ReplaySource } from "../source.js";
import { checkReplayedTools } from "../unseen.js";
import type { EngineContext, SessionMode } from "./mode.js";

export function replayMode(engine: EngineContext): SessionMode {
  const options = engine.options;
  const cassette = requireCassette(options);
  const recording = engine.ports.loadCassette(cassette);
  const unseen = checkReplayedTools(recording, engine.strictTools, cassette);
  if (unseen) engine.ports.warn?.(unseen);
  const update = options.updateCommand !== undefined ? { cassette, command: options.updateCommand } : undefined;
  const source = new ReplaySource(recording, options.match ?? "strict", update);
  source.unwrapped = () => engine.unwrappedTools();
  const replayer = new Replayer(engine, source);
  return {
    name: "replay",
    writes: false,
    haltsOnError: true,
    replaying: () => true,
    forwardsOther: () => false,
    model: (call) => replayer.model(call),
    tool(name, input) {
      try {
        return Promise.resolve(recordedOutcome(replayer.toolPair(name, input)));
      } catch (err) {
        if (err instanceof BlackboxError) engine.firstError ??= err;
        throw err;
      }
    },
    end: (outcome) => replayer.checkEnd(outcome),
    expectsTool: (name, input) => replayer.expectsTool(name, input),
    nextInput: () => replayer.nextInput(),
  };
}
