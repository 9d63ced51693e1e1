/**
 * The incremental parse of Responses API requests (src/session/incremental.ts with the
 * definition's member "input" and expandsEvery): a whole-history tool loop's bodies, each
 * the last plus items at the end of `input`, are parsed from their new items only, give what
 * the full path gives, and every one is expanded all the same (the chain store remembers
 * every reply); one whose new items the chain store replaces (an item reference) goes the
 * full way; a chained loop extends by identity.
 */
import { describe, expect, it } from "vitest";
import { ResponseChains } from "../../../src/providers/openai-responses/index.js";
import { providers } from "../../../src/providers/index.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import type { ProviderName } from "../../../src/providers/types.js";
import { IncrementalRequests } from "../../../src/session/incremental.js";

type Obj = Record<string, unknown>;
const head = { model: "gpt-4.1", instructions: "You are a weather bot.", tools: [], max_output_tokens: 99 };

/** The reply to turn `t`: a message and a function call, with the ids a served reply has. */
const reply = (t: number): Obj[] => [
  { id: `bbx-msg-${t}-0`, type: "message", role: "assistant", content: [{ type: "output_text", text: `Turn ${t}.` }] },
  { id: `bbx-fc-${t}-1`, type: "function_call", call_id: `bbx_call-${t}`, name: "get_weather", arguments: "{}" },
];
const output = (t: number): Obj => ({ type: "function_call_output", call_id: `bbx_call-${t}`, output: `sunny ${t}` });

/** The session's expand, as the engine wires it: one chain store, every body through it, the replies remembered. */
function session() {
  const chains = new ResponseChains();
  const seen: unknown[] = [];
  let last: ReturnType<ResponseChains["expand"]> | undefined;
  const expand = (_p: ProviderName, body: unknown) => {
    seen.push(body);
    last = chains.expand(body as Obj);
    return last.full;
  };
  /** The reply to the request last expanded, remembered as the engine does. */
  const served = (reply: Obj) => chains.remember(last!, reply, false);
  return { chains, seen, expand, served };
}

describe("Responses API requests, parsed incrementally", () => {
  it("a whole-history loop: new items parsed only, what the full path gives, every body expanded", () => {
    const inc = new IncrementalRequests();
    const { chains, seen, expand } = session();
    const ids = new ToolCallIds();
    const fullIds = new ToolCallIds();
    const input: Obj[] = [{ role: "user", content: "Weather?" }];
    for (let t = 0; t < 5; t++) {
      const text = JSON.stringify({ ...head, input });
      const parsed = inc.parse("openai-responses", text, ids, expand);
      const full = providers["openai-responses"].parseRequest(JSON.parse(text), fullIds);
      expect(parsed).toEqual(full);
      expect(seen.at(-1)).toEqual(JSON.parse(text)); // the body the chain store saw is the one sent
      chains.rememberResponse(`bbx-resp-${t}`, input.slice(), reply(t), false);
      input.push(...reply(t), output(t));
    }
    expect(seen).toHaveLength(5);
    expect(inc.stats).toMatchObject({ fullParses: 1, incrementalParses: 4 });
  });

  it("new items holding an item reference go the full way, resolved", () => {
    const inc = new IncrementalRequests();
    const { chains, expand } = session();
    const ids = new ToolCallIds();
    const input: Obj[] = [{ role: "user", content: "Weather?" }];
    inc.parse("openai-responses", JSON.stringify({ ...head, input }), ids, expand);
    chains.rememberResponse("bbx-resp-0", input.slice(), reply(0), false);
    const items = [...input, { type: "item_reference", id: "bbx-msg-0-0" }, reply(0)[1]!, output(0)];
    const parsed = inc.parse("openai-responses", JSON.stringify({ ...head, input: items }), ids, expand);
    expect(inc.stats).toMatchObject({ fullParses: 2, incrementalParses: 0 });
    expect(parsed.input.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Turn 0." },
        { type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: {} },
      ],
    });
  });

  it("a chained loop extends the expanded request by identity", () => {
    const inc = new IncrementalRequests();
    const { expand, served } = session();
    const ids = new ToolCallIds();
    let body: Obj = { ...head, input: [{ role: "user", content: "Weather?" }] };
    for (let t = 0; t < 5; t++) {
      inc.parse("openai-responses", JSON.stringify(body), ids, expand);
      served({ id: `bbx-resp-${t}`, output: reply(t) });
      body = { ...head, previous_response_id: `bbx-resp-${t}`, input: [output(t)] };
    }
    // the first body, the first chained one (its predecessor stood for itself), then by identity
    expect(inc.stats).toMatchObject({ fullParses: 2, incrementalParses: 3 });
  });
});
