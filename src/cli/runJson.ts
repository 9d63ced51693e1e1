/** The end of record, replay and fork: the --json summary on stdout, then the exit code. */
import { loadTrace } from "../store/index.js";
import { CliExit, outJson } from "./exit.js";
import type { RunSummary } from "./schemas.js";
import { isRunFolder, loadRun, runFolderSummary } from "./runFolder.js";
import { runSummary } from "./summary.js";

export const JSON_HELP =
  "print the run summary as JSON on stdout (docs/cli.md: JSON output); the command's own stdout goes to stderr";

/** The summary of the cassette at `file`, or null when it cannot be read. */
export async function summaryOf(file: string): Promise<RunSummary | null> {
  try {
    if (isRunFolder(file)) {
      const { index, traces } = loadRun(file);
      return runFolderSummary(index, traces);
    }
    return runSummary(await loadTrace(file));
  } catch {
    return null;
  }
}

/** Prints `value` under --json, then ends with `exitCode`. */
export function endRun(json: boolean | undefined, value: unknown, exitCode: number): void {
  if (json) outJson(value);
  if (exitCode !== 0) throw new CliExit(exitCode);
}
