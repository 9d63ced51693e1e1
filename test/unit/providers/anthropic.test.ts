import { describe, expect, it } from "vitest";
import { anthropicProvider as a } from "../../../src/providers/anthropic/index.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { BlackboxUnsupportedError } from "../../../src/errors.js";

const u = (s: string) => new URL(s);

describe("anthropic classify", () => {
  it("treats POST /v1/messages as a model call, with or without a path prefix", () => {
    expect(a.classify("POST", u("https://api.anthropic.com/v1/messages"))).toBe("model");
    expect(a.classify("POST", u("https://proxy.internal/llm/anthropic/v1/messages/"))).toBe("model");
  });
  it("treats count_tokens, models, batches and GETs as other calls", () => {
    expect(a.classify("POST", u("https://api.anthropic.com/v1/messages/count_tokens"))).toBe("other");
    expect(a.classify("GET", u("https://api.anthropic.com/v1/models"))).toBe("other");
    expect(a.classify("POST", u("https://api.anthropic.com/v1/messages/batches"))).toBe("other");
    expect(a.classify("GET", u("https://api.anthropic.com/v1/messages"))).toBe("other");
    expect(a.classify("POST", u("https://api.anthropic.com/v1/agents"))).toBe("other");
  });
  it("refuses managed agent sessions, whose model runs on Anthropic's side, by name", () => {
    for (const [method, url] of [
      ["POST", "https://api.anthropic.com/v1/sessions?beta=true"],
      ["GET", "https://api.anthropic.com/v1/sessions/sesn_01/events/stream"],
      ["POST", "https://gw.internal/anthropic/v1/sessions/sesn_01/events"],
    ]) {
      const kind = a.classify(method!, u(url!));
      expect(kind, url).toEqual({
        unsupported: expect.stringContaining(
          "Anthropic managed agent sessions (client.beta.sessions, its events, SessionToolRunner) run the agent's model on Anthropic's side",
        ),
      });
    }
    expect(a.classify("GET", u("https://api.anthropic.com/v1/sessionsx"))).toBe("other");
  });
  it("refuses Bedrock's InvokeModel and Vertex AI's rawPredict (the AnthropicBedrock / AnthropicVertex clients' model calls) by name", () => {
    for (const path of [
      "/model/anthropic.claude-sonnet-4-6-v1%3A0/invoke",
      "/model/us.anthropic.claude-sonnet-4-6/invoke-with-response-stream/",
    ]) {
      expect(a.classify("POST", u(`https://bedrock-runtime.us-east-1.amazonaws.com${path}`)), path).toEqual({
        unsupported: expect.stringContaining(
          "Claude on Amazon Bedrock (the AnthropicBedrock client of @anthropic-ai/bedrock-sdk) calls Bedrock's InvokeModel API, not the Anthropic Messages API",
        ),
      });
    }
    for (const model of [
      "claude-sonnet-4-6:rawPredict",
      "claude-sonnet-4-6:streamRawPredict",
      "count-tokens:rawPredict",
    ]) {
      expect(
        a.classify(
          "POST",
          u(
            `https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/${model}`,
          ),
        ),
        model,
      ).toEqual({
        unsupported: expect.stringContaining(
          "Claude on Vertex AI (the AnthropicVertex client of @anthropic-ai/vertex-sdk) calls Vertex AI's rawPredict API",
        ),
      });
    }
    // not those APIs: a path that only looks alike, another publisher's model
    expect(a.classify("POST", u("https://gw.internal/model/x/invokes"))).toBe("other");
    expect(
      a.classify(
        "POST",
        u(
          "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/google/models/gemini:rawPredict",
        ),
      ),
    ).toBe("other");
  });
});

