import { describe, expect, it } from "vitest";
import { BlackboxUnsupportedError } from "../../../src/errors.js";
import { compareModelInput } from "../../../src/providers/shared/compare.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { openaiProvider } from "../../../src/providers/openai/index.js";
import { providers } from "../../../src/providers/index.js";
import {
  openaiResponsesAdapter as r,
  openaiResponsesProvider,
  responsesMoreItems,
  responsesRequestState,
} from "../../../src/providers/openai-responses/index.js";
import type { ProviderAdapter, ProviderDefinition } from "../../../src/providers/types.js";
import { findProviderId } from "../../../src/trace/neutrality.js";
import type { JsonValue, ModelOutput } from "../../../src/trace/types.js";
import { openaiResponse } from "../../helpers/fakeProvider.js";

type Obj = Record<string, unknown>;
const parse = (body: unknown, ids = new ToolCallIds()) => r.parseRequest(body, ids);
const u = (s: string) => new URL(s);

/** A whole-history tool loop as the SDK sends it (items as the API returned them, with their ids). */
const loop: Obj = {
  model: "gpt-4.1",
  instructions: "You are helpful.",
  input: [
    {
      role: "developer",
      content: [
        { type: "input_text", text: "Be " },
        { type: "input_text", text: "brief." },
      ],
    },
    { role: "user", content: [{ type: "input_text", text: "Weather in Lisbon and Porto?" }] },
    { id: "rs_01", type: "reasoning", summary: [] },
    {
      id: "msg_01",
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Checking.", annotations: [], logprobs: [] }],
    },
    {
      id: "fc_01",
      type: "function_call",
      call_id: "call_A",
      name: "get_weather",
      arguments: '{"city":"Lisbon"}',
      status: "completed",
    },
    { id: "fc_02", type: "function_call", call_id: "call_B", name: "get_weather", arguments: "not json" },
    { type: "function_call_output", call_id: "call_A", output: "sunny" },
    { type: "function_call_output", call_id: "call_B", output: [{ type: "input_text", text: "rain" }] },
    { role: "user", content: "thanks" },
    { type: "message", role: "assistant", content: "You're welcome." },
  ],
  tools: [
    {
      type: "function",
      name: "get_weather",
      description: "Weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      strict: true,
    },
  ],
  max_output_tokens: 100,
  temperature: 0,
  store: true,
  metadata: { run: "x" },
};

const loopInput = {
  messages: [
    { role: "user", content: [{ type: "text", text: "Weather in Lisbon and Porto?" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
        { type: "tool_use", toolCallId: "call-1", toolName: "get_weather", toolInput: "not json" },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: "sunny" },
        {
          type: "tool_result",
          toolCallId: "call-1",
          toolName: "get_weather",
          result: [{ type: "text", text: "rain" }],
        },
      ],
    },
    { role: "user", content: "thanks" },
    { role: "assistant", content: "You're welcome." },
  ],
  tools: [
    {
      name: "get_weather",
      description: "Weather",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
      strict: true,
    },
  ],
  systemPrompt: "You are helpful.\n\nBe brief.",
  model: "gpt-4.1",
  params: { maxTokens: 100, temperature: 0 },
};

