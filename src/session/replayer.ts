/**
 * Answers from a recording: each model call gets the recorded reply (its request compared
 * in strict mode), each wrapped tool the recorded result, without running. What replay
 * does throughout, and a fork before its fork point.
 */
import { callIndex } from "../trace/payloads.js";
import type { JsonValue, ModelInput, TerminalPayload } from "../trace/types.js";
import { jsonEqual } from "./json.js";
import type { EngineContext, ModelCall } from "./modes/mode.js";
import type { RecordedPair } from "./rounds.js";
import { divergence, ReplaySource } from "./source.js";
import type { HttpResponseLike } from "./types.js";

export class Replayer {
  constructor(
    private readonly engine: EngineContext,
    readonly source: ReplaySource,
  ) {}

  model(call: ModelCall): HttpResponseLike {
    const engine = this.engine;
    // the recording holds placeholders where the agent sends the real values: compare through the same rules
    const redactor = engine.redactor;
    const actual = redactor.payload("model_input", call.parsed.input as unknown as JsonValue) as unknown as ModelInput;
    const { output } = this.source.nextModel(actual, (recorded, actual) => engine.requests.compare(recorded, actual));
    redactor.observe(output as unknown as JsonValue);
    engine.lastOutput = output;
    return engine.respond(call.provider, output, call.parsed);
  }

  /** The recorded call a wrapped tool's call answers (by name, and arguments in strict mode). */
  toolPair(name: string, input: JsonValue): RecordedPair {
    const redactor = this.engine.redactor;
    const redacted = redactor.payload("tool_call", { toolName: name, toolInput: input }) as { toolInput: JsonValue };
    const pair = this.source.nextTool(name, redacted.toolInput);
    if (pair.resultStep) redactor.observe(pair.resultStep.payload);
    // Keep run-local numbering where the recording had it: a tool the model did not
    // request took the next call-N when it was recorded.
    const n = callIndex((pair.callStep.payload as { toolCallId: string }).toolCallId);
    if (n >= 0) this.engine.ids.seedPast(n);
    return pair;
  }

  /** The current round holds tool `name`, not yet served: "args" with these arguments (as recorded, redacted), else "name". */
  expectsTool(name: string, input: JsonValue): "args" | "name" | undefined {
    const free = this.source.round.filter(
      (p) => !p.consumed && (p.callStep.payload as { toolName: string }).toolName === name,
    );
    if (free.length === 0) return undefined;
    const redacted = this.engine.redactor.payload("tool_call", { toolName: name, toolInput: input }) as {
      toolInput: JsonValue;
    };
    const same = free.some((p) =>
      jsonEqual((p.callStep.payload as { toolInput: JsonValue }).toolInput, redacted.toolInput),
    );
    return same ? "args" : "name";
  }

  /** The recording's next model request, when its next step is one (the round before it served), else undefined. */
  nextInput(): ModelInput | undefined {
    const source = this.source;
    if (source.round.some((p) => !p.consumed)) return undefined;
    const step = source.steps[source.cursor];
    return step?.type === "model_input" ? (step.payload as unknown as ModelInput) : undefined;
  }

  /** The replay made every recorded call and ended as recorded. */
  checkEnd(outcome: TerminalPayload): void {
    const source = this.source;
    source.checkAllUsed();
    const terminal = source.terminal();
    const actual = this.engine.redactor.payload("metadata", outcome as unknown as JsonValue);
    if (terminal && !jsonEqual(terminal.payload, actual)) {
      const d = { path: "payload", recorded: terminal.payload, actual };
      throw divergence(terminal, "the run ended differently from the recording", d, source.match, source.update);
    }
  }
}

/**
 * A replayed tool's outcome: a copy of the recorded result (as record hands the agent a copy), so the agent's
 * edits never reach the cassette a fork copies its prefix from.
 */
export function recordedOutcome(pair: RecordedPair): unknown {
  const r = pair.resultStep?.payload as { result?: JsonValue; error?: string } | undefined;
  if (!r) return null;
  if (typeof r.error === "string") throw new Error(r.error);
  return structuredClone(r.result);
}
