/**
 * A test's cassette and the commands that record it again, from the test's file and full
 * name: `__cassettes__/<test file>/<describe> <test>.json` beside the test file, and
 * `npx vitest run <file> -t "<describe> <test>"` (vitest's -t takes a regular expression
 * over the same full name).
 */
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";
import { shellWord } from "../process/command.js";

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

/** A cassette file name from a test name: characters no file system takes, or a shell would trip on, as "_". */
export function fileNameOf(name: string): string {
  // eslint-disable-next-line no-control-regex
  const safe = name
    .replace(/[/\\:*?"<>|\x00-\x1f\x7f]/g, "_")
    .replace(/^\.+/, "_")
    .trim();
  return (safe.slice(0, 200) || "unnamed") + ".json";
}

export function cassetteOf(testFile: string, name: string, folder = "__cassettes__"): string {
  const base = isAbsolute(folder) ? folder : resolve(dirname(testFile), folder);
  return resolve(base, basename(testFile), fileNameOf(name));
}

/**
 * A -t pattern that matches this name (the regular-expression characters that would not match themselves
 * escaped; a dot matches itself), quoted for a shell.
 */
function namePattern(name: string): string {
  const pattern = name.replace(/[*+?^${}()|[\]\\]/g, "\\$&");
  return /^[\w .,:@%+=#/-]*$/.test(pattern) && pattern !== "" ? `"${pattern}"` : shellWord(pattern);
}

/** `npx vitest run <file> -t "<name>"`, the file relative to the folder vitest runs in. */
export function vitestCommand(testFile: string, name: string, cwd: string = process.cwd()): string {
  const file = relative(cwd, testFile) || testFile;
  return `npx vitest run ${shellWord(file)} -t ${namePattern(name)}`;
}
