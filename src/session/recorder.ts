/**
 * What record and fork write: model calls as they are answered, and each tool round's
 * steps in call order when the next model call starts (or at the end), whatever order the
 * tools finished in. The fork's copied prefix and its fork point are the builder's and
 * the round's (src/session/modes/fork.ts).
 */
import type { EngineContext } from "./modes/mode.js";
import { TraceBuilder } from "../trace/builder.js";
import { toolCallsOf } from "../trace/payloads.js";
import type { JsonValue, ModelOutput, TerminalPayload, Trace, TraceStepType } from "../trace/types.js";
import type { ParsedModelRequest } from "../providers/types.js";
import { errorMessageOf, toJsonValue } from "./json.js";
import { RecordRound, type RoundEntry } from "./rounds.js";
import { checkRecordedTools } from "./unseen.js";

export class Recorder {
  /** The tool round being recorded: the calls the last model output asked for. */
  round: RecordRound | undefined;
  private made: TraceBuilder | undefined;

  /**
   * `builder`: the builder (record makes it with the session) or how to make it at the first
   * step written (a fork child: its prefix copied, its createdAt when it starts).
   * `forkPoint`: the fork's step index and replacement result.
   */
  constructor(
    private readonly engine: EngineContext,
    private readonly builder: TraceBuilder | (() => TraceBuilder),
    private readonly forkPoint?: { at: number; value: JsonValue },
  ) {}

  /** The builder the steps go to (made now if it was not). */
  steps(): TraceBuilder {
    if (this.made) return this.made;
    this.made = typeof this.builder === "function" ? this.builder() : this.builder;
    return this.made;
  }

  model(parsed: ParsedModelRequest, output: ModelOutput, startedAt: number): void {
    const b = this.steps();
    this.put(b, "model_input", parsed.input as unknown as JsonValue, startedAt);
    this.put(b, "model_output", output as unknown as JsonValue, this.engine.now());
    this.engine.lastOutput = output;
    this.round = new RecordRound(toolCallsOf(output));
  }

  /** Runs and records a wrapped tool; `entry`: the round's entry it answers, when the caller knows (a fork round). */
  async tool(name: string, input: JsonValue, run: () => unknown, entry?: RoundEntry): Promise<unknown> {
    const engine = this.engine;
    const round = (this.round ??= new RecordRound([]));
    entry ??=
      round.claim(name, input) ?? round.add({ toolCallId: engine.ids.fresh(), toolName: name, toolInput: input });
    entry.call = { ...entry.call, toolInput: input };
    entry.startedAt = engine.now();
    entry.running = true;
    engine.toolsRunning++;
    try {
      const result = toJsonValue(
        await run(),
        `the result of tool "${name}"`,
        "return plain data (objects, arrays, strings, numbers) from the tool",
      );
      entry.outcome = { result };
      // the agent gets what a replay will give it (undefined as null, a Date as its string, an
      // instance as plain data), so record and replay agree; a copy: its edits stay out of the cassette
      return structuredClone(result);
    } catch (err) {
      entry.outcome = { error: errorMessageOf(err) };
      throw err;
    } finally {
      entry.running = false;
      entry.endedAt = engine.now();
      engine.toolsRunning--;
    }
  }

  /** Writes the current round's tool steps in call order. */
  flush(): void {
    const round = this.round;
    this.round = undefined;
    if (!round) return;
    const b = this.steps();
    const fork = this.forkPoint;
    for (const e of round.entries) {
      if (e.recorded && !e.forkPoint && fork && e.recorded.resultStep.index < fork.at) continue; // in the copied prefix
      if (e.forkPoint && fork) {
        const r = e.recorded!.resultStep;
        const p = r.payload as { toolCallId: string; toolName: string };
        this.put(b, "tool_result", { toolCallId: p.toolCallId, toolName: p.toolName, result: fork.value }, r.timestamp);
        continue;
      }
      if (!e.outcome) continue; // requested but never run: the agent stopped
      const { toolCallId, toolName, toolInput } = e.call;
      this.put(b, "tool_call", { toolCallId, toolName, toolInput }, e.startedAt);
      this.put(b, "tool_result", { toolCallId, toolName, ...e.outcome } as JsonValue, e.endedAt);
    }
  }

  /** Appends a step as it may be written: through the run's redaction rules, before its hash. */
  private put(b: TraceBuilder, type: TraceStepType, payload: JsonValue, timestamp: number): void {
    b.append(type, this.engine.redactor.payload(type, payload), timestamp);
  }

  /**
   * Ends the cassette with `outcome` and writes it; at process end, a tool still running has no result in it.
   * `final`: the trace to write instead (a re-recording keeping an unchanged prefix: src/trace/rerecord.ts).
   */
  write(outcome: TerminalPayload, atExit: boolean, final?: (trace: Trace) => Trace): void {
    const engine = this.engine;
    // its effects are not in the cassette
    if (atExit && this.round) for (const e of this.round.entries) if (e.running) e.outcome = undefined;
    this.flush();
    const b = this.steps();
    this.put(b, "metadata", outcome as unknown as JsonValue, engine.now());
    const out = engine.options.out!;
    // tools the agent ran outside Blackbox's view: refused with strictTools, else said (the CLI's closing line says it too)
    const unseen = checkRecordedTools(b.trace.steps, engine.strictTools, out);
    if (unseen) engine.ports.warn?.(`${out}: ${unseen}`);
    engine.ports.claim?.assertHeld(out); // a process whose run ended or was taken over must not clobber the file
    engine.ports.writeCassette(out, final ? final(b.trace) : b.trace, engine.keysSeen());
  }
}
