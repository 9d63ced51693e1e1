/**
 * Tool-definition drift (`blackbox replay --mcp-live`): in that replay an MCP client's
 * `connect()` and list calls also go to the live server (mcp.ts), and what it says now is
 * compared with what the cassette recorded. A tool whose name, description or input schema
 * changed, one added, one removed (and a changed server info or other list) is reported by
 * name; the replay fails with it, while the agent goes on with the recorded answers.
 */
import { ReplayDivergenceError } from "../../errors.js";
import { jsonEqual } from "../../session/json.js";
import type { JsonValue } from "../../trace/types.js";

interface Tool {
  name?: unknown;
  description?: unknown;
  inputSchema?: unknown;
}

const plain = (v: unknown): JsonValue => (v === undefined ? null : (JSON.parse(JSON.stringify(v)) as JsonValue));
const quoted = (v: unknown) => (v === undefined ? "(none)" : JSON.stringify(v));

/** Each difference between the recorded tool list and the live one, as a phrase. */
export function toolChanges(recorded: unknown, live: unknown): string[] {
  const tools = (r: unknown) => new Map(((r as { tools?: Tool[] })?.tools ?? []).map((t) => [String(t.name), t]));
  const before = tools(recorded);
  const after = tools(live);
  const out: string[] = [];
  for (const [name, was] of before) {
    const now = after.get(name);
    if (!now) out.push(`"${name}" removed`);
    else {
      if (!jsonEqual(plain(was.description), plain(now.description)))
        out.push(`"${name}" description ${quoted(was.description)} is now ${quoted(now.description)}`);
      if (!jsonEqual(plain(was.inputSchema), plain(now.inputSchema)))
        out.push(`"${name}" input schema ${quoted(was.inputSchema)} is now ${quoted(now.inputSchema)}`);
    }
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
