/**
 * Strict replay's comparison of a new request with the recorded model_input (pure).
 *
 * Both sides are normalized at compare time (the cassette keeps what was sent):
 * - a message's text is compared joined: a string, one text part or several text parts
 *   with the same text are equal (empty text counts as no text);
 * - a tool_result whose result is a list of text blocks compares equal to the string of
 *   their joined text;
 * - provider tool-call ids are not compared (they become run-local call-N, given in order of
 *   first appearance, the same in record and replay); which call-N a tool_use or a
 *   tool_result names is, with the tool name and input: a result sent back for another
 *   call than in the recording (two results swapped) is a divergence.
 * Everything else the adapters record is compared as JSON: model, systemPrompt, each
 * tool's name / description / inputSchema / strict (absent is not false: the APIs default
 * it differently), and params (already neutral, so max_tokens vs
 * max_completion_tokens and system vs developer never differ).
 *
 * The first difference is reported with a path into the RECORDED model_input, e.g.
 * `messages[3].content[1].toolInput.city`. One pass over both inputs: linear in size.
 */
import { firstDifference } from "../../trace/jsonDiff.js";
import { appendPath } from "../../trace/jsonPath.js";
import type { JsonValue, Message, ModelInput, ToolDefinition } from "../../trace/types.js";

export interface InputDifference {
  path: string;
  recorded: unknown;
  actual: unknown;
}

type Seg =
  | { kind: "text"; text: string; path: string; raw: unknown }
  | { kind: "tool_use"; id: string; name: string; input: JsonValue; path: string; raw: unknown }
  | { kind: "tool_result"; id: string; name: string; result?: JsonValue; error?: string; path: string; raw: unknown };

const diff = (path: string, recorded: unknown, actual: unknown): InputDifference => ({ path, recorded, actual });

export function compareModelInput(recorded: ModelInput, actual: ModelInput): InputDifference | undefined {
  if (recorded.model !== actual.model) return diff("model", recorded.model, actual.model);
  if ((recorded.systemPrompt ?? "") !== (actual.systemPrompt ?? "")) {
    return diff("systemPrompt", recorded.systemPrompt, actual.systemPrompt);
  }
  return (
    compareMessages(recorded.messages ?? [], actual.messages ?? []) ??
    compareTools(recorded.tools ?? [], actual.tools ?? []) ??
    fromJson(firstDifference(recorded.params ?? {}, actual.params ?? {}, "params"))
  );
}

function fromJson(d: { path: string; a: unknown; b: unknown } | undefined): InputDifference | undefined {
  return d && diff(d.path, d.a, d.b);
}

/**
 * The messages part of compareModelInput, from message `from` on: the caller knows the
 * messages before it compare equal (an incremental replay: src/session/incremental.ts).
 */
export function compareMessages(rec: Message[], act: Message[], from = 0): InputDifference | undefined {
  const n = Math.min(rec.length, act.length);
  for (let i = from; i < n; i++) {
    if (sameJson(rec[i], act[i])) continue; // the common case, with no paths or segments built
    const base = `messages[${i}]`;
    if (rec[i]!.role !== act[i]!.role) return diff(`${base}.role`, rec[i]!.role, act[i]!.role);
    if (rec[i]!.name !== act[i]!.name) return diff(`${base}.name`, rec[i]!.name, act[i]!.name);
    const d = compareSegments(segments(rec[i]!, base), segments(act[i]!, base), rec[i]!, base);
    if (d) return d;
  }
  if (rec.length !== act.length) return diff(`messages[${n}]`, rec[n], act[n]);
  return undefined;
}

