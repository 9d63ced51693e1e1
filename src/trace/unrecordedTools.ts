/**
 * The tool calls a run made outside Blackbox's view: the model asked for them (a tool call
 * in a model output), no tool step records them, and the agent sent their results back to
 * the model in its next request (so something ran them). A replay of such a recording runs
 * those tools for real. Pure: one pass over the steps, looking only at the turn each next
 * request adds (the results that answer the previous reply come after its last assistant
 * message).
 */
import { toolCallsOf } from "./payloads.js";
import { quoted } from "./printable.js";
import type { JsonValue, Trace, TraceStep } from "./types.js";

export interface UnrecordedTool {
  /** The name the model called the tool by. */
  name: string;
  /** How many of its calls ran unrecorded. */
  count: number;
}

export interface UnrecordedTools {
  /** Every unrecorded call. */
  calls: number;
  /** By tool, in the order the model first asked for each. */
  tools: UnrecordedTool[];
}

export function unrecordedTools(trace: Pick<Trace, "steps"> | readonly TraceStep[]): UnrecordedTools {
  const steps: readonly TraceStep[] = Array.isArray(trace) ? trace : (trace as Pick<Trace, "steps">).steps;
  const recorded = new Set<string>();
  for (const s of steps) if (s.type === "tool_call") recorded.add(idOf(s.payload));
  /** Calls asked for and not recorded, waiting for the next request to show they ran: id -> name. */
  let asked = new Map<string, string>();
  const byName = new Map<string, number>();
  let calls = 0;
  let handoffs = new Set<string>();
  for (const s of steps) {
    if (s.type === "model_output") {
      asked = new Map();
      for (const c of toolCallsOf(s.payload))
        if (!recorded.has(c.toolCallId) && !handoffs.has(c.toolName)) asked.set(c.toolCallId, c.toolName);
    } else if (s.type === "model_input") {
      handoffs = handoffsOf(s.payload);
      if (asked.size === 0) continue;
      for (const id of answeredIds(s.payload)) {
        const name = asked.get(id);
        if (name === undefined) continue;
        asked.delete(id);
        calls++;
        byName.set(name, (byName.get(name) ?? 0) + 1);
      }
      asked = new Map();
    }
  }
  return { calls, tools: [...byName].map(([name, count]) => ({ name, count })) };
}

/**
 * The OpenAI Agents SDK's handoffs among a request's tools: `transfer_to_<agent>` functions it
 * declares as "Handoff to the <agent> agent ..." and answers itself by switching agents. No
 * code of the agent's runs for them, so they are not tools that ran unseen.
 */
function handoffsOf(input: JsonValue): Set<string> {
  const names = new Set<string>();
  const tools = isObj(input) && Array.isArray(input.tools) ? input.tools : [];
  for (const t of tools) {
    if (!isObj(t) || typeof t.name !== "string" || typeof t.description !== "string") continue;
    if (t.name.startsWith("transfer_to_") && t.description.startsWith("Handoff to the ")) names.add(t.name);
  }
  return names;
}

/** The tool call ids the last turn of a request answers (tool_result parts after its last assistant message). */
function answeredIds(input: JsonValue): string[] {
  const messages = isObj(input) && Array.isArray(input.messages) ? input.messages : [];
  const ids: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isObj(m) || m.role === "assistant") break;
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) if (isObj(p) && p.type === "tool_result") ids.push(idOf(p));
  }
  return ids;
}

function idOf(payload: JsonValue): string {
  return isObj(payload) && typeof payload.toolCallId === "string" ? payload.toolCallId : "";
}

function isObj(v: unknown): v is { [k: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** "get_weather (2 calls), book_hotel (1 call)" */
export function unrecordedList(u: UnrecordedTools): string {
  return u.tools.map((t) => `${quoted(t.name)} (${t.count} call${t.count === 1 ? "" : "s"})`).join(", ");
}

/**
 * What the recording's closing line, `show` and a replay's warning say: which tools ran
 * unseen, how often, and how to capture them.
 */
export function unrecordedToolsNote(u: UnrecordedTools): string {
  const names = u.tools.map((t) => t.name);
  const first = names[0] ?? "tool";
  const one = names.length === 1;
  return (
    `the model asked for ${u.calls} tool call${u.calls === 1 ? "" : "s"} that ran outside Blackbox's view and ${u.calls === 1 ? "is" : "are"} not in the cassette: ${unrecordedList(u)}. ` +
    `A replay runs ${one ? "that tool" : "those tools"} for real (side effects, network, a different result each time). ` +
    `Capture ${one ? "it" : "them"}: in blackbox.config.ts, tools: [{ module: "./<its file>.js", export: ${quoted(first)} }] ` +
    `(add name: ${quoted(first)} when the function is exported under another name), ` +
    `or in code, const tools = bb.tools({ ${names.map(safeKey).join(", ")} }); then record again`
  );
}

function safeKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `${quoted(name)}: fn`;
}
