/**
 * CLI entry: runs the program and maps errors to exit codes. Usage errors
 * exit 2 (commander prints the error and the command's help); Blackbox errors
 * print `blackbox: <message>` without a stack and exit 1.
 */
import { CommanderError } from "commander";
import { isBlackboxError } from "../errors.js";
import { CliExit } from "./exit.js";
import { buildProgram } from "./program.js";

/** Runs the CLI with arguments (without `node` and the script) and resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CliExit) return error.exitCode;
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (isBlackboxError(error)) {
      process.stderr.write(`blackbox: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}
