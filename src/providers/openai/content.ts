/**
 * OpenAI chat message content -> neutral text parts (pure): a string, or a list of text (and
 * refusal) parts; image, audio and file parts are refused.
 */
import type { JsonValue, MessagePart, TextPart } from "../../trace/types.js";
import { isObj, joinText, refuse, textPart, type Obj } from "../shared/wire.js";

export const WHAT = "OpenAI chat.completions.create";

/** Text parts of a content list; refuses image/audio/file parts. */
export function textParts(content: unknown[], i: number): TextPart[] {
  return content.map((p, k) => {
    if (!isObj(p) || (p.type !== "text" && p.type !== "refusal")) {
      const t = isObj(p) ? JSON.stringify(p.type) : "a non-object";
      refuse(
        `${WHAT}: messages[${i}].content[${k}] is a ${t} part; image, audio and file parts are not supported yet. Send text parts only.`,
      );
    }
    if (p.type === "refusal") return { type: "text", text: String(p.refusal ?? "") };
    // the location string is built only when refusing
    return typeof p.text === "string" ? { type: "text", text: p.text } : textPart(p, `messages[${i}].content[${k}]`);
  });
}

export function contentText(content: unknown, i: number): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) refuse(`${WHAT}: messages[${i}].content must be a string or a list of text parts.`);
  return joinText(textParts(content, i));
}

export function userContent(content: unknown, i: number): string | MessagePart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) refuse(`${WHAT}: messages[${i}].content must be a string or a list of parts.`);
  return textParts(content, i);
}

export function resultOf(m: Obj, i: number): JsonValue {
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content)) return textParts(m.content, i) as unknown as JsonValue;
  return "";
}
