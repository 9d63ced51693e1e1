/**
 * What an MCP `callTool` step is written as (mcp.ts): its name and its input.
 *
 * - The name: the name the model called the tool by. That is the MCP tool's own name,
 *   unless the agent renamed the tools it hands the model, as multi-server clients do
 *   (`weather__get_forecast` for the weather server's `get_forecast`: the MCP quickstart's
 *   multi-server clients, LangChain's adapters with a prefix). Then the step takes the
 *   model's name, so it answers the model's call (the same toolCallId) instead of standing
 *   beside it as a call the model did not ask for, and the model's call as one that ran
 *   outside Blackbox's view. The model's call is found among the tool calls of its latest
 *   output: one whose name ends with the MCP name after a separator (`__`, `_`, `.`, `-`,
 *   `/`, `:`); between several, by the arguments, then by the server's name in the prefix.
 *   Record and replay read the same output (a replay's is the recorded one), so they name
 *   the step alike.
 * - The input: the call's `arguments`, or `{ server, arguments }` where two connected
 *   servers listed a tool of that name (by the client's last listTools), so that each call
 *   is answered from its own server's recording in a replay (it compares the input).
 */
import { jsonEqual } from "../../session/json.js";
import type { JsonValue, ToolCall } from "../../trace/types.js";

/** Each connected client's tool names, from its last `listTools()` (recorded or replayed). */
const listings = new Map<object, { server: string; tools: Set<string> }>();

/** A client's `listTools()` result (`more`: a page after the first, its params holding a cursor). */
export function listedTools(client: object, server: string, result: unknown, more: boolean): void {
  const tools = (result as { tools?: Array<{ name?: unknown }> } | null)?.tools;
  if (!Array.isArray(tools)) return;
  const names = (more && listings.get(client)?.tools) || new Set<string>();
  for (const t of tools) if (typeof t?.name === "string") names.add(t.name);
  listings.set(client, { server, tools: names });
}

/** Whether a client other than `client`, still connected, listed a tool named `name`. */
function shared(client: object, name: string): boolean {
  for (const [other, listing] of listings) {
    if (other === client || !listing.tools.has(name)) continue;
    if ((other as { transport?: unknown }).transport === undefined)
      listings.delete(other); // closed
    else return true;
  }
  return false;
}

/** The step's input: the arguments, with the server's name beside them where another server has the tool. */
export function stepInput(client: object, server: string, name: string, args: unknown): unknown {
  const input = args ?? {};
  return shared(client, name) ? { server, arguments: input } : input;
}

const SEPARATOR = /[_.\-/:]$/;
const plain = (v: unknown): JsonValue => (v === undefined ? {} : (JSON.parse(JSON.stringify(v)) as JsonValue));
const squashed = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * The name the model called the MCP tool `name` of `server` by (see above); else `name`. The
 * model's calls whose name ends with `name` after a separator: one name among them is it;
 * between several, the one called with `args`, then the one whose prefix names `server`. (The
 * arguments only choose: a replay's model output holds the recording's redaction placeholders
 * where the agent passes the real values.)
 */
export function modelName(asked: readonly ToolCall[], name: string, server: string, args: unknown): string {
  if (asked.length === 0 || asked.some((c) => c.toolName === name)) return name;
  const renamed = asked.filter((c) => c.toolName.endsWith(name) && SEPARATOR.test(c.toolName.slice(0, -name.length)));
  const names = (calls: readonly ToolCall[]) => [...new Set(calls.map((c) => c.toolName))];
  let pool = names(renamed);
  if (pool.length <= 1) return pool[0] ?? name;
  let wanted: JsonValue | undefined;
  try {
    wanted = plain(args);
  } catch {
    wanted = undefined; // no JSON form: the session's refusal says so
  }
  const alike = names(renamed.filter((c) => wanted !== undefined && jsonEqual(c.toolInput, wanted)));
  if (alike.length === 1) return alike[0]!;
  if (alike.length > 1) pool = alike;
  // two servers' tools renamed alike and called alike: the one whose prefix names this server
  const server_ = squashed(server);
  const named = pool.filter((n) => server_ !== "" && squashed(n.slice(0, -name.length)).includes(server_));
  return named.length === 1 ? named[0]! : name;
}
