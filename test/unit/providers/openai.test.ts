import { describe, expect, it } from "vitest";
import { openaiProvider as o } from "../../../src/providers/openai/index.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { BlackboxUnsupportedError } from "../../../src/errors.js";

const u = (s: string) => new URL(s);

describe("openai classify", () => {
  it("chat completions is a model call, with a prefix too", () => {
    expect(o.classify("POST", u("https://api.openai.com/v1/chat/completions"))).toBe("model");
    expect(o.classify("POST", u("https://proxy.internal/openai/chat/completions"))).toBe("model");
  });
  it("leaves the Responses API on the same base URL to its own definition", () => {
    expect(o.classify("POST", u("https://api.openai.com/v1/responses"))).toBe("other");
  });
  it("everything else is other", () => {
    expect(o.classify("GET", u("https://api.openai.com/v1/models"))).toBe("other");
    expect(o.classify("POST", u("https://api.openai.com/v1/embeddings"))).toBe("other");
    expect(o.classify("GET", u("https://api.openai.com/v1/chat/completions"))).toBe("other");
  });
});

const history = {
  model: "gpt-4.1",
  messages: [
    { role: "system", content: "You are helpful." },
    {
      role: "developer",
      content: [
        { type: "text", text: "Be " },
        { type: "text", text: "brief." },
      ],
    },
    { role: "user", content: "Weather?" },
    {
      role: "assistant",
      content: "Checking.",
      tool_calls: [
        { id: "call_A", type: "function", function: { name: "get_weather", arguments: '{"city": "Lisbon"}' } },
        { id: "call_B", type: "function", function: { name: "get_weather", arguments: "not json" } },
      ],
    },
    { role: "tool", tool_call_id: "call_A", content: "sunny" },
    { role: "tool", tool_call_id: "call_B", content: [{ type: "text", text: "rain" }] },
    { role: "user", content: [{ type: "text", text: "thanks" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_C", type: "function", function: { name: "get_weather", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "call_C", content: "x" },
  ],
  tools: [
    { type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object" } } },
  ],
  max_completion_tokens: 100,
  temperature: 0,
  top_p: 1,
  tool_choice: "required",
  parallel_tool_calls: true,
  stop: "END",
  response_format: { type: "text" },
  seed: 42,
  reasoning_effort: "low",
  presence_penalty: 0.1,
  frequency_penalty: 0.2,
  logit_bias: { "50256": -100 },
  logprobs: false,
  verbosity: "low",
  store: true,
  user: "u1",
  metadata: { a: "b" },
  service_tier: "auto",
  stream_options: null,
};

describe("openai parseRequest", () => {
  it("maps system/developer, tool turns, arguments, tools and neutral params", () => {
    const r = o.parseRequest(history, new ToolCallIds());
    expect(r).toMatchObject({ stream: false, thinking: false });
    expect(r.input).toEqual({
      model: "gpt-4.1",
      systemPrompt: "You are helpful.\n\nBe brief.",
      messages: [
        { role: "user", content: "Weather?" },
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
        { role: "user", content: [{ type: "text", text: "thanks" }] },
        {
          role: "assistant",
          content: [{ type: "tool_use", toolCallId: "call-2", toolName: "get_weather", toolInput: {} }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", toolCallId: "call-2", toolName: "get_weather", result: "x" }],
        },
      ],
      tools: [{ name: "get_weather", description: "Weather", inputSchema: { type: "object" } }],
      params: {
        maxTokens: 100,
        temperature: 0,
        topP: 1,
        toolChoice: "any",
        parallelToolCalls: true,
        stopSequences: ["END"],
        responseFormat: { type: "text" },
        seed: 42,
        reasoningEffort: "low",
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        logitBias: { "50256": -100 },
        logprobs: false,
        verbosity: "low",
      },
    });
  });

  it("max_tokens is the same neutral maxTokens; a named tool_choice becomes {name}; stream is reported", () => {
    const r = o.parseRequest(
      {
        model: "m",
        max_tokens: 9,
        stream: true,
        tool_choice: { type: "function", function: { name: "t" } },
        messages: [],
      },
      new ToolCallIds(),
    );
    expect(r.stream).toBe(true);
    expect(r.input.params).toEqual({ maxTokens: 9, toolChoice: { name: "t" } });
  });

  const msgs = (...m: unknown[]) => ({ model: "m", messages: m });

  // LangChain's ChatOpenAI sends `name` on every tool message (the tool's own): the tool step holds it
  const called = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_A", type: "function", function: { name: "get_weather", arguments: "{}" } }],
  };
  it("a tool message naming the tool it answers parses as it does without the name", () => {
    const plain = o.parseRequest(
      msgs(called, { role: "tool", tool_call_id: "call_A", content: "sunny" }),
      new ToolCallIds(),
    );
    const named = o.parseRequest(
      msgs(called, { role: "tool", tool_call_id: "call_A", name: "get_weather", content: "sunny" }),
      new ToolCallIds(),
    );
    expect(named.input).toEqual(plain.input);
  });
  it("refuses a tool message naming another tool than the one it answers", () => {
    expect(() =>
      o.parseRequest(
        msgs(called, { role: "tool", tool_call_id: "call_A", name: "book_hotel", content: "x" }),
        new ToolCallIds(),
      ),
    ).toThrow(
      /messages\[1\] \(tool\) carries a name \("book_hotel"\): a tool message's name must be the name of the tool call it answers/,
    );
  });

  const refusals: [string, unknown, RegExp][] = [
    [
      "an image part",
      msgs({ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }),
      /"image_url" part; image, audio and file parts are not supported yet/,
    ],
    [
      "an audio part",
      msgs({ role: "user", content: [{ type: "input_audio", input_audio: {} }] }),
      /"input_audio" part/,
    ],
    ["a file part", msgs({ role: "user", content: [{ type: "file", file: {} }] }), /"file" part/],
    [
      "a custom tool",
      { messages: [], tools: [{ type: "custom", custom: { name: "x" } }] },
      /"custom", not a function tool; custom tools are not supported yet/,
    ],
    ["n > 1", { messages: [], n: 2 }, /n = 2 .*one request per choice/],
    [
      "web search (web_search_options)",
      { messages: [], web_search_options: {} },
      /"web_search_options" makes the model search the web server-side.*own function tool/,
    ],
    [
      "a late system message",
      msgs({ role: "user", content: "hi" }, { role: "system", content: "x" }),
      /system message after the conversation started.*at the start/,
    ],
    [
      "a late developer message",
      msgs({ role: "user", content: "hi" }, { role: "developer", content: "x" }),
      /developer message after the conversation started/,
    ],
    [
      "a system message name",
      { messages: [{ role: "system", name: "bob", content: "hi" }] },
      /messages\[0\] \(system\) carries a name \("bob"\): the system prompt is recorded as one text.*Remove "name"/,
    ],
    ["logprobs", { messages: [], logprobs: true }, /logprobs: true.*remove logprobs/],
    [
      "both tools and the deprecated functions",
      {
        messages: [],
        functions: [{ name: "f", parameters: {} }],
        tools: [{ type: "function", function: { name: "g", parameters: {} } }],
      },
      /both "tools" and the deprecated "functions" are given; pass one of them/,
    ],
    [
      "a function message naming another function than its call",
      msgs(
        { role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } },
        { role: "function", name: "g", content: "x" },
      ),
      /messages\[1\] \(function\) is named "g", but the function_call it answers \(messages\[0\]\) calls "f"/,
    ],
    [
      "audio output",
      { messages: [], modalities: ["text", "audio"] },
      /audio output .* not supported yet; ask for text only/,
    ],
    ["an unknown role", msgs({ role: "critic", content: "x" }), /role "critic"/],
    [
      "a function message with no call",
      msgs({ role: "function", name: "f", content: "x" }),
      /no assistant message with a function_call/,
    ],
    [
      "a tool message without its call",
      msgs({ role: "tool", tool_call_id: "call_Z", content: "x" }),
      /no earlier assistant tool_calls has/,
    ],
  ];
  for (const [name, body, message] of refusals) {
    it(`refuses ${name}`, () => {
      expect(() => o.parseRequest(body, new ToolCallIds())).toThrow(BlackboxUnsupportedError);
      expect(() => o.parseRequest(body, new ToolCallIds())).toThrow(message);
    });
  }
});

const completion = (message: object, finish_reason: string, extra: object = {}) => ({
  id: "chatcmpl-abc",
  object: "chat.completion",
  created: 1700000000,
  model: "gpt-4.1",
  system_fingerprint: "fp_1",
  choices: [
    { index: 0, message: { role: "assistant", refusal: null, ...message }, finish_reason, logprobs: null, ...extra },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
});

describe("openai parseResponse", () => {
  it("final answer, length, refusal", () => {
    expect(o.parseResponse(completion({ content: "Hi" }, "stop"), new ToolCallIds())).toEqual({
      type: "final_answer",
      text: "Hi",
    });
    expect(o.parseResponse(completion({ content: "cu" }, "length"), new ToolCallIds())).toEqual({
      type: "final_answer",
      text: "cu",
      stop: "length",
    });
    expect(o.parseResponse(completion({ content: null, refusal: "I can't" }, "stop"), new ToolCallIds())).toEqual({
      type: "final_answer",
      text: "I can't",
      stop: "refusal",
    });
  });
  it("tool calls with parsed arguments (raw string kept when not JSON) and no provider ids", () => {
    const out = o.parseResponse(
      completion(
        {
          content: null,
          tool_calls: [
            { id: "call_X", type: "function", function: { name: "a", arguments: '{"q":1}' } },
            { id: "call_Y", type: "function", function: { name: "b", arguments: "{oops" } },
          ],
        },
        "tool_calls",
      ),
      new ToolCallIds(),
    );
    expect(out).toEqual({
      type: "tool_calls",
      calls: [
        { toolCallId: "call-0", toolName: "a", toolInput: { q: 1 } },
        { toolCallId: "call-1", toolName: "b", toolInput: "{oops" },
      ],
    });
    expect(JSON.stringify(out)).not.toMatch(/call_|chatcmpl|usage|finish_reason/);
  });
  it("refuses several choices, logprobs and content_filter", () => {
    const two = completion({ content: "a" }, "stop");
    two.choices.push(two.choices[0]!);
    expect(() => o.parseResponse(two, new ToolCallIds())).toThrow(/has 2 choices; Blackbox records exactly one choice/);
    expect(() =>
      o.parseResponse(completion({ content: "a" }, "stop", { logprobs: { content: [] } }), new ToolCallIds()),
    ).toThrow(/carries logprobs/);
    expect(() => o.parseResponse(completion({ content: "a" }, "content_filter"), new ToolCallIds())).toThrow(
      /finish_reason "content_filter"/,
    );
  });
});

describe("openai buildResponse", () => {
  const req = o.parseRequest({ model: "gpt-4.1", messages: [] }, new ToolCallIds());
  it("builds a chat.completion with bbx ids and JSON-string arguments", () => {
    const ids = new ToolCallIds();
    const body = o.buildResponse(
      {
        type: "tool_calls",
        calls: [
          { toolCallId: "call-0", toolName: "a", toolInput: { q: 1 } },
          { toolCallId: "call-1", toolName: "b", toolInput: "{oops" },
        ],
      },
      req,
      ids,
      3,
    );
    expect(body).toEqual({
      id: "bbx-completion-3",
      object: "chat.completion",
      created: 0,
      model: "gpt-4.1",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          logprobs: null,
          message: {
            role: "assistant",
            content: null,
            refusal: null,
            annotations: [],
            tool_calls: [
              { id: "bbx_call-0", type: "function", function: { name: "a", arguments: '{"q":1}' } },
              { id: "bbx_call-1", type: "function", function: { name: "b", arguments: "{oops" } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
    expect(ids.callIdFor("bbx_call-1")).toBe("call-1");
  });
  it("refusal, length and the single tool_call shape", () => {
    const ids = new ToolCallIds();
    expect(o.buildResponse({ type: "final_answer", text: "no", stop: "refusal" }, req, ids, 1)).toMatchObject({
      choices: [{ finish_reason: "stop", message: { content: null, refusal: "no" } }],
    });
    expect(o.buildResponse({ type: "final_answer", text: "cu", stop: "length" }, req, ids, 1)).toMatchObject({
      choices: [{ finish_reason: "length", message: { content: "cu", refusal: null } }],
    });
    expect(
      o.buildResponse({ type: "tool_call", toolCallId: "call-4", toolName: "t", toolInput: { x: 1 } }, req, ids, 1),
    ).toMatchObject({
      choices: [
        {
          finish_reason: "tool_calls",
          message: { tool_calls: [{ id: "bbx_call-4", function: { name: "t", arguments: '{"x":1}' } }] },
        },
      ],
    });
  });
  it("errorBody has the shape OpenAI errors have", () => {
    expect(o.errorBody("[blackbox] no")).toEqual({
      error: { type: "blackbox_error", message: "[blackbox] no", code: "blackbox_error", param: null },
    });
  });
});
