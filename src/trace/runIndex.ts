/**
 * The index of a run of several conversations (docs/conversations.md), as data: `run.json`
 * lists the conversations' cassettes in the order they started, how each was told apart,
 * and the hash each cassette's chain ends with; it carries a SHA-256 of its own canonical
 * form. Pure: src/store/run.ts reads and writes it.
 */
import { canonicalJson, sha256Hex } from "./canonical.js";
import { callCounts } from "./payloads.js";
import type { Trace } from "./types.js";

export const RUN_INDEX = "run.json";
export const RUN_FORMAT = "blackbox-run" as const;

export interface RunConversation {
  /** The cassette's file name in the folder. */
  file: string;
  /** Its trace id. */
  id: string;
  /** When its first call was made (ms since epoch). */
  startedAt: number;
  modelCalls: number;
  toolCalls: number;
  /** How its first request was told apart: "new history", or the conversations it started the same as. */
  toldApart: string;
  /** The hash its cassette's chain ends with. */
  lastHash: string;
}

export interface RunIndex {
  format: typeof RUN_FORMAT;
  version: 1;
  id: string;
  createdAt: number;
  conversations: RunConversation[];
  /** SHA-256 of the index's canonical JSON without this field. */
  hash: string;
}

/** The folder a recording given the cassette file `file` is written into when it holds several conversations. */
export function runFolderOf(file: string): string {
  return file.replace(/\.json$/i, "") || `${file}.run`;
}

/** The cassette of conversation `n` (1-based) in a run folder. */
export function conversationFile(n: number): string {
  return `conversation-${String(n).padStart(2, "0")}.json`;
}

export function indexHash(index: Omit<RunIndex, "hash">): string {
  return sha256Hex(canonicalJson(index));
}

/** The index of `traces` (in the order they started), as the run writes it. */
export function runIndexOf(
  id: string,
  createdAt: number,
  entries: Array<{ file: string; trace: Trace; toldApart: string }>,
): RunIndex {
  const conversations = entries.map(({ file, trace, toldApart }) => {
    const { models, tools } = callCounts(trace.steps);
    const first = trace.steps[0];
    return {
      file,
      id: trace.id,
      startedAt: first?.timestamp ?? trace.createdAt,
      modelCalls: models,
      toolCalls: tools,
      toldApart,
      lastHash: trace.steps[trace.steps.length - 1]?.hash ?? "",
    };
  });
  const body = { format: RUN_FORMAT, version: 1 as const, id, createdAt, conversations };
  return { ...body, hash: indexHash(body) };
}
