/**
 * Where `verify`, `diff` and `show` read a cassette: a path, or `-` for stdin
 * (`git show HEAD:runs/trip.json | blackbox diff - runs/trip.json`).
 */
import { isAbsolute, relative } from "node:path";
import type { Command } from "commander";
import { loadTrace, maxCassetteBytes, readCassetteText, tooLarge } from "../store/index.js";
import { TraceLoadError } from "../errors.js";
import { decodeCassette } from "../trace/decode.js";
import { parseTrace } from "../trace/parse.js";
import { requireReadable } from "./usage.js";
import type { Trace } from "../trace/types.js";

export const STDIN = "-";
/** What to pass instead of a cassette that cannot be read. */
export const CASSETTE_HINT = "pass the path of a recorded cassette, or - for stdin";

/** A usage error (exit 2) unless each file argument other than `-` can be read. */
export function requireCassettes(cmd: Command, files: readonly string[]): void {
  for (const file of files) if (file !== STDIN) requireReadable(cmd, file, "cassette", CASSETTE_HINT);
}

/** The name a cassette read from stdin goes by in messages. */
export const STDIN_LABEL = "(stdin)";

const pipeHint = (verb: string): string => `Pipe a cassette in, e.g. git show HEAD:run.json | blackbox ${verb} -`;

async function readStdin(verb: string): Promise<string> {
  if (process.stdin.isTTY)
    throw new TraceLoadError(`- reads the cassette from stdin, but stdin is a terminal. ${pipeHint(verb)}`);
  const chunks: Buffer[] = [];
  let total = 0;
  const limit = maxCassetteBytes();
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw tooLarge(STDIN_LABEL, total);
    chunks.push(chunk);
  }
  const text = decodeCassette(Buffer.concat(chunks), STDIN_LABEL);
  if (text.trim() === "")
    throw new TraceLoadError(`cassette ${STDIN_LABEL} is not valid JSON (it is empty). ${pipeHint(verb)}`);
  return text;
}

/** The text of the cassette at `file`, or of stdin for `-`. */
export function readCliCassetteText(file: string, verb: string): Promise<string> {
  return file === STDIN ? readStdin(verb) : readCassetteText(file);
}

/** A path as the user would type it from here: relative when it is under the working folder. */
export function shownPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** The name to put in messages about `file`. */
export function cassetteLabel(file: string): string {
  return file === STDIN ? STDIN_LABEL : file;
}

/** loadTrace, or stdin for `-`. */
export async function loadCliTrace(file: string, verb: string): Promise<Trace> {
  return file === STDIN ? parseTrace(await readStdin(verb), STDIN_LABEL) : loadTrace(file);
}

/** stdin can be read once: `-` twice is a usage error. */
export function checkOneStdin(files: readonly string[], cmd: Command): void {
  if (files.filter((f) => f === STDIN).length > 1) {
    cmd.error("error: - (stdin) can be given only once; save one of the cassettes to a file", { exitCode: 2 });
  }
}
