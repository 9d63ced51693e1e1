/**
 * The call-N ids checkStructure reads in a step's payload and in a model input's message parts, and how a
 * wrong one is reported. Pure.
 */
import { appendPath } from "./jsonPath.js";
import { callIndex } from "./payloads.js";
import { quoted } from "./printable.js";
import type { SharedValues } from "./share.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

export const fieldPath = (i: number, ...keys: Array<string | number>): string =>
  keys.reduce<string>((p, k) => appendPath(p, k), appendPath("steps", i));
export const isId = (v: unknown): v is string => typeof v === "string" && callIndex(v) >= 0;
export const showId = (v: unknown): string => quoted(v, 80);
export const notCallN = (id: unknown): string =>
  `toolCallId is ${showId(id)}; tool-call ids are Blackbox's call-N (call-0, call-1, ...).`;

/** A model_input payload's messages hold a tool_result part for `id`. */
export function resultPartFor(p: Obj, id: string): boolean {
  const messages = Array.isArray(p.messages) ? p.messages : [];
  return messages.some(
    (m) =>
      isObj(m) &&
      Array.isArray(m.content) &&
      m.content.some((part) => isObj(part) && part.type === "tool_result" && part.toolCallId === id),
  );
}

/**
 * toolCallIds in a model_input's message parts are call-N too (a shared message looked at once, reported
 * wherever it stands).
 */
export function checkMessageIds(
  p: Obj,
  i: number,
  problem: (i: number, path: string, message: string) => void,
  memo: Map<object, Array<[number, unknown]>> | undefined,
  shared: SharedValues | undefined,
): void {
  const messages = p.messages;
  if (!Array.isArray(messages)) return;
  messages.forEach((m, j) => {
    if (!isObj(m) || !Array.isArray(m.content)) return;
    let bad = memo && shared!.has(m) ? memo.get(m) : undefined;
    if (!bad) {
      bad = [];
      const content = m.content;
      for (let k = 0; k < content.length; k++) {
        const part = content[k];
        if (isObj(part) && (part.type === "tool_use" || part.type === "tool_result") && !isId(part.toolCallId))
          bad.push([k, part.toolCallId]);
      }
      if (memo && shared!.has(m)) memo.set(m, bad);
    }
    for (const [k, id] of bad) {
      problem(i, fieldPath(i, "payload", "messages", j, "content", k, "toolCallId"), notCallN(id));
    }
  });
}
