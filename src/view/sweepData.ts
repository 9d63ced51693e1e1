/**
 * A sweep given to `blackbox view` (its folder, or its sweep.json): the sweep file read,
 * its children and its parent loaded as runs, and its matrix as the page's SweepMeta,
 * each cell naming the run it opens.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { readSweepFile, SWEEP_FILE_NAME } from "../agent/sweepFile.js";
import { summaryLine, type SweepResult } from "../agent/sweepMatrix.js";
import type { SweepMeta } from "./model.js";

const clip = (text: string, n = 200): string => (text.length > n ? `${text.slice(0, n - 3)}...` : text);
const json = (v: unknown): string => clip(JSON.stringify(v ?? null));

/** Whether a file starts as a sweep file does (its first key is its kind): a cassette is never read twice. */
function startsAsSweep(file: string): boolean {
  const head = Buffer.alloc(256);
  const fd = openSync(file, "r");
  try {
    const n = readSync(fd, head, 0, head.length, 0);
    return /^\s*\{\s*"kind"\s*:\s*"blackbox-sweep"/.test(head.subarray(0, n).toString("utf8"));
  } finally {
    closeSync(fd);
  }
}

/** The sweep a path holds: the sweep file itself, or a folder's sweep.json; undefined when none. */
export function sweepAt(path: string): { file: string; result: SweepResult } | undefined {
  const file = statSync(path).isDirectory() ? join(path, SWEEP_FILE_NAME) : path;
  if (!file.toLowerCase().endsWith(".json") || !existsSync(file) || !statSync(file).isFile()) return undefined;
  if (!startsAsSweep(file)) return undefined;
  const result = readSweepFile(file);
  return result ? { file: resolve(file), result } : undefined;
}

/** The cassettes a sweep names that are there: its children, then its parent. */
export function sweepCassettes(result: SweepResult): string[] {
  const files = result.cells.flatMap((c) => (c.cassette && existsSync(c.cassette) ? [c.cassette] : []));
  if (existsSync(result.parent.cassette)) files.push(result.parent.cassette);
  return files;
}

/**
 * The matrix as the page draws it; `keyOf` names the run loaded from a cassette path (absolute), or null;
 * `shown` is a path as the page names it.
 */
export function sweepMeta(
  result: SweepResult,
  keyOf: (file: string) => number | null,
  shown: (file: string) => string,
  file: string,
): SweepMeta {
  return {
    file: shown(file),
    parent: keyOf(result.parent.cassette),
    parentFile: shown(result.parent.cassette),
    continueWith: result.continueWith,
    command: result.command,
    rows: result.rows.map((r) => ({
      at: r.at,
      toolName: r.toolName,
      toolInput: json(r.toolInput),
      recorded: json(r.recorded),
    })),
    variants: result.variants.map((v) => ({ name: v.name, kind: v.kind })),
    cells: result.cells.map((c) => ({
      at: c.at,
      variant: c.variant,
      status: c.status,
      text:
        c.status === "answered"
          ? clip(typeof c.answer === "string" ? c.answer : json(c.answer))
          : clip(c.failure ?? ""),
      value: json(c.value),
      grade: c.grade ? { pass: c.grade.pass, detail: c.grade.detail ?? null } : null,
      run: c.cassette ? keyOf(c.cassette) : null,
      steps: c.steps,
      modelCalls: c.modelCalls,
      toolCalls: c.toolCalls.map((t) => `${t.name}${t.ran ? "" : " (recorded)"}`),
      reused: c.reused,
    })),
    summary: summaryLine(result.summary),
    toolsRun: result.summary.toolsRun,
  };
}
