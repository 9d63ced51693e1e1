/**
 * A vitest test's full name and the command that records its cassette again:
 * `npx vitest run <file> -t "<describe> <test>"` (vitest's -t takes a regular expression
 * over the same full name). The cassette's path is src/testing/names.ts's, shared with Jest.
 */
import { runnerCommand } from "../testing/names.js";

export { cassetteOf, fileNameOf } from "../testing/names.js";

/** The parts of a vitest task read here (a test, its suites, its file). */
export interface TaskLike {
  name: string;
  suite?: TaskLike;
  file?: { filepath: string };
  filepath?: string;
  concurrent?: boolean;
  result?: { state?: string; errors?: Array<{ message?: string }> };
}

/** The test's name with its describe blocks, as vitest's -t matches it: "trip books Lisbon". */
export function fullTestName(test: TaskLike): string {
  const names: string[] = [];
  for (let t: TaskLike | undefined = test; t && t.filepath === undefined; t = t.suite) names.unshift(t.name);
  return names.join(" ");
}

/** `npx vitest run <file> -t "<name>"`, the file relative to the folder vitest runs in. */
export function vitestCommand(testFile: string, name: string, cwd: string = process.cwd()): string {
  return runnerCommand("npx vitest run", testFile, name, cwd);
}
