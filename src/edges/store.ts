/**
 * The cassette store: the only code that reads or writes cassette files.
 * Writes are atomic (temp file beside the target, fsync, rename).
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { CassetteWriteError, TraceLoadError } from "../errors.js";
import { parseTrace, parseTraceShared } from "../trace/parse.js";
import type { SharedValues } from "../trace/share.js";
import { removeStaleTemps } from "./staleTemps.js";
import type { Trace } from "../trace/types.js";

/** Largest cassette loaded as one string (V8 strings stop near 512 MiB). */
export const MAX_CASSETTE_BYTES = 256 * 1024 * 1024;

function statError(file: string, error: unknown): TraceLoadError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new TraceLoadError(`cassette ${file} does not exist. Check the path (record a run first with \`blackbox record\`).`, { file });
  if (code === "EACCES" || code === "EPERM") return new TraceLoadError(`cassette ${file} cannot be read (permission denied). Fix its permissions.`, { file });
  return new TraceLoadError(`cassette ${file} cannot be read (${(error as Error).message}). Check the path.`, { file });
}

function checkStat(file: string, stat: fs.Stats): void {
  if (stat.isDirectory()) throw new TraceLoadError(`cassette ${file} is a directory, not a file. Pass the path of a cassette .json file.`, { file });
  if (stat.size > MAX_CASSETTE_BYTES) {
    const mib = (stat.size / 1024 / 1024).toFixed(1);
    throw new TraceLoadError(
      `cassette ${file} is too large to load (${mib} MiB; the limit is ${MAX_CASSETTE_BYTES / 1024 / 1024} MiB). Split the run into shorter runs or record less tool output.`,
      { file },
    );
  }
}

/** Reads the text of a cassette file, with the same checks as loadTrace. */
export async function readCassetteText(file: string): Promise<string> {
  let stat: fs.Stats;
  try {
    stat = await fsp.stat(file);
  } catch (error) {
    throw statError(file, error);
  }
  checkStat(file, stat);
  try {
    return await fsp.readFile(file, "utf8");
  } catch (error) {
    throw statError(file, error);
  }
}

export function readCassetteTextSync(file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw statError(file, error);
  }
  checkStat(file, stat);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw statError(file, error);
  }
}

export async function loadTrace(file: string): Promise<Trace> {
  return parseTrace(await readCassetteText(file), file);
}

export function loadTraceSync(file: string): Trace {
  return parseTrace(readCassetteTextSync(file), file);
}

/** loadTraceSync with the recorded history shared (parseTraceShared): what replay and fork load. */
export function loadTraceSharedSync(file: string): { trace: Trace; shared: SharedValues } {
  return parseTraceShared(readCassetteTextSync(file), file);
}

/** The JSON text of a cassette: 2-space indent and a trailing newline. */
export function serializeTrace(trace: Trace): string {
  return `${JSON.stringify(trace, null, 2)}\n`;
}

function tempPathFor(file: string): string {
  const dir = path.dirname(file);
  return path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/**
 * A recursive mkdir reports ENOENT under a read-only folder and EEXIST when a part of
 * the path is a file: find the real reason at the deepest part of the path that exists.
 */
function mkdirCode(file: string, e: NodeJS.ErrnoException): string | undefined {
  if (e.syscall !== "mkdir" || (e.code !== "ENOENT" && e.code !== "EEXIST")) return e.code;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    try {
      if (!fs.statSync(dir).isDirectory()) return "ENOTDIR";
      fs.accessSync(dir, fs.constants.W_OK);
      return e.code;
    } catch (probe) {
      const code = (probe as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return code;
    }
    if (path.dirname(dir) === dir) return e.code;
  }
}

function writeError(file: string, error: unknown): CassetteWriteError {
  const e = { ...(error as NodeJS.ErrnoException), message: (error as Error).message };
  e.code = mkdirCode(file, error as NodeJS.ErrnoException);
  const hint =
    e.code === "EACCES" || e.code === "EPERM" || e.code === "EROFS"
      ? "make the folder writable or choose another output path"
      : e.code === "EISDIR" || e.code === "ENOTEMPTY"
        ? "the path is a directory; choose a file path such as run.json"
        : e.code === "ENOSPC"
          ? "free some disk space and run again"
          : e.code === "ENOTDIR"
            ? "a part of the path is a file, not a folder; choose another output path"
            : "check the output path and run again";
  return new CassetteWriteError(`cannot write cassette ${file} (${e.code ?? e.message}): ${hint}. Any previous file there is unchanged.`, {
    cause: error,
  });
}

function serializeOrThrow(file: string, trace: Trace): string {
  try {
    return serializeTrace(trace);
  } catch (error) {
    throw new CassetteWriteError(
      `cannot write cassette ${file}: the trace is not plain JSON (${(error as Error).message}). Keep payloads to JSON values (no BigInt, no cycles). Nothing was written.`,
      { cause: error },
    );
  }
}

export async function saveTrace(file: string, trace: Trace): Promise<void> {
  const text = serializeOrThrow(file, trace);
  const tmp = tempPathFor(file);
  removeStaleTemps(file);
  try {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const handle = await fsp.open(tmp, "wx");
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(tmp, file);
  } catch (error) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw writeError(file, error);
  }
}

export function saveTraceSync(file: string, trace: Trace): void {
  const text = serializeOrThrow(file, trace);
  const tmp = tempPathFor(file);
  removeStaleTemps(file);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(tmp, "wx");
    try {
      fs.writeFileSync(fd, text, "utf8");
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // the temp file may not exist; nothing else to clean
    }
    throw writeError(file, error);
  }
}