describe("Responses API classify", () => {
  it("POST …/responses is a model call, with a prefix too", () => {
    expect(r.classify("POST", u("https://api.openai.com/v1/responses"))).toBe("model");
    expect(r.classify("post", u("https://proxy.internal/openai/v1/responses/"))).toBe("model");
  });
  it("every other call under /responses, and chat completions, is another call", () => {
    expect(r.classify("GET", u("https://api.openai.com/v1/responses/resp_123"))).toBe("other");
    expect(r.classify("POST", u("https://api.openai.com/v1/responses/resp_123/cancel"))).toBe("other");
    expect(r.classify("POST", u("https://api.openai.com/v1/responses/input_tokens"))).toBe("other");
    expect(r.classify("GET", u("https://api.openai.com/v1/responses"))).toBe("other");
    expect(r.classify("POST", u("https://api.openai.com/v1/chat/completions"))).toBe("other");
  });
  it("is a registered ProviderDefinition sharing the OpenAI base URLs, keys and SDK", () => {
    const asAdapter: ProviderAdapter = r;
    const asDefinition: ProviderDefinition = openaiResponsesProvider;
    expect(typeof asAdapter.parseRequest).toBe("function");
    expect(r).toBe(openaiResponsesProvider);
    expect(providers["openai-responses"]).toBe(openaiResponsesProvider);
    expect(r.name).toBe("openai-responses");
    expect(asDefinition.modelPath).toBe("/responses");
    expect(asDefinition.baseUrlsOf).toBe("openai");
    const { defaultOrigin, baseUrlEnv, apiKeyEnv, keyHeaders, requestIdHeader, sdkPackage, sdkAgent } = openaiProvider;
    expect(openaiResponsesProvider).toMatchObject({
      defaultOrigin,
      baseUrlEnv,
      apiKeyEnv,
      keyHeaders,
      requestIdHeader,
      sdkPackage,
      sdkAgent,
    });
    expect(openaiResponsesProvider.incremental).toEqual({
      full: responsesRequestState,
      more: responsesMoreItems,
      member: "input",
      expandsEvery: true,
    });
  });
});

