/**
 * What the built-in agent loop talks to: one `generate` per model turn.
 * The transcript types live in src/trace/types.ts (the cassette format); they are
 * re-exported here because this is where the agent side reads them.
 */
import type { ModelInput, ModelOutput } from "../trace/types.js";

export type {
  MessagePart,
  TextPart,
  ToolUsePart,
  ToolResultPart,
  ToolResultSuccessPart,
  ToolResultErrorPart,
  Message,
  ModelInput,
  ModelOutput,
  ToolDefinition,
  SingleToolCallOutput,
  ToolCallsOutput,
  FinalAnswerOutput,
} from "../trace/types.js";

export interface ModelClient {
  generate(input: ModelInput): Promise<ModelOutput>;
}

/**
 * Answers each turn with the next output of a fixed list. The loop assigns the
 * toolCallIds itself, so scripted outputs may carry any id (or an empty one).
 */
export class ScriptedModelClient implements ModelClient {
  private next = 0;
  constructor(private readonly outputs: readonly ModelOutput[]) {}

  async generate(_input: ModelInput): Promise<ModelOutput> {
    const output = this.outputs[this.next];
    if (output === undefined) {
      throw new Error(
        `The scripted model has no answer for turn ${this.next + 1}: its script holds ${this.outputs.length} output(s). ` +
          `Add more outputs to the script, or end it with a final_answer.`,
      );
    }
    this.next++;
    return structuredClone(output);
  }

  /** How many outputs have been used. */
  get used(): number {
    return this.next;
  }
}
