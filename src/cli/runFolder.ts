/**
 * A run of several conversations (docs/conversations.md) as the CLI meets it: a folder
 * holding `run.json` and one cassette per conversation. `record`, `replay`, `verify` and
 * `show` take one; the commands that work on one cassette name its conversations' files.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { RUN_INDEX, type RunIndex } from "../trace/runIndex.js";
import type { Trace } from "../trace/types.js";
import type { RunSummary } from "./schemas.js";
import { runSummary } from "./summary.js";

/** `p` is a folder holding a run's index. */
export function isRunFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory() && existsSync(join(p, RUN_INDEX));
  } catch {
    return false;
  }
}

export { runFolderOf as runFolderFor } from "../trace/runIndex.js";
/** A run's conversations, each verified, in the order they started (a TraceLoadError says what is wrong). */
export { loadRunSync as loadRun } from "../store/run.js";

/** The run summary of a run: its conversations' counts added up, the first conversation's outcome. */
export function runFolderSummary(index: RunIndex, traces: Trace[]): RunSummary {
  const parts = traces.map(runSummary);
  const tools: RunSummary["tools"] = [];
  const unrecorded: RunSummary["unrecordedTools"] = [];
  const redactions: Record<string, number> = {};
  const add = (into: RunSummary["tools"], from: RunSummary["tools"]) => {
    for (const t of from) {
      const had = into.find((x) => x.name === t.name);
      if (had) had.calls += t.calls;
      else into.push({ ...t });
    }
  };
  for (const p of parts) {
    add(tools, p.tools);
    add(unrecorded, p.unrecordedTools);
    for (const [k, v] of Object.entries(p.redactions)) redactions[k] = (redactions[k] ?? 0) + v;
  }
  return {
    id: index.id,
    steps: parts.reduce((n, p) => n + p.steps, 0),
    modelCalls: parts.reduce((n, p) => n + p.modelCalls, 0),
    toolCalls: parts.reduce((n, p) => n + p.toolCalls, 0),
    tools,
    unrecordedTools: unrecorded,
    redactions,
    outcome: parts[0]!.outcome,
  };
}

/** "6 conversations" as a closing line says it. */
export function conversationsLine(index: RunIndex): string {
  const n = index.conversations.length;
  return `${n} conversation${n === 1 ? "" : "s"}`;
}

/** Why a command that reads one cassette was given a run's folder, and what to give it. */
export function oneCassetteOnly(folder: string, verb: string): string {
  return `${folder} is a run of several conversations (it holds ${RUN_INDEX}); blackbox ${verb} reads one cassette: pass one of its conversations, e.g. ${join(folder, "conversation-01.json")} (blackbox show ${folder} lists them)`;
}
