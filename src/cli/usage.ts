/**
 * Usage errors (exit 2): one line saying what is wrong and what to do, then the command's
 * usage line, on stderr, never the whole help. A file argument that does not exist or
 * cannot be read is one too, checked before anything runs.
 */
import { accessSync, constants, statSync, type Stats } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { specialFileKind } from "../store/index.js";
import { missingCassette } from "./exit.js";
import { isRunFolder } from "./runFolder.js";

/** `usage: blackbox replay [options] <cassette> [command...]  (blackbox replay --help: the options)` */
export function usageLine(cmd: Command): string {
  const name = cmd.parent ? `blackbox ${cmd.name()}` : "blackbox";
  return `usage: ${name} ${cmd.usage()}  (${name} --help: every option)`;
}

/**
 * Commander's errors in one line: its suggestion (`(Did you mean --json?)`) on the line of
 * the error. Set before the commands are made, which inherit it.
 */
export function oneLineErrors(program: Command): void {
  program.configureOutput({
    outputError: (text, write) => write(text.replace(/\n\(Did you mean (.*)\?\)/, " (did you mean $1?)")),
  });
}

/** Every usage error of `program` and its commands ends with the usage line, not the help. */
export function usageAfterErrors(program: Command): void {
  for (const cmd of [program, ...program.commands]) cmd.showHelpAfterError(usageLine(cmd));
}

/** Ends the command with a usage error: `message` (starting `error: `), the usage line, exit 2. */
export function usageError(cmd: Command, message: string): never {
  cmd.error(message.startsWith("error: ") ? message : `error: ${message}`, { exitCode: 2 });
}

/** Why `file` cannot be read as a file (missing, a folder, no permission), or undefined. */
export function unreadable(file: string, what: string): string | undefined {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return `${what} ${file} does not exist`;
    return `${what} ${file} cannot be read (${code ?? (error as Error).message})`;
  }
  if (stat.isDirectory())
    return isRunFolder(file)
      ? `${what} ${file} is a run of several conversations (a folder holding run.json), not a cassette file: this command reads one of its conversations, e.g. ${join(file, "conversation-01.json")}`
      : `${what} ${file} is a folder, not a file`;
  const kind = specialFileKind(stat);
  if (kind !== undefined) return `${what} ${file} is not a regular file (${kind})`;
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return `${what} ${file} cannot be read (permission denied); fix its permissions`;
  }
  return undefined;
}

/** A usage error unless `file` can be read; `hint` says what to pass instead. */
export function requireReadable(cmd: Command, file: string, what: string, hint: string): void {
  const why = unreadable(file, what);
  if (why !== undefined) usageError(cmd, `${why}; ${hint}`);
}

/** A usage error unless the cassette at `file` can be read (`given` is how it was typed). */
export function requireCassette(cmd: Command, file: string, given: string, verb: string): void {
  const why = unreadable(file, "cassette");
  if (why === undefined) return;
  usageError(cmd, why.endsWith("does not exist") ? missingCassette(file, given, process.argv, verb) : `error: ${why}`);
}

/** The help of --config (record, replay, fork). */
export const CONFIG_HELP =
  "config file (default: blackbox.config.{ts,mts,cts,js,mjs,cjs} in the current folder, for every process of the command that has none in its own folder)";

/** --config: the absolute path of a file that can be read (a usage error otherwise), or BLACKBOX_CONFIG. */
export function configPath(cmd: Command, given: string | undefined): string | undefined {
  if (given === undefined) return process.env.BLACKBOX_CONFIG;
  const file = resolve(given);
  requireReadable(cmd, file, "config", "pass the path of a blackbox.config file, or drop --config");
  return file;
}

let running: Command | undefined;

/** Remembers the command whose action runs, for the usage line of an error main() maps to 2. */
export function trackRunning(program: Command): void {
  program.hook("preAction", (_program, action) => {
    running = action;
  });
}

export function runningCommand(): Command | undefined {
  return running;
}

/**
 * The options that steer the hooked run of a command (--live, --script, --match, --config), refused when
 * there is none: the built-in demo agent has its own offline planner. `verb`: "forking", "sweeping".
 */
export function refuseCommandOptions(cmd: Command, verb: string): void {
  for (const [name, flag] of [
    ["live", "--live"],
    ["script", "--script"],
    ["match", "--match"],
    ["config", "--config"],
  ] as const) {
    if (cmd.getOptionValueSource(name) === "cli") {
      usageError(
        cmd,
        `error: ${flag} applies when ${verb} a command (after --); without one, the built-in demo agent goes on with its own offline planner. Drop ${flag}, or add -- <command>`,
      );
    }
  }
}
