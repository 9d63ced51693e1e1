/**
 * Gemini function calls and their call-N ids (pure). A `functionCall` part may carry no id
 * (the Gemini API gives none), or one the provider or the client made up (the AI SDK sends
 * its own generated ids back), and a `functionResponse` answers the call of its name (or
 * its id) in the model turn before it. So a call is known by its place: the k-th
 * functionCall part of the model content at index i of `contents` is `gemini#i.k`, whatever
 * id it carries. A reply's calls are numbered where the reply will stand in the next request
 * (the request's length, ToolCallIds.functionCallSlot): a fresh call-N each, so a reply and
 * the history that sends it back give the same ids, in record and in replay.
 */
import type { ToolCallIds } from "../shared/ids.js";

/** The wire key of the k-th function call of the model content at `index` of contents. */
export const slotKey = (index: number, k: number): string => `gemini#${index}.${k}`;

/** A function call of a model turn, for the function responses of the turn after it. */
export interface OpenCall {
  key: string;
  /** The id the wire gave it, if any. */
  id: string | undefined;
  name: string;
  answered: boolean;
}

/**
 * The call a function response answers: the one with its id, else the first unanswered call of
 * its name. Undefined when the turn before made no such call.
 */
export function answeredCall(open: OpenCall[], id: unknown, name: string): OpenCall | undefined {
  if (typeof id === "string") {
    const byId = open.find((c) => c.id === id);
    if (byId) return byId;
  }
  return open.find((c) => !c.answered && c.name === name);
}

/** The call-N of a reply's k-th call, new to the run. */
export function replyCallId(ids: ToolCallIds, k: number): string {
  const toolCallId = ids.fresh();
  ids.register(slotKey(ids.functionCallSlot, k), toolCallId);
  return toolCallId;
}