const history = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  system: [
    { type: "text", text: "You are ", cache_control: { type: "ephemeral" } },
    { type: "text", text: "helpful." },
  ],
  metadata: { user_id: "u1" },
  service_tier: "auto",
  messages: [
    { role: "user", content: "Weather in Lisbon and Porto?" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_A", name: "get_weather", input: { city: "Lisbon" } },
        { type: "tool_use", id: "toolu_B", name: "get_weather", input: { city: "Porto" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_A", content: "sunny" },
        {
          type: "tool_result",
          tool_use_id: "toolu_B",
          content: [{ type: "text", text: "rain", cache_control: { type: "ephemeral" } }],
        },
        { type: "tool_result", tool_use_id: "toolu_A", is_error: true, content: [{ type: "text", text: "boom" }] },
      ],
    },
  ],
  tools: [
    {
      name: "get_weather",
      description: "Weather",
      input_schema: { type: "object" },
      cache_control: { type: "ephemeral" },
    },
  ],
  temperature: 0.2,
  top_p: 0.9,
  top_k: 5,
  tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
  stop_sequences: ["END"],
  thinking: { type: "enabled", budget_tokens: 2048 },
  output_config: { effort: "high" },
};

describe("anthropic parseRequest", () => {
  it("maps system, messages, tool rounds, tools and neutral params; drops thinking blocks and cache_control", () => {
    const ids = new ToolCallIds();
    const r = a.parseRequest(history, ids);
    expect(r.stream).toBe(false);
    expect(r.thinking).toBe(true);
    expect(r.input).toEqual({
      model: "claude-sonnet-4-5",
      systemPrompt: "You are helpful.",
      messages: [
        { role: "user", content: "Weather in Lisbon and Porto?" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
            { type: "tool_use", toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Porto" } },
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
            { type: "tool_result", toolCallId: "call-0", toolName: "get_weather", error: "boom" },
          ],
        },
      ],
      tools: [{ name: "get_weather", description: "Weather", inputSchema: { type: "object" } }],
      params: {
        maxTokens: 1024,
        temperature: 0.2,
        topP: 0.9,
        topK: 5,
        toolChoice: { name: "get_weather" },
        parallelToolCalls: false,
        stopSequences: ["END"],
        thinking: { type: "enabled", budget_tokens: 2048 },
        outputConfig: { effort: "high" },
      },
    });
  });

  it("reports stream: true instead of refusing it, and only records params that are present", () => {
    const r = a.parseRequest(
      { model: "m", max_tokens: 5, stream: true, messages: [{ role: "user", content: "hi" }] },
      new ToolCallIds(),
    );
    expect(r.stream).toBe(true);
    expect(r.thinking).toBe(false);
    expect(r.input.params).toEqual({ maxTokens: 5 });
    expect(r.input.systemPrompt).toBeUndefined();
  });

  it("maps tool_choice auto/any/none to neutral strings", () => {
    for (const t of ["auto", "any", "none"]) {
      const r = a.parseRequest({ messages: [], tool_choice: { type: t } }, new ToolCallIds());
      expect(r.input.params).toEqual({ toolChoice: t });
    }
  });

  const refusals: [string, unknown, RegExp][] = [
    [
      "an image block",
      { messages: [{ role: "user", content: [{ type: "image", source: {} }] }] },
      /image block; images and documents are not supported yet/,
    ],
    [
      "a document block",
      { messages: [{ role: "user", content: [{ type: "document", source: {} }] }] },
      /document block; images and documents are not supported yet/,
    ],
    [
      "an image in a tool result",
      {
        messages: [
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "image", source: {} }] }],
          },
        ],
      },
      /tool results with images or documents are not supported yet/,
    ],
    [
      "a server-side tool",
      { messages: [], tools: [{ type: "web_search_20250305", name: "web_search" }] },
      /server-side tool \("web_search_20250305"\).*Implement it as your own/,
    ],
    [
      "a strict tool",
      { messages: [], tools: [{ name: "t", input_schema: {}, strict: true }] },
      /sets strict: true.*remove "strict"/,
    ],
    [
      "a server tool block in history",
      { messages: [{ role: "assistant", content: [{ type: "server_tool_use", id: "srvtoolu_1" }] }] },
      /"server_tool_use" block/,
    ],
    [
      "an unknown role",
      { messages: [{ role: "developer", content: "x" }] },
      /role "developer"; use "user" or "assistant"/,
    ],
    [
      "a system message (the tool runner's addTools())",
      { messages: [{ role: "system", content: [{ type: "tool_addition" }] }] },
      /messages\[0\] is a "system" message.*prompt goes in "system".*addTools\(\) and removeTools\(\)/,
    ],
    [
      "a compaction request",
      { messages: [], compaction: { type: "summarize" } },
      /"compaction" asks for a summary.*compactBeforeNextTurn\(\)/,
    ],
    [
      "computer use (its results are screenshots)",
      {
        messages: [],
        tools: [{ type: "computer_20251124", name: "computer", display_width_px: 1024, display_height_px: 768 }],
      },
      /tools\[0\] is Anthropic's computer-use tool \("computer_20251124"\), whose results are screenshots: images are not supported yet/,
    ],
    [
      "the MCP connector (mcp_servers)",
      { messages: [], mcp_servers: [{ type: "url", url: "https://mcp.invalid", name: "x" }] },
      /"mcp_servers" runs server-side tools.*own \(custom\) tool/,
    ],
    [
      "a code-execution container",
      { messages: [], container: "container_1" },
      /"container" is for server-side code execution/,
    ],
    [
      "an unpaired tool_result",
      { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_X", content: "x" }] }] },
      /no earlier tool_use in the request has/,
    ],
  ];
  for (const [name, body, message] of refusals) {
    it(`refuses ${name}`, () => {
      expect(() => a.parseRequest(body, new ToolCallIds())).toThrow(BlackboxUnsupportedError);
      expect(() => a.parseRequest(body, new ToolCallIds())).toThrow(message);
    });
  }
});