describe("Responses API request -> neutral input", () => {
  it("a whole-history tool loop: system prompt, turns, tool uses and results, call-N, params", () => {
    const parsed = parse(loop);
    expect(parsed.input).toEqual(loopInput);
    expect(parsed.stream).toBe(false);
    expect(parsed.thinking).toBe(false);
  });

  it("input as a string is one user message; stream: true is a streamed request", () => {
    const parsed = parse({ model: "gpt-4.1", input: "Hi", stream: true });
    expect(parsed.input).toEqual({ messages: [{ role: "user", content: "Hi" }], tools: [], model: "gpt-4.1" });
    expect(parsed.stream).toBe(true);
    expect(parse({ model: "m" }).input).toEqual({ messages: [], tools: [], model: "m" });
  });

  it("instructions, then leading system and developer items, joined; instructions alone", () => {
    expect(parse({ instructions: "A", input: "x" }).input.systemPrompt).toBe("A");
    const body = {
      instructions: "A",
      input: [
        { role: "system", content: "B" },
        { type: "message", role: "developer", content: [{ type: "input_text", text: "C" }] },
        { role: "user", content: "x" },
      ],
    };
    expect(parse(body).input.systemPrompt).toBe("A\n\nB\n\nC");
    expect(parse({ input: [{ role: "system", content: "B" }] }).input).toEqual({
      messages: [],
      tools: [],
      systemPrompt: "B",
    });
  });

  it("an assistant turn puts its text before its calls, whatever the item order", () => {
    const a = parse({
      input: [
        { role: "user", content: "go" },
        { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me see." }] },
      ],
    });
    expect(a.input.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Let me see." },
        { type: "tool_use", toolCallId: "call-0", toolName: "f", toolInput: {} },
      ],
    });
  });

  it("a run with nothing said (reasoning only, empty text) is no turn; a refusal part is text", () => {
    const a = parse({
      input: [
        { role: "user", content: "a" },
        { type: "reasoning", id: "rs_1", summary: [] },
        { role: "user", content: "b" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "" }] },
        { role: "user", content: "c" },
        { type: "message", role: "assistant", content: [{ type: "refusal", refusal: "No." }] },
      ],
    });
    expect(a.input.messages).toEqual([
      { role: "user", content: "a" },
      { role: "user", content: "b" },
      { role: "user", content: "c" },
      { role: "assistant", content: [{ type: "text", text: "No." }] },
    ]);
  });

  it("item ids, statuses, phases and the fields not compared change nothing", () => {
    const stripped = structuredClone(loop);
    for (const item of stripped.input as Obj[]) {
      delete item.id;
      delete item.status;
    }
    (stripped.input as Obj[])[3]!.phase = "commentary";
    Object.assign(stripped, {
      store: false,
      metadata: null,
      user: "u-1",
      safety_identifier: "s",
      prompt_cache_key: "k",
      prompt_cache_retention: "24h",
      service_tier: "flex",
      include: ["reasoning.encrypted_content"],
      stream_options: { include_obfuscation: false },
      reasoning: { summary: "auto" },
    });
    delete stripped.metadata;
    expect(parse(stripped).input).toEqual(parse(loop).input);
  });

  it("the same call_id in a function_call and its output is the same call-N, in order of first appearance", () => {
    const ids = new ToolCallIds();
    ids.callIdFor("call_earlier");
    const parsed = parse(loop, ids);
    const parts = parsed.input.messages[2]!.content as { toolCallId: string }[];
    expect(parts.map((p) => p.toolCallId)).toEqual(["call-1", "call-2"]);
  });

  it("function tools: strict recorded when a boolean, parameters null is {}, description kept", () => {
    const tools = parse({
      input: "x",
      tools: [
        { type: "function", name: "a", parameters: null, strict: false },
        { type: "function", name: "b", description: "B", parameters: { type: "object" }, strict: null },
      ],
    }).input.tools;
    expect(tools).toEqual([
      { name: "a", inputSchema: {}, strict: false },
      { name: "b", description: "B", inputSchema: { type: "object" } },
    ]);
  });

  it("is the same model_input as the same conversation sent to chat completions", () => {
    const responses = {
      model: "gpt-4.1",
      instructions: "Sys",
      input: [
        { role: "user", content: "Weather?" },
        { type: "message", role: "assistant", content: "Checking." },
        { type: "function_call", call_id: "call_A", name: "w", arguments: '{"c":"L"}' },
        { type: "function_call_output", call_id: "call_A", output: "sunny" },
      ],
      tools: [{ type: "function", name: "w", description: "W", parameters: { type: "object" } }],
      max_output_tokens: 50,
      tool_choice: { type: "function", name: "w" },
      text: {
        format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true },
        verbosity: "low",
      },
      reasoning: { effort: "low" },
      parallel_tool_calls: false,
    };
    const chat = {
      model: "gpt-4.1",
      messages: [
        { role: "system", content: "Sys" },
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [{ id: "call_A", type: "function", function: { name: "w", arguments: '{"c":"L"}' } }],
        },
        { role: "tool", tool_call_id: "call_A", content: "sunny" },
      ],
      tools: [{ type: "function", function: { name: "w", description: "W", parameters: { type: "object" } } }],
      max_completion_tokens: 50,
      tool_choice: { type: "function", function: { name: "w" } },
      response_format: {
        type: "json_schema",
        json_schema: { name: "out", schema: { type: "object" }, strict: true },
      },
      verbosity: "low",
      reasoning_effort: "low",
      parallel_tool_calls: false,
    };
    const a = parse(responses).input;
    expect(a).toEqual(openaiProvider.parseRequest(chat, new ToolCallIds()).input);
    expect(a.params).toEqual({
      maxTokens: 50,
      toolChoice: { name: "w" },
      parallelToolCalls: false,
      responseFormat: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" }, strict: true } },
      verbosity: "low",
      reasoningEffort: "low",
    });
  });
});

const set =
  (path: string) =>
  (v: unknown): Obj => {
    const [head, tail] = path.split(".");
    return tail ? { [head!]: { [tail]: v } } : { [head!]: v };
  };
