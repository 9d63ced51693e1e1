/**
 * Every request control "What replay compares" lists, for each provider: a change of
 * its value makes strict replay report `params.<neutral name>`; its absence on both
 * sides is no difference.
 */
import { describe, expect, it } from "vitest";
import { anthropicProvider } from "../../../src/providers/anthropic/index.js";
import { compareModelInput } from "../../../src/providers/shared/compare.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { openaiProvider } from "../../../src/providers/openai/index.js";
import type { ProviderAdapter } from "../../../src/providers/types.js";

type Row = [wire: string, a: unknown, b: unknown, neutral: string];

const anthropicRows: Row[] = [
  ["max_tokens", 100, 200, "maxTokens"],
  ["temperature", 0.2, 0.7, "temperature"],
  ["top_p", 0.9, 0.5, "topP"],
  ["top_k", 5, 50, "topK"],
  ["tool_choice", { type: "auto" }, { type: "any" }, "toolChoice"],
  ["stop_sequences", ["END"], ["STOP"], "stopSequences"],
  ["output_config", { effort: "low" }, { effort: "high" }, "outputConfig"],
  ["thinking", { type: "enabled", budget_tokens: 1024 }, { type: "enabled", budget_tokens: 2048 }, "thinking"],
];

const openaiRows: Row[] = [
  ["max_tokens", 100, 200, "maxTokens"],
  ["max_completion_tokens", 100, 200, "maxTokens"],
  ["temperature", 0.2, 0.7, "temperature"],
  ["top_p", 0.9, 0.5, "topP"],
  ["tool_choice", "auto", "required", "toolChoice"],
  ["response_format", { type: "text" }, { type: "json_object" }, "responseFormat"],
  ["stop", ["END"], ["STOP"], "stopSequences"],
  ["parallel_tool_calls", true, false, "parallelToolCalls"],
  ["seed", 1, 2, "seed"],
  ["reasoning_effort", "low", "high", "reasoningEffort"],
  ["presence_penalty", 0, 0.5, "presencePenalty"],
  ["frequency_penalty", 0, 0.5, "frequencyPenalty"],
  ["logit_bias", { "50256": -100 }, { "50256": 100 }, "logitBias"],
  ["top_logprobs", 1, 2, "topLogprobs"],
  ["verbosity", "low", "high", "verbosity"],
  ["prediction", { type: "content", content: "a" }, { type: "content", content: "b" }, "prediction"],
  ["modalities", ["text"], [], "modalities"],
];

function input(adapter: ProviderAdapter, extra: Record<string, unknown>) {
  const base =
    adapter.name === "anthropic"
      ? { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }
      : { model: "m", messages: [{ role: "user", content: "hi" }] };
  return adapter.parseRequest({ ...base, ...extra }, new ToolCallIds()).input;
}

describe.each([
  ["anthropic", anthropicProvider, anthropicRows],
  ["openai", openaiProvider, openaiRows],
] as const)("%s", (_name, adapter, rows) => {
  it.each(rows)("%s: a changed value is reported at its neutral path", (wire, a, b, neutral) => {
    const d = compareModelInput(input(adapter, { [wire]: a }), input(adapter, { [wire]: b }));
    expect(d?.path).toMatch(new RegExp(`^params\\.${neutral}`));
  });

  it.each(rows)("%s: the same value on both sides is no difference", (wire, a) => {
    expect(compareModelInput(input(adapter, { [wire]: a }), input(adapter, { [wire]: a }))).toBeUndefined();
  });
});

it("OpenAI max_tokens and max_completion_tokens are one control", () => {
  const a = input(openaiProvider, { max_tokens: 100 });
  const b = input(openaiProvider, { max_completion_tokens: 100 });
  expect(compareModelInput(a, b)).toBeUndefined();
});
