/** The player's schedule: the wait on each step from the recorded gaps, the speed, the cap and the beat. */
import { describe, expect, it } from "vitest";
import { BEAT_MS, GAP_CAP_MS, schedule, SPEEDS, stepDelay } from "../../../src/view/ui/playback.js";

const at = (...times: number[]) => times.map((timestamp) => ({ timestamp }));

// a run: a quick tool round, a model call of a minute, a one-second call, two steps in one millisecond
const run = at(1000, 1300, 1500, 61_500, 62_500, 62_500, 63_000);

describe("schedule", () => {
  it("waits at 1x the recorded gaps, in their order, a gap over the cap played as the cap", () => {
    expect(schedule(run, 0, 1)).toEqual([300, 200, GAP_CAP_MS, 1000, BEAT_MS, 500]);
    expect(GAP_CAP_MS).toBe(2000);
  });

  it("divides the waits and the cap by the speed, never below a beat", () => {
    expect(schedule(run, 0, 2)).toEqual([150, 100, 1000, 500, BEAT_MS, 250]);
    expect(schedule(run, 0, 10)).toEqual([30, 20, 200, 100, BEAT_MS, 50]);
  });

  it("plays every step for one beat at max", () => {
    expect(schedule(run, 0, "max")).toEqual(Array(run.length - 1).fill(BEAT_MS));
  });

  it("starts from the step given, and has nothing to wait for on the last", () => {
    expect(schedule(run, 3, 1)).toEqual([1000, BEAT_MS, 500]);
    expect(schedule(run, run.length - 1, 1)).toEqual([]);
    expect(stepDelay(run, run.length - 1, 1)).toBeUndefined();
    expect(schedule(at(5), 0, 1)).toEqual([]);
    expect(schedule([], 0, 1)).toEqual([]);
  });

  it("waits a beat where the clock went back or a timestamp is not a number", () => {
    expect(schedule(at(5000, 4000, Number.NaN, 4100), 0, 1)).toEqual([BEAT_MS, BEAT_MS, BEAT_MS]);
  });

  it("offers 1x, 2x, 10x and max", () => {
    expect(SPEEDS).toEqual([1, 2, 10, "max"]);
  });
});
