/**
 * CLI entry: runs the program and maps errors to exit codes (docs/cli.md, "Exit codes").
 * Usage errors exit 2: one line and the command's usage line on stderr (usage.ts). A file
 * that is not a cassette Blackbox can read (TraceLoadError) or a config that does not load
 * (BlackboxConfigError) is one too. Other Blackbox
 * errors print `blackbox: <message>` without a stack and exit 1.
 */
import { CommanderError } from "commander";
import { BlackboxConfigError, isBlackboxError, TraceLoadError } from "../errors.js";
import { printableLines } from "../trace/printable.js";
import { CliExit } from "./exit.js";
import { buildProgram } from "./program.js";
import { runningCommand, usageLine } from "./usage.js";

/** Runs the CLI with arguments (without `node` and the script) and resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CliExit) return error.exitCode;
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    // a file that is not a cassette, a config that does not load: the input, not the check
    if (error instanceof TraceLoadError || error instanceof BlackboxConfigError) {
      const cmd = runningCommand();
      process.stderr.write(`blackbox: ${printableLines(error.message)}\n${cmd ? `${usageLine(cmd)}\n` : ""}`);
      return 2;
    }
    if (isBlackboxError(error)) {
      process.stderr.write(`blackbox: ${printableLines((error as Error).message)}\n`);
      return 1;
    }
    throw error;
  }
}
