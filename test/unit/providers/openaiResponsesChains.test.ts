import { describe, expect, it } from "vitest";
import { BlackboxUnsupportedError } from "../../../src/errors.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import {
  ResponseChains,
  forHistory,
  openaiResponsesAdapter as r,
  openaiResponsesProvider,
  wholeHistory,
  type ResponsesChainedRequest,
} from "../../../src/providers/openai-responses/index.js";
import type { ModelInput, ModelOutput } from "../../../src/trace/types.js";
import { openaiResponse, type FakeResponseContent } from "../../helpers/fakeProvider.js";

type Obj = Record<string, unknown>;

const tools = [{ type: "function", name: "get_weather", parameters: { type: "object" }, strict: true }];
const common = { model: "gpt-4.1", instructions: "Be brief.", tools, max_output_tokens: 200 };

/** The provider's replies of a tool loop: two parallel calls, one more call, then the answer. */
function replies(): Obj[] {
  const spec: FakeResponseContent[] = [
    {
      reasoning: true,
      text: "Checking both.",
      toolCalls: [
        { name: "get_weather", input: { city: "Lisbon" } },
        { name: "get_weather", input: { city: "Porto" } },
      ],
    },
    { toolCalls: [{ name: "get_weather", input: { city: "Faro" } }] },
    { text: "Sunny everywhere." },
  ];
  return spec.map((c) => openaiResponse(c));
}

/** The function_call_output items answering every call of a reply. */
function outputsFor(reply: Obj): Obj[] {
  return (reply.output as Obj[])
    .filter((i) => i.type === "function_call")
    .map((i) => ({ type: "function_call_output", call_id: i.call_id, output: `weather in ${String(i.arguments)}` }));
}

/**
 * An earlier reply's items as the Vercel AI SDK's openai(model) sends them back while `store`
 * is on: its messages and reasoning as item references, its function calls in full, without ids.
 */
function asReferences(output: unknown[]): unknown[] {
  return (output as Obj[]).map((i) => {
    if (i.type === "function_call")
      return { type: "function_call", call_id: i.call_id, name: i.name, arguments: i.arguments };
    return { type: "item_reference", id: i.id };
  });
}

type Style = "whole history" | "chained" | "item references";

/** The requests an agent sends for `answers`: whole history, chained (previous_response_id), or item references. */
function requests(
  answers: Obj[],
  style: Style | boolean,
  first: unknown = "Weather in Lisbon, Porto and Faro?",
): Obj[] {
  const how: Style = style === true ? "chained" : style === false ? "whole history" : style;
  const out: Obj[] = [{ ...common, input: first }];
  let history: unknown[] = typeof first === "string" ? [{ role: "user", content: first }] : (first as unknown[]);
  for (let k = 0; k < answers.length - 1; k++) {
    const more = outputsFor(answers[k]!);
    const said = answers[k]!.output as unknown[];
    history = [...history, ...(how === "item references" ? asReferences(said) : said), ...more];
    out.push(
      how === "chained"
        ? { ...common, previous_response_id: answers[k]!.id, input: more }
        : { ...common, input: history },
    );
  }
  return out;
}

/** What a session does: expand, parse, remember the reply; the model_inputs it would record. */
function run(bodies: Obj[], answers: Obj[], upstream = true): { inputs: ModelInput[]; outputs: ModelOutput[] } {
  const chains = new ResponseChains();
  const ids = new ToolCallIds();
  const inputs: ModelInput[] = [];
  const outputs: ModelOutput[] = [];
  bodies.forEach((body, k) => {
    const x = chains.expand(body);
    expect(x.continuesLocal).toBe(false);
    inputs.push(r.parseRequest(x.full, ids).input);
    outputs.push(r.parseResponse(answers[k], ids));
    chains.remember(x, answers[k], upstream);
  });
  return { inputs, outputs };
}

/** A request served, as the session serves it: expanded, then its reply remembered. */
function serve(chains: ResponseChains, body: Obj, reply: unknown, upstream: boolean): ResponsesChainedRequest {
  const x = chains.expand(body);
  chains.remember(x, reply, upstream);
  return x;
}