const rows: [wire: string, a: unknown, b: unknown, neutral: string][] = [
  ["max_output_tokens", 100, 200, "maxTokens"],
  ["temperature", 0.2, 0.7, "temperature"],
  ["top_p", 0.9, 0.5, "topP"],
  ["tool_choice", "auto", "required", "toolChoice"],
  ["parallel_tool_calls", true, false, "parallelToolCalls"],
  ["text.format", { type: "text" }, { type: "json_object" }, "responseFormat"],
  ["text.verbosity", "low", "high", "verbosity"],
  ["reasoning.effort", "low", "high", "reasoningEffort"],
  ["truncation", "auto", "disabled", "truncation"],
  ["max_tool_calls", 1, 2, "maxToolCalls"],
  ["top_logprobs", 1, 2, "topLogprobs"],
];

describe("Responses API compared controls", () => {
  const base = { model: "m", input: "hi" };
  for (const [wire, a, b, neutral] of rows) {
    it(`${wire}: a change is reported at params.${neutral}; the same value is no difference`, () => {
      const ra = parse({ ...base, ...set(wire)(a) }).input;
      const rb = parse({ ...base, ...set(wire)(b) }).input;
      expect(ra.params?.[neutral]).toBeDefined();
      expect(compareModelInput(ra, rb)?.path).toMatch(new RegExp(`^params\\.${neutral}`));
      expect(compareModelInput(ra, parse({ ...base, ...set(wire)(a) }).input)).toBeUndefined();
      expect(compareModelInput(parse(base).input, ra)?.path).toMatch(new RegExp(`^params`));
    });
  }
  it("null counts as absent", () => {
    expect(parse({ input: "x", temperature: null, text: { format: null }, reasoning: null }).input.params).toBe(
      undefined,
    );
  });
});

