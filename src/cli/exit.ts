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

/** Writes a value as stable, pretty JSON to stdout. */
export function outJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