describe("Responses chains (previous_response_id)", () => {
  it("a chained run gives the same model_inputs and outputs as the same run sent as whole history", () => {
    const answers = replies();
    const whole = run(requests(answers, false), answers);
    const chained = run(requests(answers, true), answers);
    expect(chained).toEqual(whole);
    expect(whole.inputs[2]!.messages).toHaveLength(5); // user, assistant, results, assistant, result
    expect(whole.inputs[2]!.messages[0]).toEqual({ role: "user", content: "Weather in Lisbon, Porto and Faro?" });
    expect(whole.inputs[2]!.systemPrompt).toBe("Be brief.");
  });

  it("the same, when the first input is a list of items with a developer message", () => {
    const answers = replies();
    const first = [
      { role: "developer", content: "Use metric units." },
      { role: "user", content: [{ type: "input_text", text: "Weather?" }] },
    ];
    const whole = run(requests(answers, false, first), answers);
    expect(run(requests(answers, true, first), answers)).toEqual(whole);
    expect(whole.inputs[1]!.systemPrompt).toBe("Be brief.\n\nUse metric units.");
  });

  it("item references (the Vercel AI SDK's openai(model) with store on) give the same model_inputs too", () => {
    const answers = replies();
    const bodies = requests(answers, "item references");
    expect((bodies[1]!.input as Obj[]).map((i) => i.type)).toEqual([
      undefined,
      "item_reference",
      "item_reference",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
    ]);
    expect(run(bodies, answers)).toEqual(run(requests(answers, false), answers));
  });

  it("an item reference no response of the run returned is refused by name; one the provider does not hold is local", () => {
    const chains = new ResponseChains();
    const expand = () =>
      chains.expand({
        input: [
          { role: "user", content: "x" },
          { type: "item_reference", id: "msg_elsewhere" },
        ],
      });
    expect(expand).toThrow(BlackboxUnsupportedError);
    expect(expand).toThrow(
      /input\[1\] is an item_reference to "msg_elsewhere", which no response of this run returned/,
    );
    const [a, b] = replies();
    serve(chains, { input: "x" }, a, true);
    serve(chains, { input: "x" }, b, false);
    const ref = (reply: Obj) => ({ type: "item_reference", id: (reply.output as Obj[])[0]!.id });
    const x = chains.expand({ model: "m", input: [ref(a!)] });
    expect(x).toEqual({
      full: { model: "m", input: [(a!.output as Obj[])[0]] },
      previous: undefined,
      continuesLocal: false,
      answered: 0,
    });
    expect(chains.expand({ input: [ref(a!), ref(b!)] }).continuesLocal).toBe(true);
    expect(chains.hasItem((a!.output as Obj[])[0]!.id as string)).toBe(true);
  });

  it("expand: the conversation then the request's own input; every other field the request's own", () => {
    const chains = new ResponseChains();
    const [a] = replies();
    chains.rememberResponse(a!.id as string, [{ role: "user", content: "hi" }], a!.output as unknown[]);
    const body = {
      model: "gpt-4.1-mini",
      instructions: "New.",
      previous_response_id: a!.id,
      input: "more",
      store: false,
    };
    const x = chains.expand(body);
    expect(x.full).toEqual({
      model: "gpt-4.1-mini",
      instructions: "New.",
      store: false,
      input: [{ role: "user", content: "hi" }, ...(a!.output as unknown[]), { role: "user", content: "more" }],
    });
    expect(x.previous).toBe(a!.id);
    expect(x.answered).toBe(1 + (a!.output as unknown[]).length);
    expect(x.continuesLocal).toBe(false);
    // a request with nothing to expand stands for itself: the very body, so its reply is remembered too
    const plain = { input: "x" };
    expect(chains.expand(plain)).toEqual({ full: plain, previous: undefined, continuesLocal: false, answered: 0 });
    expect(chains.expand(plain).full).toBe(plain);
    expect(chains.expand({ input: "x", previous_response_id: null }).previous).toBeUndefined();
  });

  it("a chain that started outside the recorded run is refused by name", () => {
    const chains = new ResponseChains();
    const expand = () => chains.expand({ previous_response_id: "resp_elsewhere", input: "x" });
    expect(expand).toThrow(BlackboxUnsupportedError);
    expect(expand).toThrow(
      /previous_response_id "resp_elsewhere" names a response no call of this run returned: the chain started outside the recorded run.*send the whole history in input/,
    );
    expect(() => chains.expand({ previous_response_id: 7 })).toThrow(/previous_response_id 7 names a response/);
  });

  it("in replay the ids are Blackbox's own and the chain still resolves, call-N included", () => {
    const answers = replies();
    const recorded = run(requests(answers, true), answers);
    // replay: the agent gets built responses (bbx ids) and chains on them
    const chains = new ResponseChains();
    const ids = new ToolCallIds();
    let previous: Obj | undefined;
    const inputs: ModelInput[] = [];
    for (let k = 0; k < recorded.outputs.length; k++) {
      const body: Obj = previous
        ? { ...common, previous_response_id: previous.id, input: outputsFor(previous) }
        : { ...common, input: "Weather in Lisbon, Porto and Faro?" };
      const x = chains.expand(body);
      expect(x.continuesLocal).toBe(k > 0);
      const parsed = r.parseRequest(x.full, ids);
      inputs.push(parsed.input);
      previous = r.buildResponse(recorded.outputs[k]!, parsed, ids, k) as Obj;
      expect(previous.id).toBe(`bbx-resp-${k}`);
      chains.remember(x, previous, false);
    }
    // the recorded history held the provider's reasoning item and ids; neither is in model_input
    expect(inputs).toEqual(recorded.inputs);
  });

  it("remembers nothing for a reply without an id; a response can be continued twice (branches)", () => {
    const chains = new ResponseChains();
    serve(chains, { input: "a" }, { output: [] }, true);
    serve(chains, { input: "a" }, "not a body", true);
    const [a] = replies();
    serve(chains, { input: "a" }, a, true);
    expect(chains.has(a!.id as string)).toBe(true);
    const one = chains.expand({ previous_response_id: a!.id, input: "b" });
    const two = chains.expand({ previous_response_id: a!.id, input: "c" });
    expect((one.full.input as Obj[]).at(-1)).toEqual({ role: "user", content: "b" });
    expect((two.full.input as Obj[]).at(-1)).toEqual({ role: "user", content: "c" });
    expect((one.full.input as unknown[]).length).toBe((two.full.input as unknown[]).length);
  });

  it("continuesLocal: a response Blackbox served, or one it had the provider not store; not the agent's own store: false", () => {
    const chains = new ResponseChains();
    const [a, b, c, d] = [...replies(), openaiResponse({ text: "d" })];
    serve(chains, { input: "x" }, a, true); // the provider's, stored by default
    serve(chains, { input: "x", store: false }, b, true); // the provider's, the agent said store: false
    serve(chains, { input: "x" }, c, false); // served from a cassette or a script
    const onServed = serve(chains, { previous_response_id: c!.id, input: "y" }, d, true); // sent as new, unstored
    expect(onServed.continuesLocal).toBe(true);
    const local = (id: unknown) => chains.expand({ previous_response_id: id, input: "y" }).continuesLocal;
    expect([local(a!.id), local(b!.id), local(c!.id), local(d!.id)]).toEqual([false, false, true, true]);
    // a whole-history request holding an item Blackbox served is local too: the provider takes none of its ids
    const served = (c!.output as Obj[])[0]!;
    expect(chains.expand({ input: [{ role: "user", content: "x" }, served] }).continuesLocal).toBe(true);
    expect(chains.expand({ input: [{ role: "user", content: "x" }, (a!.output as Obj[])[0]] }).continuesLocal).toBe(
      false,
    );
  });

  it("a request that is the last one plus items (the very objects) is scanned from there on, with the same verdicts", () => {
    const chains = new ResponseChains();
    const [a, c] = replies();
    serve(chains, { input: "x" }, a, true);
    serve(chains, { input: "x" }, c, false); // served: its items are not the provider's
    const served = (c!.output as Obj[])[0]!;
    const held = (a!.output as Obj[])[0]!;
    const first = [{ role: "user", content: "x" }, served];
    expect(chains.expand({ input: first }).continuesLocal).toBe(true);
    // extended: the served item is in the part not scanned again, and still counts
    const longer = [...first, { role: "user", content: "y" }];
    expect(chains.expand({ input: longer }).continuesLocal).toBe(true);
    // another history with the same length: scanned whole (nothing carried over from the last)
    expect(
      chains.expand({ input: [{ role: "user", content: "x" }, held, { role: "user", content: "y" }] }).continuesLocal,
    ).toBe(false);
    // a reference after a scanned prefix is still resolved
    const ref = { type: "item_reference", id: held.id };
    const withRef = [{ role: "user", content: "x" }, held, { role: "user", content: "y" }];
    chains.expand({ input: withRef });
    const x = chains.expand({ input: [...withRef, ref] });
    expect((x.full.input as unknown[]).at(-1)).toBe(held);
    expect(() => chains.expand({ input: [...withRef, { type: "item_reference", id: "msg_nobody" }] })).toThrow(
      BlackboxUnsupportedError,
    );
  });

  it("an agent that sets store: true itself keeps it when sent as new, and the provider holds the reply", () => {
    const chains = new ResponseChains();
    const [c, d] = replies();
    serve(chains, { input: "x" }, c, false);
    const x = serve(chains, { previous_response_id: c!.id, input: "y", store: true }, d, true);
    expect(JSON.parse(chains.asNew(x)).store).toBe(true);
    expect(chains.expand({ previous_response_id: d!.id, input: "z" }).continuesLocal).toBe(false);
  });

  it("the previous request's items are the very objects the next expansion starts with (an incremental parse may extend it)", () => {
    const chains = new ResponseChains();
    const [a] = replies();
    const first = { input: [{ role: "user", content: "hi" }] };
    serve(chains, first, a, true);
    const x = chains.expand({ previous_response_id: a!.id, input: [] });
    const items = x.full.input as unknown[];
    expect(items[0]).toBe(first.input[0]);
    (a!.output as unknown[]).forEach((o, i) => expect(items[1 + i]).toBe(o));
  });
});