const reply = (content: unknown[], stop_reason: string) => ({
  id: "msg_01XYZ",
  type: "message",
  role: "assistant",
  model: "claude-x",
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 34 },
});

describe("anthropic parseResponse", () => {
  it("joins text blocks exactly and drops thinking", () => {
    const out = a.parseResponse(
      reply(
        [
          { type: "thinking", thinking: "t", signature: "s" },
          { type: "text", text: "Hel" },
          { type: "text", text: "lo" },
        ],
        "end_turn",
      ),
      new ToolCallIds(),
    );
    expect(out).toEqual({ type: "final_answer", text: "Hello" });
  });
  it("gives tool_calls even for one call, with the text beside it and call-N ids", () => {
    const ids = new ToolCallIds();
    const out = a.parseResponse(
      reply(
        [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Lisbon" } },
        ],
        "tool_use",
      ),
      ids,
    );
    expect(out).toEqual({
      type: "tool_calls",
      text: "Let me check.",
      calls: [{ toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } }],
    });
    expect(JSON.stringify(out)).not.toMatch(/toolu_|msg_|usage/);
    expect(ids.callIdFor("toolu_9")).toBe("call-0");
  });
  it("maps max_tokens to stop length (also on a tool_calls turn) and refusal to stop refusal", () => {
    expect(a.parseResponse(reply([{ type: "text", text: "cut" }], "max_tokens"), new ToolCallIds())).toEqual({
      type: "final_answer",
      text: "cut",
      stop: "length",
    });
    expect(
      a.parseResponse(
        reply([{ type: "tool_use", id: "toolu_1", name: "t", input: {} }], "max_tokens"),
        new ToolCallIds(),
      ),
    ).toEqual({
      type: "tool_calls",
      calls: [{ toolCallId: "call-0", toolName: "t", toolInput: {} }],
      stop: "length",
    });
    expect(a.parseResponse(reply([{ type: "text", text: "no" }], "refusal"), new ToolCallIds())).toEqual({
      type: "final_answer",
      text: "no",
      stop: "refusal",
    });
  });
  it("refuses a stop_sequence stop, server tool blocks and unknown stops", () => {
    expect(() => a.parseResponse(reply([{ type: "text", text: "x" }], "stop_sequence"), new ToolCallIds())).toThrow(
      /stop sequence.*Remove stop_sequences/,
    );
    expect(() => a.parseResponse(reply([{ type: "web_search_tool_result" }], "end_turn"), new ToolCallIds())).toThrow(
      /"web_search_tool_result" block/,
    );
    expect(() => a.parseResponse(reply([], "pause_turn"), new ToolCallIds())).toThrow(/stop_reason "pause_turn"/);
  });
});

