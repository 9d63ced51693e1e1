/** The timeline's filter: which steps each choice shows, and where the keys move among them. */
import { describe, expect, it } from "vitest";
import type { StepMeta, StepType } from "../../../src/view/model.js";
import { moveIn, shownSteps } from "../../../src/view/ui/stepFilter.js";

const step = (type: StepType, error = false): StepMeta => ({
  type,
  timestamp: 0,
  end: null,
  text: "",
  nested: false,
  error,
  model: null,
  hash: "",
  prevHash: null,
  size: 0,
});

// a model call, a tool round with an error, a model call, the outcome
const run = [
  step("model_input"),
  step("model_output"),
  step("tool_call"),
  step("tool_result", true),
  step("model_input"),
  step("model_output"),
  step("metadata"),
];

describe("shownSteps", () => {
  it("shows the steps of each kind, in order", () => {
    const none = new Set<number>();
    expect(shownSteps(run, "all", none)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(shownSteps(run, "model", none)).toEqual([0, 1, 4, 5]);
    expect(shownSteps(run, "tool", none)).toEqual([2, 3]);
    expect(shownSteps(run, "errors", none)).toEqual([3]);
    expect(shownSteps(run, "hits", new Set([5, 1]))).toEqual([1, 5]);
    expect(shownSteps(run, "hits", none)).toEqual([]);
  });
});

describe("moveIn", () => {
  const shown = [2, 3, 7, 9];
  it("moves a shown row at a time, stopping at the ends", () => {
    expect(moveIn(shown, 3, 1)).toBe(7);
    expect(moveIn(shown, 3, -1)).toBe(2);
    expect(moveIn(shown, 2, -1)).toBe(2);
    expect(moveIn(shown, 9, 20)).toBe(9);
    expect(moveIn(shown, 2, 20)).toBe(9);
    expect(moveIn(shown, 7, "first")).toBe(2);
    expect(moveIn(shown, 2, "last")).toBe(9);
  });

  it("from a hidden step goes to the shown step after it, or back to the one before", () => {
    expect(moveIn(shown, 5, 1)).toBe(7);
    expect(moveIn(shown, 5, -1)).toBe(3);
    expect(moveIn(shown, 0, 1)).toBe(2);
    expect(moveIn(shown, 0, -1)).toBe(2);
    expect(moveIn(shown, 12, -1)).toBe(9);
    expect(moveIn(shown, 12, 1)).toBe(9);
  });

  it("keeps the step when nothing is shown", () => {
    expect(moveIn([], 4, 1)).toBe(4);
    expect(moveIn([], 4, "last")).toBe(4);
  });
});