describe("the provider definition", () => {
  it("gives each session a store of its own", () => {
    const make = openaiResponsesProvider.chains!;
    const a = make();
    const [reply] = replies();
    a.remember(a.expand({ input: "x" })!, reply, true);
    expect(() => make().expand({ previous_response_id: reply!.id, input: "y" })).toThrow(/chain started outside/);
    expect(a.expand({ previous_response_id: reply!.id, input: "y" })!.full.input).toHaveLength(
      1 + (reply!.output as unknown[]).length + 1,
    );
  });
});

describe("a chained request sent upstream as whole history (fork --live)", () => {
  function localChain(extra: Obj = {}): ResponsesChainedRequest {
    const chains = new ResponseChains();
    const ids = new ToolCallIds();
    const first = { ...common, input: "Weather?" };
    const out: ModelOutput = {
      type: "tool_calls",
      text: "Checking.",
      calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
    };
    const built = r.buildResponse(out, r.parseRequest(first, ids), ids, 0) as Obj;
    serve(chains, first, built, false);
    const real = { id: "rs_0abc", type: "reasoning", summary: [] };
    const sealed = { id: "rs_0def", type: "reasoning", summary: [], encrypted_content: "gAAAA" };
    const body = {
      ...common,
      ...extra,
      previous_response_id: built.id,
      input: [
        real,
        sealed,
        { id: "fc_0real", type: "function_call", call_id: "call_x", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "bbx_call-0", output: "sunny" },
      ],
    };
    const x = chains.expand(body);
    expect(JSON.parse(chains.asNew(x))).toEqual(wholeHistory(x));
    return x;
  }

  it("is stateless: whole history, no previous_response_id, store: false, no item ids, no reasoning it could not send", () => {
    const x = localChain();
    expect(x.continuesLocal).toBe(true);
    const sent = wholeHistory(x);
    expect(sent).not.toHaveProperty("previous_response_id");
    expect(sent.store).toBe(false);
    expect(sent.instructions).toBe("Be brief.");
    expect(sent.input).toEqual([
      { role: "user", content: "Weather?" },
      {
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", annotations: [], logprobs: [], text: "Checking." }],
      },
      {
        type: "function_call",
        status: "completed",
        arguments: '{"city":"Lisbon"}',
        call_id: "bbx_call-0",
        name: "get_weather",
      },
      { id: "rs_0def", type: "reasoning", summary: [], encrypted_content: "gAAAA" },
      { type: "function_call", call_id: "call_x", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "bbx_call-0", output: "sunny" },
    ]);
    // the whole history parses to the same model_input as the chained request it replaces
    expect(r.parseRequest(sent, new ToolCallIds()).input).toEqual(r.parseRequest(x.full, new ToolCallIds()).input);
  });

  it("keeps the agent's own store setting", () => {
    expect(wholeHistory(localChain({ store: true })).store).toBe(true);
    expect(wholeHistory(localChain({ store: false })).store).toBe(false);
  });

  it("forHistory changes nothing (the same array) when there is nothing to change", () => {
    const items = [
      { role: "user", content: "x" },
      { type: "function_call_output", call_id: "c", output: "" },
    ];
    expect(forHistory(items)).toBe(items);
  });
});
