import { printableLines } from "../trace/printable.js";

/** Thrown by a command to end with an exit code after it printed its own output. */
export class CliExit extends Error {
  readonly exitCode: number;
  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.exitCode = exitCode;
  }
}

/** Writes a line to stdout. */
export function out(text = ""): void {
  process.stdout.write(`${text}\n`);
}

/**
 * Writes a value as stable, pretty JSON to stdout. Its lines go through printableLines: a
 * C1 control, bidi control or line separator can stand only inside a JSON string, and there
 * its \u escape is the same string, so the JSON is the same and safe on a terminal too.
 */
export function outJson(value: unknown): void {
  process.stdout.write(`${printableLines(JSON.stringify(value, null, 2))}\n`);
}

/**
 * The refusal for a missing cassette: `blackbox replay -- node agent.mjs` (the cassette
 * forgotten) makes commander read the command's first word as the cassette, so that case
 * says what to type instead of "cassette .../node does not exist".
 */
export function missingCassette(file: string, given: string, rawArgs: readonly string[], verb: string): string {
  if (given === "-") {
    return `error: blackbox ${verb} reads the cassette from a file, not from stdin (-): save it first, e.g. git show HEAD:runs/trip.json > trip.json`;
  }
  const dash = rawArgs.indexOf("--");
  if (dash >= 0 && rawArgs.indexOf(given, dash + 1) === dash + 1) {
    return `error: blackbox ${verb} needs the cassette before --, e.g. blackbox ${verb} runs/trip.json -- ${rawArgs.slice(dash + 1).join(" ")}`;
  }
  return `error: cassette ${file} does not exist; pass the path of a recorded cassette`;
}