describe("anthropic buildResponse", () => {
  const req = a.parseRequest({ model: "claude-x", messages: [] }, new ToolCallIds());
  it("builds a complete message with bbx ids, zero usage and the right stop_reason", () => {
    const ids = new ToolCallIds();
    const body = a.buildResponse(
      { type: "tool_calls", text: "Hi", calls: [{ toolCallId: "call-3", toolName: "t", toolInput: { a: 1 } }] },
      req,
      ids,
      7,
    );
    expect(body).toMatchObject({
      id: "bbx_msg-7",
      type: "message",
      role: "assistant",
      model: "claude-x",
      stop_reason: "tool_use",
      stop_sequence: null,
      content: [
        { type: "text", text: "Hi" },
        { type: "tool_use", id: "bbx_call-3", name: "t", input: { a: 1 } },
      ],
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    expect(ids.callIdFor("bbx_call-3")).toBe("call-3");
    expect(
      a.buildResponse({ type: "tool_call", toolCallId: "call-0", toolName: "t", toolInput: {} }, req, ids, 1),
    ).toMatchObject({
      stop_reason: "tool_use",
      content: [{ type: "tool_use", id: "bbx_call-0" }],
    });
    expect(a.buildResponse({ type: "final_answer", text: "x", stop: "length" }, req, ids, 2)).toMatchObject({
      stop_reason: "max_tokens",
    });
    expect(a.buildResponse({ type: "final_answer", text: "no", stop: "refusal" }, req, ids, 2)).toMatchObject({
      stop_reason: "refusal",
    });
    expect(a.buildResponse({ type: "final_answer", text: "done" }, req, ids, 2)).toMatchObject({
      stop_reason: "end_turn",
      content: [{ type: "text", text: "done" }],
    });
  });
  it("errorBody carries the blackbox_error type", () => {
    expect(a.errorBody("[blackbox] no")).toEqual({
      type: "error",
      message: "[blackbox] no",
      error: { type: "blackbox_error", message: "[blackbox] no" },
    });
  });
});

describe("Anthropic-defined tools your code runs (bash, text editor, memory)", () => {
  it("are recorded by name, with their type and settings as the input schema; cache_control left out", () => {
    const tools = [
      {
        type: "text_editor_20250728",
        name: "str_replace_based_edit_tool",
        max_characters: 10000,
        cache_control: { type: "ephemeral" },
      },
      { type: "bash_20250124", name: "bash" },
      { type: "memory_20250818", name: "memory" },
    ];
    const input = a.parseRequest(
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: "fix it" }], tools },
      new ToolCallIds(),
    ).input;
    expect(input.tools).toEqual([
      {
        name: "str_replace_based_edit_tool",
        inputSchema: { anthropicDefined: "text_editor_20250728", max_characters: 10000 },
      },
      { name: "bash", inputSchema: { anthropicDefined: "bash_20250124" } },
      { name: "memory", inputSchema: { anthropicDefined: "memory_20250818" } },
    ]);
  });
  it("refuse strict: true, as any tool", () => {
    expect(() =>
      a.parseRequest(
        { messages: [], tools: [{ type: "bash_20250124", name: "bash", strict: true }] },
        new ToolCallIds(),
      ),
    ).toThrow("tools[0] (bash) sets strict: true");
  });
  it("need a name, as any tool", () => {
    expect(() => a.parseRequest({ messages: [], tools: [{ type: "bash_20250124" }] }, new ToolCallIds())).toThrow(
      "tools[0] needs a string name",
    );
  });
});
