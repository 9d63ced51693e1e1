/**
 * Tool-definition drift (`blackbox replay --mcp-live`): in that replay an MCP client's
 * `connect()` and list calls also go to the live server (mcp.ts), and what it says now is
 * compared with what the cassette recorded. A tool one of whose fields changed (its
 * description, input or output schema, title, an annotation such as readOnlyHint: every field
 * the server sends), one added, one removed (and a changed server info or other list) is
 * reported by name; the replay fails with it, while the agent goes on with the recorded answers.
 */
import { ReplayDivergenceError } from "../../errors.js";
import { jsonEqual } from "../../session/json.js";
import type { JsonValue } from "../../trace/types.js";

/** A tool of a tools/list result, as the check reads it: every field is its definition. */
type Tool = Record<string, unknown>;

const plain = (v: unknown): JsonValue => (v === undefined ? null : (JSON.parse(JSON.stringify(v)) as JsonValue));
const quoted = (v: unknown) => (v === undefined ? "(none)" : JSON.stringify(v));
const same = (a: unknown, b: unknown) => jsonEqual(plain(a), plain(b));

/** How a field of a tool is said in a change: the spec's names for the two schemas, else the field's own. */
const SAID: Readonly<Record<string, string>> = { inputSchema: "input schema", outputSchema: "output schema" };

/** The fields of a tool in the order changes are said: the spec's order, then any other, sorted. */
const ORDER = ["title", "description", "inputSchema", "outputSchema", "annotations", "execution", "icons", "_meta"];

function fieldsOf(was: Tool, now: Tool): string[] {
  const keys = new Set([...Object.keys(was), ...Object.keys(now)]);
  keys.delete("name");
  const known = ORDER.filter((k) => keys.has(k));
  return [...known, ...[...keys].filter((k) => !ORDER.includes(k)).sort()];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Each field of a tool that changed under its name, as a phrase. Every field is compared: the
 * description and input schema (what the model is told), the output schema, the title and the
 * annotations (what a client decides by: a `readOnlyHint` that flips is a tool that now writes),
 * the rest (`execution`, `icons`, `_meta`) as the server sent them. Annotations are said hint by hint.
 */
function fieldChanges(name: string, was: Tool, now: Tool): string[] {
  const out: string[] = [];
  for (const key of fieldsOf(was, now)) {
    const [a, b] = [was[key], now[key]];
    if (same(a, b)) continue;
    if (key === "annotations" && (isObject(a) || a === undefined) && (isObject(b) || b === undefined)) {
      const hints = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
      for (const hint of [...hints].sort())
        if (!same(a?.[hint], b?.[hint]))
          out.push(`"${name}" annotation ${hint} ${quoted(a?.[hint])} is now ${quoted(b?.[hint])}`);
    } else out.push(`"${name}" ${SAID[key] ?? key} ${quoted(a)} is now ${quoted(b)}`);
  }
  return out;
}

/** Each difference between the recorded tool list and the live one, as a phrase. */
export function toolChanges(recorded: unknown, live: unknown): string[] {
  const tools = (r: unknown) => new Map(((r as { tools?: Tool[] })?.tools ?? []).map((t) => [String(t.name), t]));
  const before = tools(recorded);
  const after = tools(live);
  const out: string[] = [];
  for (const [name, was] of before) {
    const now = after.get(name);
    if (!now) out.push(`"${name}" removed`);
    else out.push(...fieldChanges(name, was, now));
  }
  for (const name of after.keys()) if (!before.has(name)) out.push(`"${name}" added`);
  return out;
}

/** Each difference of another step (`mcp:initialize`, `mcp:prompts/list`...): the whole result, if changed. */
export function resultChanges(step: string, recorded: unknown, live: unknown): string[] {
  if (step === "mcp:tools/list") return toolChanges(recorded, live);
  return jsonEqual(plain(recorded), plain(live)) ? [] : [`${step} result ${quoted(recorded)} is now ${quoted(live)}`];
}

/** The replay's failure: what changed on `server` since `cassette` was recorded, and what to do. */
export function drifted(cassette: string, server: string, step: string, changes: string[]): ReplayDivergenceError {
  return new ReplayDivergenceError(
    `the MCP server "${server || "(unnamed)"}" answers ${step} differently from ${cassette} (blackbox replay --mcp-live): ${changes.join("; ")}. The agent was given the recorded answer; review the change (a tool changed under the same name is what the model is told to call), then record the run again to accept it.`,
    { recorded: step, actual: changes },
  );
}
