/**
 * A test's cassette and the command that records it again, for any test runner: the
 * cassette is `__cassettes__/<test file>/<full test name>.json` beside the test file, the
 * command `<runner> <file> -t "<full test name>"` (vitest's and Jest's -t both take a
 * regular expression over the test's full name: its describe blocks and its own name).
 */
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";
import { shellWord } from "../process/command.js";

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

/** `<runner> <file> -t "<name>"` (runner: `npx vitest run`, `npx jest`), the file relative to the folder the runner runs in. */
export function runnerCommand(runner: string, testFile: string, name: string, cwd: string = process.cwd()): string {
  const file = relative(cwd, testFile) || testFile;
  return `${runner} ${shellWord(file)} -t ${namePattern(name)}`;
}
