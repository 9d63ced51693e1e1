/**
 * The mark a hooked process of a run leaves when it printed a `blackbox:` error that
 * explains the run's outcome, so the run's root adds no guess of its own. The mark holds
 * what the root's `--json` summary reports: the message, and a replay divergence's step,
 * path and values.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ReplayDivergenceError } from "../errors.js";
import { locksDir, runOver } from "./claim.js";

/** What a hooked process reported, as the run's root reads it back. */
export interface RunReport {
  message?: string;
  divergence?: { stepIndex: number | null; path: string | null; recorded: unknown; actual: unknown };
}

function reportPathFor(run: string): string {
  return join(locksDir(), `run-${run.replace(/[^\w-]/g, "_").slice(0, 120)}.reported`);
}

function reportOf(error: unknown): RunReport {
  if (!(error instanceof Error)) return {};
  const report: RunReport = { message: error.message };
  if (error instanceof ReplayDivergenceError)
    report.divergence = {
      stepIndex: error.stepIndex ?? null,
      path: error.path ?? null,
      recorded: error.recorded,
      actual: error.actual,
    };
  return report;
}

/**
 * Marks that a hooked process of the run printed a `blackbox:` error that explains the
 * run's outcome (bad config, refused write, ...), so the run's root adds no guess of its own.
 */
export function markReported(run: string | undefined = process.env.BLACKBOX_RUN, error?: unknown): void {
  if (!run || runOver(run)) return; // nobody is left to read it
  try {
    mkdirSync(locksDir(), { recursive: true });
    const file = reportPathFor(run);
    if (existsSync(file)) return; // the first report of the run explains it
    let text: string;
    try {
      text = JSON.stringify({ pid: process.pid, ...reportOf(error) });
    } catch {
      text = JSON.stringify({ pid: process.pid, message: (error as Error).message });
    }
    writeFileSync(file, text);
  } catch {
    // the mark only spares a second message
  }
}

/** What a process of the run reported (the mark is removed), or undefined when none did. */
export function takeReport(run: string): RunReport | undefined {
  const file = reportPathFor(run);
  if (!existsSync(file)) return undefined;
  let report: RunReport = {};
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (value !== null && typeof value === "object") report = value as RunReport;
  } catch {
    // an older mark (a pid alone) says only that something was reported
  }
  rmSync(file, { force: true });
  return report;
}

/** Whether a process of the run left that mark; the mark is removed. */
export function takeReported(run: string): boolean {
  return takeReport(run) !== undefined;
}
