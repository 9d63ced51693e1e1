/**
 * A run of several conversations on disk (docs/conversations.md): a folder holding one v2
 * cassette per conversation and `run.json` (src/trace/runIndex.ts), so that a conversation
 * swapped, dropped or edited fails verify.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { TraceLoadError } from "../errors.js";
import { indexHash, RUN_FORMAT, RUN_INDEX, type RunIndex } from "../trace/runIndex.js";
import type { Trace } from "../trace/types.js";
import { writeTextAtomicSync } from "./index.js";
import { loadVerifiedTraceSync } from "./loadVerified.js";

/**
 * Writes the index last, once every cassette is written; then removes conversation cassettes of an earlier
 * recording into the same folder that this run does not list.
 */
export function writeRunIndexSync(folder: string, index: RunIndex): void {
  writeTextAtomicSync(path.join(folder, RUN_INDEX), `${JSON.stringify(index, null, 2)}\n`);
  const listed = new Set(index.conversations.map((c) => c.file));
  for (const name of fs.readdirSync(folder)) {
    if (/^conversation-\d+\.json$/.test(name) && !listed.has(name)) fs.rmSync(path.join(folder, name), { force: true });
  }
}

function bad(folder: string, what: string): TraceLoadError {
  return new TraceLoadError(
    `run ${folder} ${what}. Record the run again (blackbox record -o ${folder} -- <command>), or check it with blackbox verify ${folder}.`,
    { file: path.join(folder, RUN_INDEX) },
  );
}

/** Reads and checks `run.json` (its format, its own hash); the cassettes are not read. */
export function loadRunIndexSync(folder: string): RunIndex {
  const file = path.join(folder, RUN_INDEX);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw bad(
      folder,
      code === "ENOENT"
        ? `has no ${RUN_INDEX} (it is not a recorded run, or its recording did not finish)`
        : `cannot be read (${code})`,
    );
  }
  let index: RunIndex;
  try {
    index = JSON.parse(text) as RunIndex;
  } catch {
    throw bad(folder, `has a ${RUN_INDEX} that is not JSON`);
  }
  if (index === null || typeof index !== "object" || index.format !== RUN_FORMAT || index.version !== 1)
    throw bad(folder, `has a ${RUN_INDEX} that is not a Blackbox run index (format "${RUN_FORMAT}", version 1)`);
  if (!Array.isArray(index.conversations) || index.conversations.length === 0)
    throw bad(folder, `lists no conversation in ${RUN_INDEX}`);
  const { hash, ...body } = index;
  if (typeof hash !== "string" || indexHash(body) !== hash)
    throw bad(folder, `has a ${RUN_INDEX} whose hash does not match its content (it was edited)`);
  for (const c of index.conversations) {
    if (typeof c.file !== "string" || !/^conversation-\d+\.json$/.test(c.file))
      throw bad(folder, `lists a conversation file that is not conversation-NN.json (${JSON.stringify(c.file)})`);
  }
  return index;
}

/** A run's cassettes, each loaded and verified, and checked against the index (the chain's last hash). */
export function loadRunSync(folder: string): { index: RunIndex; traces: Trace[] } {
  const index = loadRunIndexSync(folder);
  const traces = index.conversations.map((c) => {
    const trace = loadVerifiedTraceSync(path.join(folder, c.file));
    const last = trace.steps[trace.steps.length - 1]?.hash ?? "";
    if (last !== c.lastHash)
      throw bad(
        folder,
        `holds ${c.file}, whose hash chain ends other than ${RUN_INDEX} says (the cassette was replaced or re-recorded alone)`,
      );
    return trace;
  });
  return { index, traces };
}
