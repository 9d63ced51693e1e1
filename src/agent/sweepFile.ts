/**
 * The sweep file (`<out>/sweep.json`): the matrix with each child cassette's path relative
 * to the file's folder, so the folder can move. Written whole (a temp file, then a rename).
 */
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { SWEEP_FILE_KIND, type SweepResult } from "./sweepMatrix.js";

export const SWEEP_FILE_NAME = "sweep.json";

const posix = (p: string) => p.split("\\").join("/");

/** The result as the file holds it: paths relative to `file`'s folder. */
export function toFileForm(result: SweepResult, file: string): SweepResult {
  const dir = dirname(resolve(file));
  const rel = (p: string) => posix(relative(dir, p));
  return {
    ...result,
    parent: { ...result.parent, cassette: rel(result.parent.cassette) },
    cells: result.cells.map((c) => ({ ...c, cassette: c.cassette === null ? null : rel(c.cassette) })),
  };
}

/** The file's result with absolute paths. */
export function fromFileForm(result: SweepResult, file: string): SweepResult {
  const dir = dirname(resolve(file));
  const abs = (p: string) => (isAbsolute(p) ? p : join(dir, p));
  return {
    ...result,
    parent: { ...result.parent, cassette: abs(result.parent.cassette) },
    cells: result.cells.map((c) => ({ ...c, cassette: c.cassette === null ? null : abs(c.cassette) })),
  };
}

export function writeSweepFile(file: string, result: SweepResult): void {
  const text = `${JSON.stringify(toFileForm(result, file), null, 2)}\n`;
  const tmp = join(dirname(file), `.sweep.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: "wx" });
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Whether parsed JSON is a sweep file. */
export function isSweepFile(value: unknown): value is SweepResult {
  return (
    value !== null &&
    typeof value === "object" &&
    (value as { kind?: unknown }).kind === SWEEP_FILE_KIND &&
    Array.isArray((value as { cells?: unknown }).cells)
  );
}

/** The sweep file at `file` with absolute paths, or undefined when there is none (or it is not one). */
export function readSweepFile(file: string): SweepResult | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  return isSweepFile(value) ? fromFileForm(value, file) : undefined;
}
