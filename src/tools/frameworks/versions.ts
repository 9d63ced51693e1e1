/** The version check of a framework target: `>=a.b.c <x.y.z`-style comparators, all of which must hold. */

function parts(version: string): number[] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** Whether `version` satisfies every comparator of `range` (a prerelease counts as its release). */
export function inRange(version: string, range: string): boolean {
  const v = parts(version);
  if (!v) return false;
  return range
    .split(/\s+/)
    .filter(Boolean)
    .every((c) => {
      const m = /^(>=|<=|>|<|=)?(.+)$/.exec(c);
      const bound = m && parts(m[2]!);
      if (!bound) return false;
      const d = compare(v, bound);
      return { ">=": d >= 0, "<=": d <= 0, ">": d > 0, "<": d < 0, "=": d === 0 }[m[1] ?? "="]!;
    });
}
