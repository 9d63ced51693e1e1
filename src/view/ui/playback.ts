/**
 * Play-back at the recorded pace, the pure part: how long the player waits on a step
 * before it moves to the next, from the two steps' timestamps, a speed and a cap. The
 * timeline runs the timer (Timeline.tsx); this file takes nothing from the page, so a unit
 * test reads the schedule without a browser.
 */

/** A multiple of the recorded pace, or "max": every step for one beat, whatever was recorded. */
export type Speed = 1 | 2 | 10 | "max";

export const SPEEDS: readonly Speed[] = [1, 2, 10, "max"];

/**
 * The longest a gap between two steps plays for at 1x (at 2x it plays for half that): a run
 * whose model call took a minute does not look stuck.
 */
export const GAP_CAP_MS = 2000;

/**
 * The shortest a step is shown for, about a frame: steps recorded in the same millisecond
 * are still drawn one after the other. "max" shows every step for this long.
 */
export const BEAT_MS = 16;

/**
 * The real time to wait on step `i` before moving to step `i + 1`: the recorded gap between
 * their timestamps (none when the clock went back), capped at GAP_CAP_MS, divided by the
 * speed, and at least BEAT_MS. Undefined on the last step: there is nothing to move to.
 */
export function stepDelay(steps: readonly { timestamp: number }[], i: number, speed: Speed): number | undefined {
  const here = steps[i];
  const next = steps[i + 1];
  if (here === undefined || next === undefined) return undefined;
  if (speed === "max") return BEAT_MS;
  const gap = next.timestamp - here.timestamp;
  const recorded = Number.isFinite(gap) ? Math.max(0, gap) : 0;
  return Math.max(BEAT_MS, Math.min(recorded, GAP_CAP_MS) / speed);
}

/** The waits of a play-back from step `from` to the last step, one for each move. */
export function schedule(steps: readonly { timestamp: number }[], from: number, speed: Speed): number[] {
  const waits: number[] = [];
  for (let i = Math.max(0, from); i < steps.length - 1; i++) waits.push(stepDelay(steps, i, speed)!);
  return waits;
}

export function speedLabel(speed: Speed): string {
  return speed === "max" ? "max" : `${speed}x`;
}
