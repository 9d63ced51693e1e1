/**
 * Fork: the recording's prefix is replayed (every request compared) up to the fork
 * point, a tool_result; there the tool gets the replacement result; after it the run goes
 * on live (to the provider) or from a script. The child cassette holds the prefix verbatim,
 * the replacement at the fork point, then what the run did next.
 */
import { BlackboxError, BlackboxUnsupportedError, ForkError } from "../../errors.js";
import { TraceBuilder } from "../../trace/builder.js";
import { callIndex, maxCallIndex } from "../../trace/payloads.js";
import type { JsonValue } from "../../trace/types.js";
import { liveModelCall } from "../live.js";
import { checkForkOut, continueWithOf, forkPointOf, requireCassette, traceIdOf } from "../options.js";
import { Recorder } from "../recorder.js";
import { recordedOutcome, Replayer } from "../replayer.js";
import { RecordRound, type RecordedPair } from "../rounds.js";
import { loadScript, withIds } from "../script.js";
import { jsonEqual } from "../json.js";
import { divergence, ReplaySource } from "../source.js";
import { checkReplayedTools } from "../unseen.js";
import type { EngineContext, ModelCall, SessionMode } from "./mode.js";

export function forkMode(engine: EngineContext): SessionMode {
  const { options, ports } = engine;
  checkForkOut(options, ports.sameFile);
  const parent = ports.loadCassette(requireCassette(options));
  const unseen = checkReplayedTools(parent, engine.strictTools, options.cassette!);
  if (unseen) ports.warn?.(unseen);
  const source = new ReplaySource(parent, options.match ?? "strict");
  source.unwrapped = () => engine.unwrappedTools();
  const replayer = new Replayer(engine, source);
  const forkAt = forkPointOf(parent, options);
  /**
   * The replacement result, copied once: neither the caller's object nor the agent's copy can change what is
   * written.
   */
  const forkValue = structuredClone(options.forkSet as JsonValue);
  const live = continueWithOf(options) === "live";
  const script = live ? [] : loadScript(options.script, ports.readText);
  let pastFork = false;

  /** The child's builder: the prefix copied verbatim; call-N goes on past the ids in it. */
  const child = (): TraceBuilder => {
    const builder = new TraceBuilder({
      id: traceIdOf(options),
      createdAt: engine.now(),
      parentId: parent.id,
      forkedFromStepId: parent.steps[forkAt]!.id,
      steps: parent.steps.slice(0, forkAt),
    });
    engine.ids.seedPast(maxCallIndex(parent.steps.slice(0, forkAt)));
    return builder;
  };
  const recorder = new Recorder(engine, child, { at: forkAt, value: forkValue });

  /** The round holding the fork point, as a record round over the recorded calls. */
  const forkRound = (): RecordRound => {
    if (recorder.round) return recorder.round;
    const round = new RecordRound([]);
    for (const pair of source.round) {
      const c = pair.callStep.payload as { toolCallId: string; toolName: string; toolInput: JsonValue };
      const entry = round.add({ toolCallId: c.toolCallId, toolName: c.toolName, toolInput: c.toolInput });
      entry.claimed = false;
      entry.recorded = { callStep: pair.callStep, resultStep: pair.resultStep! };
      entry.forkPoint = pair.resultStep?.index === forkAt;
      // a call of the copied prefix is the agent's to make still if it has not made it yet (it may call the
      // round's tools in another order than the model listed them)
      if (pair.resultStep && pair.resultStep.index < forkAt) entry.claimed = pair.consumed;
    }
    // the recorded pairs at or after the fork point are now the fork's to record
    for (const pair of source.round) if (pair.resultStep && pair.resultStep.index >= forkAt) pair.consumed = true;
    recorder.round = round;
    return round;
  };

  /** A tool of the fork round at or after the fork point: the fork value, or a live run. */
  const forkTool = (pair: RecordedPair, input: JsonValue, run: () => unknown): Promise<unknown> => {
    const entry = forkRound().entries.find((e) => e.recorded?.callStep === pair.callStep)!;
    entry.claimed = true;
    if (pair.resultStep!.index === forkAt) {
      entry.outcome = { result: forkValue };
      pastFork = true;
      return Promise.resolve(structuredClone(forkValue));
    }
    const p = pair.callStep.payload as { toolName: string };
    return recorder.tool(p.toolName, input, live ? run : () => recordedOutcome(pair), entry);
  };

  /**
   * A tool called past the fork point. A call of the fork's round the agent makes as recorded (same name,
   * arguments as the recording holds them: through the redaction rules) is answered from the parent when it is
   * in the copied prefix (its result comes before the fork point) or the fork goes on from a script: nothing
   * runs. Any other runs, or with `scriptedTools: "refuse"` (a sweep's children) is refused.
   */
  const pastForkTool = (name: string, input: JsonValue, run: () => unknown): Promise<unknown> => {
    const redacted = engine.redactor.payload("tool_call", { toolName: name, toolInput: input }) as {
      toolInput: JsonValue;
    };
    const entry = recorder.round?.entries.find(
      (e) =>
        e.recorded &&
        !e.claimed &&
        !e.forkPoint &&
        e.call.toolName === name &&
        jsonEqual(e.call.toolInput, redacted.toolInput) &&
        (!live || e.recorded.resultStep.index < forkAt),
    );
    if (entry) {
      entry.claimed = true;
      const n = callIndex(entry.call.toolCallId);
      if (n >= 0) engine.ids.seedPast(n); // a later scripted or live call-N goes past it, as in a replay
      const pair = { callStep: entry.recorded!.callStep, resultStep: entry.recorded!.resultStep, consumed: true };
      return recorder.tool(name, input, () => recordedOutcome(pair), entry);
    }
    if (live) return recorder.tool(name, input, run);
    if (options.scriptedTools === "refuse") {
      const text = JSON.stringify(input) ?? "undefined";
      const err = new ForkError(
        `a scripted sweep child runs no tool, and the agent called ${name}(${text.length > 80 ? `${text.slice(0, 77)}...` : text}), which ${options.cassette} does not record in the fork's round: continue the sweep live, or end the script before the agent needs a tool`,
      );
      engine.firstError ??= err;
      return Promise.reject(err);
    }
    return recorder.tool(name, input, run);
  };

  /** After the fork point: the next scripted output, or the provider. */
  const continued = (call: ModelCall) => {
    recorder.flush();
    const startedAt = engine.now();
    if (!live) {
      const entry = script.shift();
      if (!entry) {
        throw new ForkError(
          `the fork script ran out: the agent made another model call after the ${engine.seq - source.modelCalls} scripted output(s). Add outputs to the script, ending with { "type": "final_answer", "text": "..." }.`,
        );
      }
      recorder.steps(); // seeds call-N past the copied prefix
      const output = withIds(entry, () => engine.ids.fresh());
      recorder.model(call.parsed, output, startedAt);
      return engine.respond(call.provider, output, call.parsed);
    }
    if (engine.thinkingSeen) {
      throw new BlackboxUnsupportedError(
        "fork --live of a thinking-enabled run is refused: the cassette leaves thinking blocks (Anthropic) and thought signatures (Gemini) out, and the API requires them on tool-use turns. Continue the fork with --script instead.",
      );
    }
    return liveModelCall(engine, recorder, call, startedAt);
  };

  return {
    name: "fork",
    writes: true,
    haltsOnError: true,
    replaying: () => !pastFork,
    forwardsOther: () => live,
    model(call) {
      if (pastFork) return continued(call);
      if (source.cursor > forkAt) {
        throw divergence(
          parent.steps[forkAt],
          `the agent made its next model call without calling the wrapped tool whose result is the fork point (step ${forkAt})`,
          {},
          source.match,
        );
      }
      return replayer.model(call);
    },
    tool(name, input, run) {
      if (pastFork) return pastForkTool(name, input, run);
      try {
        const pair = replayer.toolPair(name, input);
        if (pair.resultStep && pair.resultStep.index >= forkAt) return forkTool(pair, input, run);
        return Promise.resolve(recordedOutcome(pair));
      } catch (err) {
        if (err instanceof BlackboxError) engine.firstError ??= err;
        throw err;
      }
    },
    end(outcome, atExit) {
      if (!pastFork) {
        throw divergence(
          parent.steps[forkAt],
          `the agent ended before reaching the fork point: it never called the wrapped tool whose result is step ${forkAt}`,
          {},
          source.match,
        );
      }
      recorder.write(outcome, atExit);
    },
  };
}
