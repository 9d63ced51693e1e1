/**
 * The cassette store: the only code that reads or writes cassette files.
 * Writes are atomic (temp file beside the target, fsync, rename).
 *
 * Just over ~300 lines: reading (size, decoding, the limits) and atomic writing (temp,
 * fsync, rename, stale temps) share the error texts that name the file; both are the store.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { CassetteLimitError, CassetteWriteError, TraceLoadError } from "../errors.js";
import { decodeCassette } from "../trace/decode.js";
import { DEFAULT_MAX_CASSETTE_MB, maxCassetteBytes, tooLargeMessage } from "../trace/limits.js";
import { parseTrace, parseTraceShared } from "../trace/parse.js";
import type { SharedValues } from "../trace/share.js";
import { cassetteText } from "./serialize.js";
import { removeStaleTemps } from "./staleTemps.js";
import type { Trace } from "../trace/types.js";

export { maxCassetteBytes };
/** The default size limit (BLACKBOX_MAX_CASSETTE_MB changes it: maxCassetteBytes()). */
export const MAX_CASSETTE_BYTES = DEFAULT_MAX_CASSETTE_MB * 1024 * 1024;

function statError(file: string, error: unknown): TraceLoadError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT")
    return new TraceLoadError(
      `cassette ${file} does not exist. Check the path (record a run first with \`blackbox record\`).`,
      { file },
    );
  if (code === "EACCES" || code === "EPERM")
    return new TraceLoadError(`cassette ${file} cannot be read (permission denied). Fix its permissions.`, { file });
  return new TraceLoadError(`cassette ${file} cannot be read (${(error as Error).message}). Check the path.`, { file });
}

/** The refusal of a cassette over maxCassetteBytes() (a file, a pipe, stdin): checked before it is read. */
export function tooLarge(file: string, bytes: number): CassetteLimitError {
  return new CassetteLimitError(tooLargeMessage(`cassette ${file}`, bytes), { file, limit: "size" });
}

/**
 * What kind of special file `stat` is (a device, a socket), or undefined: such a file is never a cassette,
 * and /dev/zero would be read until memory runs out (a pipe may be one).
 */
export function specialFileKind(stat: fs.Stats): string | undefined {
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return stat.isSocket() ? "a socket" : undefined;
}

function checkStat(file: string, stat: fs.Stats): void {
  if (stat.isDirectory())
    throw new TraceLoadError(`cassette ${file} is a directory, not a file. Pass the path of a cassette .json file.`, {
      file,
    });
  const kind = specialFileKind(stat);
  if (kind !== undefined)
    throw new TraceLoadError(
      `cassette ${file} is not a regular file (${kind}). Pass the path of a cassette .json file.`,
      { file },
    );
  if (stat.size > maxCassetteBytes()) throw tooLarge(file, stat.size);
}

/**
 * A pipe (`diff <(git show HEAD:run.json) run.json`, or a named pipe) is read without
 * blocking: a named pipe that nothing writes to would otherwise hang the command. Until
 * the first byte arrives, an empty read may only mean the writer has not opened its end
 * yet, so it waits up to PIPE_GRACE_MS for one; after that, an empty read is the end.
 */
const PIPE_GRACE_MS = 1000;
const PIPE_POLL_MS = 10;

function emptyPipe(file: string): TraceLoadError {
  return new TraceLoadError(
    `cassette ${file} is a named pipe and nothing was written to it. Pass the path of a cassette .json file, or write the cassette into the pipe.`,
    {
      file,
    },
  );
}

function isAgain(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EAGAIN" || code === "EWOULDBLOCK";
}

interface PipeState {
  limit: number;
  chunks: Buffer[];
  total: number;
  waited: number;
}

/**
 * Takes one read's result (bytes read, or null: a writer is there but has nothing yet);
 * "done" at the end, "wait" when the next read should wait a moment.
 */
function pipeStep(file: string, state: PipeState, buffer: Buffer, n: number | null): "done" | "wait" | "more" {
  if (n === null) return "wait";
  if (n === 0) {
    if (state.total > 0) return "done";
    if (state.waited >= PIPE_GRACE_MS) throw emptyPipe(file);
    state.waited += PIPE_POLL_MS;
    return "wait";
  }
  state.chunks.push(Buffer.from(buffer.subarray(0, n)));
  state.total += n;
  if (state.total > state.limit) throw tooLarge(file, state.total);
  return "more";
}

async function readPipe(file: string): Promise<Buffer> {
  const handle = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const state: PipeState = { limit: maxCassetteBytes(), chunks: [], total: 0, waited: 0 };
  const buffer = Buffer.alloc(1 << 16);
  try {
    for (;;) {
      let n: number | null;
      try {
        n = (await handle.read(buffer, 0, buffer.length, null)).bytesRead;
      } catch (error) {
        if (!isAgain(error)) throw error;
        n = null;
      }
      const next = pipeStep(file, state, buffer, n);
      if (next === "done") break;
      if (next === "wait") await new Promise((r) => setTimeout(r, PIPE_POLL_MS));
    }
  } finally {
    await handle.close();
  }
  return Buffer.concat(state.chunks);
}

function readPipeSync(file: string): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const state: PipeState = { limit: maxCassetteBytes(), chunks: [], total: 0, waited: 0 };
  const buffer = Buffer.alloc(1 << 16);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  try {
    for (;;) {
      let n: number | null;
      try {
        n = fs.readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if (!isAgain(error)) throw error;
        n = null;
      }
      const next = pipeStep(file, state, buffer, n);
      if (next === "done") break;
      if (next === "wait") Atomics.wait(sleeper, 0, 0, PIPE_POLL_MS);
    }
  } finally {
    fs.closeSync(fd);
  }
  return Buffer.concat(state.chunks);
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
  let bytes: Buffer;
  try {
    bytes = stat.isFIFO() ? await readPipe(file) : await fsp.readFile(file);
  } catch (error) {
    if (error instanceof TraceLoadError) throw error;
    throw statError(file, error);
  }
  return decodeCassette(bytes, file);
}

export function readCassetteTextSync(file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw statError(file, error);
  }
  checkStat(file, stat);
  let bytes: Buffer;
  try {
    bytes = stat.isFIFO() ? readPipeSync(file) : fs.readFileSync(file);
  } catch (error) {
    if (error instanceof TraceLoadError) throw error;
    throw statError(file, error);
  }
  return decodeCassette(bytes, file);
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

/** The JSON text of a cassette (src/store/serialize.ts), with a trailing newline. */
export function serializeTrace(trace: Trace): string {
  return cassetteText(trace);
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
  return new CassetteWriteError(
    `cannot write cassette ${file} (${e.code ?? e.message}): ${hint}. Any previous file there is unchanged.`,
    {
      cause: error,
    },
  );
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
  writeTextAtomicSync(file, serializeOrThrow(file, trace));
}

/** `text` written to `file` atomically (a temp file beside it, fsync, rename): the old file or the new, never half. */
export function writeTextAtomicSync(file: string, text: string): void {
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