/**
 * Equality of parsed JSON data (key order ignored, 0 equals -0), fast: for-in without key
 * arrays. Callers use it only to skip work they would otherwise do (a "not equal" goes to
 * the full comparison), so it may say "not equal" conservatively: an own `__proto__` key
 * (which `b[k]` would read from the prototype) is never called equal. Sound for JSON
 * values only (never undefined, so a key missing from `b` never compares equal).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let keys = 0;
  for (const k in a) {
    if (k === "__proto__" || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
    keys++;
  }
  for (const k in b) {
    if (k === "__proto__") return false;
    keys--;
  }
  return keys === 0;
}

/** A message's content as comparable segments: adjacent text merged, empty text dropped. */
function segments(m: Message, base: string): Seg[] {
  const contentPath = `${base}.content`;
  if (typeof m.content === "string") {
    return m.content === "" ? [] : [{ kind: "text", text: m.content, path: contentPath, raw: m.content }];
  }
  const out: Seg[] = [];
  let open: Extract<Seg, { kind: "text" }> | undefined;
  (m.content ?? []).forEach((p, j) => {
    const path = `${contentPath}[${j}]`;
    if (p.type === "text") {
      if (open) open.text += p.text;
      else if (p.text !== "") out.push((open = { kind: "text", text: p.text, path: `${path}.text`, raw: p.text }));
      return;
    }
    open = undefined;
    if (p.type === "tool_use")
      out.push({ kind: "tool_use", id: p.toolCallId, name: p.toolName, input: p.toolInput, path, raw: p });
    else if ("error" in p)
      out.push({ kind: "tool_result", id: p.toolCallId, name: p.toolName, error: p.error, path, raw: p });
    else
      out.push({
        kind: "tool_result",
        id: p.toolCallId,
        name: p.toolName,
        result: normalizeResult(p.result),
        path,
        raw: p,
      });
  });
  for (const s of out) if (s.kind === "text") s.raw = s.text;
  return out;
}

/** A list of text blocks compares as the string of its text. */
function normalizeResult(v: JsonValue): JsonValue {
  if (!Array.isArray(v)) return v;
  let text = "";
  for (const b of v) {
    if (b === null || typeof b !== "object" || Array.isArray(b) || b.type !== "text" || typeof b.text !== "string")
      return v;
    text += b.text;
  }
  return text;
}

function compareSegments(rec: Seg[], act: Seg[], recMsg: Message, base: string): InputDifference | undefined {
  const n = Math.min(rec.length, act.length);
  for (let k = 0; k < n; k++) {
    const r = rec[k]!;
    const a = act[k]!;
    if (r.kind !== a.kind) return diff(r.path, r.raw, a.raw);
    if (r.kind === "text" && a.kind === "text") {
      if (r.text !== a.text) return diff(r.path, r.text, a.text);
    } else if (r.kind === "tool_use" && a.kind === "tool_use") {
      if (r.name !== a.name) return diff(`${r.path}.toolName`, r.name, a.name);
      if (r.id !== a.id) return diff(`${r.path}.toolCallId`, r.id, a.id);
      const d = firstDifference(r.input, a.input, `${r.path}.toolInput`);
      if (d) return fromJson(d);
    } else if (r.kind === "tool_result" && a.kind === "tool_result") {
      if (r.name !== a.name) return diff(`${r.path}.toolName`, r.name, a.name);
      if (r.id !== a.id) return diff(`${r.path}.toolCallId`, r.id, a.id);
      if ((r.error === undefined) !== (a.error === undefined)) return diff(r.path, r.raw, a.raw);
      if (r.error !== undefined) {
        if (r.error !== a.error) return diff(`${r.path}.error`, r.error, a.error);
      } else {
        const d = firstDifference(r.result, a.result, `${r.path}.result`);
        if (d) return fromJson(d);
      }
    }
  }
  if (rec.length > n) return diff(rec[n]!.path, rec[n]!.raw, undefined);
  if (act.length > n) {
    const path = Array.isArray(recMsg.content) ? `${base}.content[${recMsg.content.length}]` : `${base}.content`;
    return diff(path, undefined, act[n]!.raw);
  }
  return undefined;
}

function compareTools(rec: ToolDefinition[], act: ToolDefinition[]): InputDifference | undefined {
  const n = Math.min(rec.length, act.length);
  for (let i = 0; i < n; i++) {
    const base = appendPath("tools", i);
    const r = rec[i]!;
    const a = act[i]!;
    if (r.name !== a.name) return diff(`${base}.name`, r.name, a.name);
    if (r.description !== a.description) return diff(`${base}.description`, r.description, a.description);
    if (r.strict !== a.strict) return diff(`${base}.strict`, r.strict, a.strict);
    const d = firstDifference(r.inputSchema, a.inputSchema, `${base}.inputSchema`);
    if (d) return fromJson(d);
  }
  if (rec.length !== act.length) return diff(`tools[${n}]`, rec[n], act[n]);
  return undefined;
}
