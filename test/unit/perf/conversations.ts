/**
 * Random tool-loop conversations for the incremental-replay differential test: the
 * request bodies an agent sends (each the previous one plus new messages), as recorded
 * and as replayed with random edits anywhere (history, system, tools, params, key order,
 * whitespace, invalid JSON, refused messages, tool messages with a name), and the id registrations that happen
 * between requests (replayed responses' bbx_call-N ids, and remaps).
 */
import fc from "fast-check";
import type { ProviderName } from "../../../src/providers/types.js";

export interface Conversation {
  provider: ProviderName;
  recorded: string[];
  replayed: string[];
  registers: Array<Array<[string, string]>>;
}

type Msg = Record<string, unknown>;
type Round = { kind: "tools" | "user" | "text"; calls: number; bbx: boolean };

const EDITS = [
  "msgText",
  "lastText",
  "lastText",
  "system",
  "systemBlocks",
  "tools",
  "params",
  "keyOrder",
  "streamLast",
  "pretty",
  "trailing",
  "ws",
  "invalid",
  "drop",
  "junk",
  "unknownResult",
  "toolName",
  "none",
] as const;
type Edit = { at: number; kind: (typeof EDITS)[number]; pick: number; persistent: boolean };

const editArb: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(12),
  kind: fc.constantFrom(...EDITS),
  pick: fc.nat(),
  persistent: fc.boolean(),
});
const roundArb: fc.Arbitrary<Round> = fc.record({
  kind: fc.constantFrom("tools", "tools", "tools", "user", "text"),
  calls: fc.integer({ min: 1, max: 3 }),
  bbx: fc.boolean(),
});

function history(provider: ProviderName, rounds: Round[], systems: number): Msg[] {
  const out: Msg[] = [];
  if (provider === "openai")
    for (let s = 0; s < systems; s++) out.push({ role: s % 2 ? "developer" : "system", content: `be brief ${s}` });
  out.push({ role: "user", content: "check the weather" });
  let n = 0;
  for (const r of rounds) {
    if (r.kind === "user") out.push({ role: "user", content: `and again ${n}` });
    else if (r.kind === "text")
      out.push({
        role: "assistant",
        content: provider === "openai" ? `thinking ${n}` : [{ type: "text", text: `thinking ${n}` }],
      });
    else {
      const ids = Array.from({ length: r.calls }, () => (r.bbx ? `bbx_call-${n++}` : `toolu_${n++}`));
      if (provider === "anthropic") {
        out.push({
          role: "assistant",
          content: [
            { type: "text", text: "checking" },
            ...ids.map((id, j) => ({ type: "tool_use", id, name: "get_weather", input: { city: `c${j}` } })),
          ],
        });
        out.push({
          role: "user",
          content: ids.map((id, j) => ({
            type: "tool_result",
            tool_use_id: id,
            content: j % 2 ? [{ type: "text", text: `sun ${id}` }] : `rain ${id}`,
          })),
        });
      } else {
        out.push({
          role: "assistant",
          content: n % 3 ? null : "checking",
          tool_calls: ids.map((id, j) => ({
            id,
            type: "function",
            function: { name: "get_weather", arguments: JSON.stringify({ city: `c${j}` }) },
          })),
        });
        for (const id of ids) out.push({ role: "tool", tool_call_id: id, content: `rain ${id}` });
      }
    }
  }
  return out;
}

function body(provider: ProviderName, messages: Msg[]): Msg {
  const tools =
    provider === "anthropic"
      ? [
          {
            name: "get_weather",
            description: "forecast",
            input_schema: { type: "object", properties: { city: { type: "string" } } },
          },
        ]
      : [
          {
            type: "function",
            function: { name: "get_weather", description: "forecast", parameters: { type: "object" } },
          },
        ];
  return provider === "anthropic"
    ? { model: "claude-sonnet-4-6", max_tokens: 1024, system: "You are a weather bot.", tools, messages }
    : { model: "gpt-4o", max_tokens: 1024, tools, messages };
}