describe("Responses API refusals, before anything is sent", () => {
  const refuses = (body: unknown, message: RegExp) => {
    expect(() => parse(body)).toThrow(BlackboxUnsupportedError);
    expect(() => parse(body)).toThrow(message);
  };
  const tools: [string, RegExp][] = [
    ["web_search", /tools\[0\] is the built-in web search tool \(type "web_search"\).*Search from your own function/],
    ["web_search_2025_08_26", /built-in web search tool \(type "web_search_2025_08_26"\)/],
    ["web_search_preview", /built-in web search tool/],
    ["web_search_preview_2025_03_11", /built-in web search tool/],
    ["file_search", /built-in file search tool.*runs on OpenAI's side/],
    ["code_interpreter", /built-in code interpreter.*Run code from your own function tool/],
    ["computer_use_preview", /built-in computer use tool/],
    ["computer", /built-in computer use tool/],
    ["image_generation", /built-in image generation tool/],
    ["mcp", /remote MCP server tool.*Call the MCP server from your own function tools/],
    ["local_shell", /local shell tool/],
    ["shell", /the shell tool/],
    ["apply_patch", /apply_patch tool/],
    ["custom", /custom tool \(free-form text input\).*Use a function tool with a JSON schema/],
    ["namespace", /tool namespace/],
    ["tool_search", /tool search tool/],
    ["programmatic_tool_calling", /programmatic tool calling/],
    ["something_new", /tools\[0\] is of type "something_new", not a function tool/],
  ];
  for (const [type, message] of tools) {
    it(`a ${type} tool`, () => refuses({ input: "x", tools: [{ type }] }, message));
  }
  it("a function tool without a name", () =>
    refuses({ tools: [{ type: "function" }] }, /tools\[0\] needs a string name/));

  it("background, conversation, prompt, an unexpanded chain", () => {
    refuses(
      { input: "x", background: true },
      /background: true runs the response on OpenAI's side.*Remove "background"/,
    );
    refuses({ input: "x", conversation: "conv_1" }, /"conversation" keeps the conversation on OpenAI's servers/);
    refuses({ input: "x", conversation: { id: "conv_1" } }, /Send the whole history in input/);
    refuses({ input: "x", prompt: { id: "pmpt_1" } }, /"prompt" uses a prompt template stored on OpenAI's side/);
    refuses(
      { input: "x", previous_response_id: "resp_1" },
      /previous_response_id "resp_1" names a response no call of this run returned: the chain started outside the recorded run/,
    );
    expect(() => parse({ input: "x", background: false, conversation: null, prompt: null })).not.toThrow();
  });

  it("logprobs, context management, moderation, instructions that are not text", () => {
    refuses({ input: "x", include: ["message.output_text.logprobs"] }, /log probabilities.*remove it from include/);
    refuses({ input: "x", context_management: [{ type: "compaction" }] }, /"context_management" lets OpenAI compact/);
    refuses({ input: "x", moderation: { model: "omni-moderation-latest" } }, /"moderation" asks OpenAI to score/);
    refuses({ instructions: [{ role: "system", content: "x" }] }, /"instructions" must be a string/);
    expect(() => parse({ input: "x", context_management: [] })).not.toThrow();
  });

  it("image, file and audio inputs, in a message or a function output", () => {
    for (const type of ["input_image", "input_file", "input_audio"]) {
      refuses(
        { input: [{ role: "user", content: [{ type }] }] },
        new RegExp(
          `input\\[0\\]\\.content\\[0\\] is an ${type} part; image, file and audio inputs are not supported yet`,
        ),
      );
    }
    refuses(
      {
        input: [
          { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
          { type: "function_call_output", call_id: "c", output: [{ type: "input_image", image_url: "x" }] },
        ],
      },
      /input\[1\]\.output\[0\] is an input_image part/,
    );
  });

  it("item references, OpenAI-side and custom tool items, unknown items", () => {
    refuses(
      { input: [{ type: "item_reference", id: "msg_1" }] },
      /input\[0\] is an item_reference to "msg_1", which no response of this run returned.*Send the item itself \(the Vercel AI SDK does with providerOptions: \{ openai: \{ store: false \} \}\)/,
    );
    refuses(
      { input: [{ type: "web_search_call", id: "ws_1" }] },
      /input\[0\] is a web search call \("web_search_call"\)/,
    );
    refuses({ input: [{ type: "computer_call_output" }] }, /a computer use result/);
    refuses({ input: [{ type: "custom_tool_call" }] }, /a custom tool call.*Use function tools/);
    refuses({ input: [{ type: "mcp_call" }] }, /a remote MCP call/);
    refuses({ input: [{ type: "compaction" }] }, /an item of type "compaction"; Blackbox records messages/);
    refuses({ input: [42] }, /input\[0\] is not an object/);
    refuses({ input: { role: "user" } }, /"input" is not an array/);
  });

  it("late system messages, unknown roles, outputs of calls never made, calls without ids", () => {
    refuses(
      {
        input: [
          { role: "user", content: "a" },
          { role: "developer", content: "b" },
        ],
      },
      /input\[1\] is a developer message after the conversation started/,
    );
    refuses({ input: [{ role: "tool", content: "a" }] }, /input\[0\] has role "tool"/);
    refuses(
      { input: [{ type: "function_call_output", call_id: "call_X", output: "r" }] },
      /input\[0\] answers call_id "call_X", which no earlier function_call item has/,
    );
    refuses({ input: [{ type: "function_call", name: "f" }] }, /input\[0\] \(function_call\) needs a string call_id/);
    refuses({ input: [{ role: "user", content: 3 }] }, /input\[0\]\.content must be a string or a list of parts/);
  });
});

describe("Responses API incremental parse (responsesMoreItems)", () => {
  const items = loop.input as unknown[];
  for (let k = 1; k < items.length; k++) {
    it(`the first ${k} items, then the rest: the full parse's input, or undefined where they merge`, () => {
      const ids = new ToolCallIds();
      const state = responsesRequestState({ ...loop, input: items.slice(0, k) }, ids);
      const next = responsesMoreItems(state, items.slice(k), ids);
      const full = parse(loop).input;
      const last = items[k - 1] as Obj;
      const first = items[k] as Obj;
      const side = (i: Obj) => i.type === "function_call" || i.type === "reasoning" || i.role === "assistant";
      const merges =
        state.parsed.input.messages.length === 0 ||
        (side(last) && side(first)) ||
        (last.type === "function_call_output" && first.type === "function_call_output");
      if (merges) expect(next).toBeUndefined();
      else expect(next!.parsed.input).toEqual(full);
    });
  }
  it("a refusal in the new items is the full parse's", () => {
    const ids = new ToolCallIds();
    const state = responsesRequestState({ input: "hi" }, ids);
    expect(() => responsesMoreItems(state, [{ type: "item_reference", id: "x" }], ids)).toThrow(/item_reference/);
  });
});

// ---------------------------------------------------------------------------

const rp = (body: unknown, ids = new ToolCallIds()) => r.parseResponse(body, ids);

describe("Responses API response -> neutral output", () => {
  it("text, with the reasoning item left out", () => {
    expect(rp(openaiResponse({ text: "Hello 🌍", reasoning: true }))).toEqual({
      type: "final_answer",
      text: "Hello 🌍",
    });
  });
  it("parallel function calls with text beside them, arguments parsed (raw when not JSON)", () => {
    const body = openaiResponse({
      text: "Checking both.",
      toolCalls: [
        { name: "get_weather", input: { city: "Lisbon" } },
        { name: "get_weather", input: { city: "Porto" } },
      ],
    });
    ((body.output as Obj[])[2] as Obj).arguments = "not json";
    expect(rp(body)).toEqual({
      type: "tool_calls",
      text: "Checking both.",
      calls: [
        { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
        { toolCallId: "call-1", toolName: "get_weather", toolInput: "not json" },
      ],
    });
  });
  it("several text parts and messages join; no status counts as completed", () => {
    const body = {
      output: [
        {
          type: "message",
          content: [
            { type: "output_text", text: "a" },
            { type: "output_text", text: "b" },
          ],
        },
        { type: "message", content: [{ type: "output_text", text: "c", annotations: [], logprobs: [] }] },
      ],
    };
    expect(rp(body)).toEqual({ type: "final_answer", text: "abc" });
  });
  it("a refusal part is a refusal stop", () => {
    expect(rp(openaiResponse({ refusal: "I can't help with that." }))).toEqual({
      type: "final_answer",
      text: "I can't help with that.",
      stop: "refusal",
    });
  });
  it("incomplete at max_output_tokens is a length stop, for text and for calls", () => {
    expect(rp(openaiResponse({ text: "The answer is lo", incomplete: "max_output_tokens" }))).toEqual({
      type: "final_answer",
      text: "The answer is lo",
      stop: "length",
    });
    expect(rp(openaiResponse({ toolCalls: [{ name: "f", input: {} }], incomplete: "max_output_tokens" }))).toEqual({
      type: "tool_calls",
      calls: [{ toolCallId: "call-0", toolName: "f", toolInput: {} }],
      stop: "length",
    });
    expect(rp(openaiResponse({ reasoning: true, incomplete: "max_output_tokens" }))).toEqual({
      type: "final_answer",
      text: "",
      stop: "length",
    });
  });
  it("refuses what a replay could not give back, by name", () => {
    expect(() => rp(openaiResponse({ text: "x", incomplete: "content_filter" }))).toThrow(
      /is incomplete \(reason "content_filter"\), which Blackbox cannot give back/,
    );
    expect(() =>
      rp({ ...openaiResponse({}), status: "failed", error: { code: "server_error", message: "boom" } }),
    ).toThrow(/failed \(server_error: boom\); a failed reply is not recorded/);
    expect(() => rp({ ...openaiResponse({}), status: "queued" })).toThrow(/has status "queued".*Background responses/);
    expect(() => rp({ output: [{ type: "web_search_call", id: "ws_1", status: "completed" }] })).toThrow(
      /output\[0\] is an OpenAI-side tool item \("web_search_call"\)/,
    );
    expect(() => rp({ output: [{ type: "mcp_list_tools" }] })).toThrow(/OpenAI-side tool item/);
    expect(() => rp({ output: [{ type: "surprise" }] })).toThrow(/output\[0\] is an item of type "surprise"/);
    const cited = openaiResponse({ text: "x" });
    ((cited.output as Obj[])[0]!.content as Obj[])[0]!.annotations = [{ type: "url_citation", url: "u" }];
    expect(() => rp(cited)).toThrow(/output\[0\]\.content\[0\] carries annotations \(citations\)/);
    const lp = openaiResponse({ text: "x" });
    ((lp.output as Obj[])[0]!.content as Obj[])[0]!.logprobs = [{ token: "x", logprob: 0 }];
    expect(() => rp(lp)).toThrow(/carries logprobs/);
    expect(() => rp({ id: "resp_1" })).toThrow(/has no output list/);
    expect(() => rp("nope")).toThrow(/body is not a JSON object/);
    expect(() => rp({ output: [{ type: "function_call", name: "f" }] })).toThrow(/has no string call_id/);
  });
});

// ---------------------------------------------------------------------------

const outputs: Record<string, ModelOutput> = {
  text: { type: "final_answer", text: "Sunny in both 🌍." },
  empty: { type: "final_answer", text: "" },
  "tool calls with text": {
    type: "tool_calls",
    text: "Checking both.",
    calls: [
      { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
      { toolCallId: "call-1", toolName: "get_weather", toolInput: "not json" },
    ],
  },
  "one call": { type: "tool_calls", calls: [{ toolCallId: "call-0", toolName: "f", toolInput: { n: [1, null] } }] },
  "length stop": { type: "final_answer", text: "The answer is lo", stop: "length" },
  "calls cut by length": {
    type: "tool_calls",
    calls: [{ toolCallId: "call-0", toolName: "f", toolInput: {} }],
    stop: "length",
  },
  refusal: { type: "final_answer", text: "I can't help with that.", stop: "refusal" },
};

/** Every string in a JSON value. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) strings(x, out.concat(k));
  return out;
}

describe("Responses API neutral output -> built response", () => {
  const request = parse(loop);
  for (const [name, output] of Object.entries(outputs)) {
    it(`${name}: parses back to the same output, with the same call-N`, () => {
      const ids = new ToolCallIds();
      const body = r.buildResponse(output, request, ids, 3);
      expect(rp(body, ids)).toEqual(output);
    });
  }

  it("ids are Blackbox's own, never a provider's", () => {
    const ids = new ToolCallIds();
    for (const [k, output] of Object.entries(outputs)) {
      const body = r.buildResponse(output, request, ids, 7) as Obj;
      expect(body.id, k).toBe("bbx-resp-7");
      for (const item of body.output as Obj[]) {
        for (const id of [item.id, item.call_id].filter((x) => x !== undefined)) {
          expect(findProviderId(String(id)), `${k}: ${String(id)}`).toBeUndefined();
          expect(String(id), k).toMatch(/^bbx[-_]/);
          expect(String(id)).not.toMatch(/^(resp|msg|call|fc|rs)_/);
        }
      }
      for (const s of strings(body)) expect(findProviderId(s), s).toBeUndefined();
    }
  });

  it("a Response as the API writes it: status, incomplete_details, usage, the request's controls", () => {
    const ids = new ToolCallIds();
    const text = r.buildResponse(outputs.text!, request, ids, 0) as Obj;
    expect(text).toMatchObject({
      object: "response",
      status: "completed",
      incomplete_details: null,
      error: null,
      model: "gpt-4.1",
      max_output_tokens: 100,
      temperature: 0,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
          strict: true,
        },
      ],
      output: [
        {
          id: "bbx-msg-0-0",
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Sunny in both 🌍.", annotations: [], logprobs: [] }],
        },
      ],
    });
    expect(text).not.toHaveProperty("output_text"); // the SDK adds it
    const cut = r.buildResponse(outputs["length stop"]!, request, ids, 1) as Obj;
    expect(cut.status).toBe("incomplete");
    expect(cut.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect((cut.output as Obj[])[0]!.status).toBe("incomplete");
    const refused = r.buildResponse(outputs.refusal!, request, ids, 2) as Obj;
    expect((refused.output as Obj[])[0]!.content).toEqual([{ type: "refusal", refusal: "I can't help with that." }]);
    const calls = r.buildResponse(outputs["tool calls with text"]!, request, ids, 4) as Obj;
    expect((calls.output as Obj[]).map((i) => [i.type, i.id, i.call_id, i.arguments])).toEqual([
      ["message", "bbx-msg-4-0", undefined, undefined],
      ["function_call", "bbx-fc-4-1", "bbx_call-0", '{"city":"Lisbon"}'],
      ["function_call", "bbx-fc-4-2", "bbx_call-1", "not json"],
    ]);
  });

  it("echoes text.format as the request wrote it, and tool_choice in the API's form", () => {
    const format = { type: "json_schema", name: "out", schema: { type: "object" }, strict: true };
    const req = parse({ input: "x", text: { format, verbosity: "low" }, tool_choice: "required" });
    const body = r.buildResponse(outputs.text!, req, new ToolCallIds(), 0) as Obj;
    expect(body.text).toEqual({ format, verbosity: "low" });
    expect(body.tool_choice).toBe("required");
    const named = parse({ input: "x", tool_choice: { type: "function", name: "f" } });
    expect((r.buildResponse(outputs.text!, named, new ToolCallIds(), 0) as Obj).tool_choice).toEqual({
      type: "function",
      name: "f",
    });
  });

  it("a replayed call's ids, sent back in the next request, are the same call-N", () => {
    const ids = new ToolCallIds();
    const first = parse({ input: "go" }, ids);
    const body = r.buildResponse(outputs["tool calls with text"]!, first, ids, 0) as Obj;
    const output = body.output as Obj[];
    const next = parse(
      {
        input: [
          { role: "user", content: "go" },
          ...output,
          { type: "function_call_output", call_id: output[1]!.call_id, output: "sunny" },
          { type: "function_call_output", call_id: output[2]!.call_id, output: "rain" },
        ],
      },
      ids,
    );
    expect(next.input.messages[1]!.content).toEqual([
      { type: "text", text: "Checking both." },
      { type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
      { type: "tool_use", toolCallId: "call-1", toolName: "get_weather", toolInput: "not json" },
    ]);
    expect((next.input.messages[2]!.content as { toolCallId: string }[]).map((p) => p.toolCallId)).toEqual([
      "call-0",
      "call-1",
    ]);
  });

  it("a reply that said nothing (reasoning only, cut by length) and its replay leave the same history", () => {
    const recordedReply = openaiResponse({ reasoning: true, incomplete: "max_output_tokens" });
    const ids = new ToolCallIds();
    const output = rp(recordedReply, ids);
    expect(output).toEqual({ type: "final_answer", text: "", stop: "length" });
    const replayed = r.buildResponse(output, parse({ input: "go" }), new ToolCallIds(), 0) as Obj;
    const next = (reply: Obj) =>
      parse({
        input: [{ role: "user", content: "go" }, ...(reply.output as Obj[]), { role: "user", content: "more" }],
      });
    expect(next(replayed).input).toEqual(next(recordedReply).input);
    expect(next(replayed).input.messages).toHaveLength(2);
  });

  it("the error body is what the SDK turns into a BadRequestError isBlackboxError recognises", () => {
    expect(r.errorBody("[blackbox] no")).toEqual({
      error: { type: "blackbox_error", message: "[blackbox] no", code: "blackbox_error", param: null },
    } satisfies JsonValue);
  });
});