/** Applies one edit to a request body (a fresh copy); returns the body text. */
function applyEdit(provider: ProviderName, b: Msg, e: Edit, text?: string): { body: Msg; text?: string } {
  const messages = b.messages as Msg[];
  const m = messages.length ? messages[e.pick % messages.length]! : undefined;
  switch (e.kind) {
    case "lastText": // most likely a message the request adds
    case "msgText":
      if (e.kind === "lastText")
        return applyEdit(provider, b, { ...e, kind: "msgText", pick: messages.length - 1 }, text);
      if (m === null || typeof m !== "object") break; // junk
      if (typeof m.content === "string") m.content += "!";
      else if (Array.isArray(m.content) && m.content[0]?.type === "text")
        m.content[0] = { ...m.content[0], text: `${m.content[0].text}!` };
      else m.content = "edited";
      break;
    case "system":
      if (provider === "anthropic") b.system = "You are a rain bot.";
      else if (messages[0]?.role === "system") messages[0] = { ...messages[0], content: "be long" };
      break;
    case "systemBlocks": // the same system prompt as text blocks: normalized equal
      if (provider === "anthropic")
        b.system = [
          { type: "text", text: "You are a " },
          { type: "text", text: "weather bot." },
        ];
      break;
    case "tools":
      (b.tools as Msg[]).push(
        provider === "anthropic"
          ? { name: "extra", input_schema: {} }
          : { type: "function", function: { name: "extra" } },
      );
      break;
    case "params":
      b.max_tokens = 7;
      break;
    case "keyOrder":
      return { body: { messages, ...b } };
    case "streamLast":
      return { body: { ...b, stream: false } };
    case "drop":
      if (messages.length) messages.splice(e.pick % messages.length, 1);
      break;
    case "junk":
      messages.push(
        e.pick % 3 === 0
          ? (42 as unknown as Msg)
          : e.pick % 3 === 1
            ? { role: "system", content: "late" }
            : { role: "moderator", content: "x" },
      );
      break;
    case "unknownResult":
      messages.push(
        provider === "anthropic"
          ? { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_nobody", content: "x" }] }
          : { role: "tool", tool_call_id: "call_nobody", content: "x" },
      );
      break;
    case "toolName": {
      // OpenAI: a tool message naming its tool (LangChain's ChatOpenAI), accepted; or another tool, refused
      const tool =
        messages.find(
          (x, k) =>
            k >= e.pick % Math.max(1, messages.length) && x !== null && typeof x === "object" && x.role === "tool",
        ) ?? messages.find((x) => x?.role === "tool");
      if (provider === "openai" && tool) tool.name = e.pick % 3 === 0 ? "book_hotel" : "get_weather";
      break;
    }
    case "pretty":
      return { body: b, text: JSON.stringify(b, null, e.pick % 2 ? 2 : undefined) };
    case "trailing":
      return { body: b, text: `${text ?? JSON.stringify(b)}\n` };
    case "ws":
      return { body: b, text: (text ?? JSON.stringify(b)).replace(/\]\}$/, "] }") };
    case "invalid":
      return { body: b, text: (text ?? JSON.stringify(b)).replace(/\]\}$/, ",]}") };
    case "none":
      break;
  }
  return { body: b };
}

function texts(provider: ProviderName, all: Msg[], cuts: number[], edits: Edit[]): string[] {
  return cuts.map((cut, k) => {
    let b = structuredClone(body(provider, all.slice(0, cut)));
    let text: string | undefined;
    for (const e of edits) {
      if (e.persistent ? k < e.at : k !== e.at) continue;
      const r = applyEdit(provider, b, e, text);
      b = r.body;
      text = r.text ?? (e.kind === "pretty" ? text : undefined);
    }
    return text ?? JSON.stringify(b);
  });
}

export function conversationArb(provider: ProviderName): fc.Arbitrary<Conversation> {
  return fc
    .record({
      rounds: fc.array(roundArb, { minLength: 1, maxLength: 10 }),
      systems: fc.nat(2),
      cutPicks: fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
      everyMessage: fc.boolean(),
      recordedEdits: fc.array(editArb, { maxLength: 2 }),
      replayedEdits: fc.array(editArb, { maxLength: 3 }),
      registers: fc.array(fc.array(fc.tuple(fc.nat(12), fc.nat(12), fc.boolean()), { maxLength: 3 }), {
        maxLength: 12,
      }),
    })
    .map(({ rounds, systems, cutPicks, everyMessage, recordedEdits, replayedEdits, registers }) => {
      const all = history(provider, rounds, systems);
      // requests end anywhere (inside a tool round too), or after every message
      const cuts = everyMessage
        ? all.map((_, i) => i + 1)
        : cutPicks.map((p) => 1 + (p % all.length)).sort((a, b) => a - b); // a repeated cut: the same request sent again
      return {
        provider,
        recorded: texts(provider, all, cuts, recordedEdits),
        replayed: texts(provider, all, cuts, replayedEdits),
        registers: registers.map((list) =>
          list.map(([a, b, normal]): [string, string] =>
            normal ? [`bbx_call-${a}`, `call-${a}`] : [`toolu_${a}`, `call-${b}`],
          ),
        ),
      };
    });
}
