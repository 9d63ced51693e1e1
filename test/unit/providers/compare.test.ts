import { describe, expect, it } from "vitest";
import { compareModelInput } from "../../../src/providers/shared/compare.js";
import { anthropicProvider } from "../../../src/providers/anthropic/index.js";
import { openaiProvider } from "../../../src/providers/openai/index.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import type { ModelInput } from "../../../src/trace/types.js";

const anth = (body: object): ModelInput => anthropicProvider.parseRequest(body, new ToolCallIds()).input;
const oai = (body: object): ModelInput => openaiProvider.parseRequest(body, new ToolCallIds()).input;

const baseAnthropic = () => ({
  model: "claude-x",
  max_tokens: 100,
  system: "Be brief.",
  temperature: 0.5,
  messages: [
    { role: "user", content: "Weather in Lisbon?" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_A", name: "get_weather", input: { city: "Lisbon", units: ["c"] } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_A", content: "sunny" }] },
  ] as any[],
  tools: [
    {
      name: "get_weather",
      description: "Weather",
      input_schema: { type: "object", properties: { city: { type: "string" } } },
    },
  ],
});

describe("compareModelInput: what is compared", () => {
  const cases: [string, (b: ReturnType<typeof baseAnthropic>) => void, string, unknown, unknown][] = [
    ["model", (b) => (b.model = "claude-y"), "model", "claude-x", "claude-y"],
    ["system prompt", (b) => (b.system = "Be long."), "systemPrompt", "Be brief.", "Be long."],
    [
      "a message's text",
      (b) => (b.messages[0].content = "Weather in Porto?"),
      "messages[0].content",
      "Weather in Lisbon?",
      "Weather in Porto?",
    ],
    ["a message's role", (b) => (b.messages[0].role = "assistant"), "messages[0].role", "user", "assistant"],
    [
      "an assistant text",
      (b) => (b.messages[1].content[0].text = "Hmm."),
      "messages[1].content[0].text",
      "Checking.",
      "Hmm.",
    ],
    [
      "a tool input value",
      (b) => (b.messages[1].content[1].input.city = "Porto"),
      "messages[1].content[1].toolInput.city",
      "Lisbon",
      "Porto",
    ],
    [
      "a tool input array",
      (b) => b.messages[1].content[1].input.units.push("f"),
      "messages[1].content[1].toolInput.units[1]",
      undefined,
      "f",
    ],
    [
      "a tool name",
      (b) => {
        b.messages[1].content[1].name = "get_forecast";
      },
      "messages[1].content[1].toolName",
      "get_weather",
      "get_forecast",
    ],
    [
      "a tool result",
      (b) => (b.messages[2].content[0].content = "rain"),
      "messages[2].content[0].result",
      "sunny",
      "rain",
    ],
    [
      "a tool result becoming an error",
      (b) => (b.messages[2].content[0].is_error = true),
      "messages[2].content[0]",
      { type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: "sunny" },
      { type: "tool_result", toolCallId: "call-0", toolName: "get_weather", error: "sunny" },
    ],
    [
      "a message more",
      (b) => b.messages.push({ role: "assistant", content: "ok" }),
      "messages[3]",
      undefined,
      { role: "assistant", content: "ok" },
    ],
    [
      "a message less",
      (b) => b.messages.pop(),
      "messages[2]",
      {
        role: "user",
        content: [{ type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: "sunny" }],
      },
      undefined,
    ],
    [
      "a block more",
      (b) => b.messages[2].content.push({ type: "text", text: "more" }),
      "messages[2].content[1]",
      undefined,
      "more",
    ],
    ["a tool description", (b) => (b.tools[0].description = "Forecast"), "tools[0].description", "Weather", "Forecast"],
    ["a tool name in tools", (b) => (b.tools[0].name = "w"), "tools[0].name", "get_weather", "w"],
    [
      "a tool input schema",
      (b) => ((b.tools[0].input_schema.properties as any).city.type = "number"),
      "tools[0].inputSchema.properties.city.type",
      "string",
      "number",
    ],
    [
      "a tool more",
      (b) => b.tools.push({ name: "x", input_schema: {} } as any),
      "tools[1]",
      undefined,
      { name: "x", inputSchema: {} },
    ],
    ["temperature", (b) => (b.temperature = 0.7), "params.temperature", 0.5, 0.7],
    ["max_tokens", (b) => (b.max_tokens = 5), "params.maxTokens", 100, 5],
    ["a param added", (b) => ((b as any).top_k = 3), "params.topK", undefined, 3],
    ["tool_choice", (b) => ((b as any).tool_choice = { type: "any" }), "params.toolChoice", undefined, "any"],
    ["stop_sequences", (b) => ((b as any).stop_sequences = ["X"]), "params.stopSequences", undefined, ["X"]],
    [
      "thinking",
      (b) => ((b as any).thinking = { type: "enabled", budget_tokens: 1024 }),
      "params.thinking",
      undefined,
      { type: "enabled", budget_tokens: 1024 },
    ],
  ];
  for (const [name, change, path, recorded, actual] of cases) {
    it(`reports ${name} at ${path}`, () => {
      const b = baseAnthropic();
      change(b);
      expect(compareModelInput(anth(baseAnthropic()), anth(b))).toEqual({ path, recorded, actual });
    });
  }

  it("the same request is no difference", () => {
    expect(compareModelInput(anth(baseAnthropic()), anth(baseAnthropic()))).toBeUndefined();
  });

  it("OpenAI params and tool arguments are compared too", () => {
    const body = (extra: object, args = '{"city":"Lisbon"}') => ({
      model: "gpt-x",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "w", arguments: args } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ],
      ...extra,
    });
    const rec = oai(body({ seed: 1 }));
    expect(compareModelInput(rec, oai(body({ seed: 2 })))).toEqual({ path: "params.seed", recorded: 1, actual: 2 });
    expect(compareModelInput(rec, oai(body({ seed: 1 }, '{"city":"Porto"}')))).toEqual({
      path: "messages[1].content[0].toolInput.city",
      recorded: "Lisbon",
      actual: "Porto",
    });
    expect(compareModelInput(rec, oai(body({ seed: 1, response_format: { type: "json_object" } })))).toMatchObject({
      path: "params.responseFormat",
    });
    expect(compareModelInput(rec, oai(body({ seed: 1, stop: ["a"] })))).toMatchObject({ path: "params.stopSequences" });
    expect(compareModelInput(rec, oai(body({ seed: 1, parallel_tool_calls: false })))).toMatchObject({
      path: "params.parallelToolCalls",
    });
  });
});

describe("compareModelInput: what is not compared", () => {
  it("text split into blocks, system string vs blocks, tool_result string vs text blocks", () => {
    const a = baseAnthropic();
    const b = baseAnthropic();
    b.system = [
      { type: "text", text: "Be " },
      { type: "text", text: "brief.", cache_control: { type: "ephemeral" } },
    ] as any;
    b.messages[0].content = [
      { type: "text", text: "Weather in " },
      { type: "text", text: "Lisbon?" },
    ];
    b.messages[1].content.splice(0, 1, { type: "text", text: "Check" }, { type: "text", text: "ing." });
    b.messages[2].content[0].content = [
      { type: "text", text: "sun" },
      { type: "text", text: "ny" },
    ];
    expect(compareModelInput(anth(a), anth(b))).toBeUndefined();
    expect(compareModelInput(anth(b), anth(a))).toBeUndefined();
  });

  it("provider ids, cache_control, metadata, service_tier, thinking blocks, stream", () => {
    const a = baseAnthropic();
    const b = baseAnthropic() as any;
    b.messages[1].content[1].id = "bbx_call-0";
    b.messages[2].content[0].tool_use_id = "bbx_call-0";
    b.messages[1].content.unshift({ type: "thinking", thinking: "let me think", signature: "abc" });
    b.messages[0].content = [{ type: "text", text: "Weather in Lisbon?", cache_control: { type: "ephemeral" } }];
    b.tools[0].cache_control = { type: "ephemeral" };
    b.metadata = { user_id: "u" };
    b.service_tier = "auto";
    b.stream = true;
    expect(compareModelInput(anth(a), anth(b))).toBeUndefined();
  });

  it("OpenAI: max_tokens vs max_completion_tokens, system vs developer, content parts, user, store, metadata, service_tier, ids", () => {
    const a = oai({
      model: "gpt-x",
      max_tokens: 50,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi there" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [{ id: "call_A", type: "function", function: { name: "w", arguments: '{"city": "Lisbon"}' } }],
        },
        { role: "tool", tool_call_id: "call_A", content: "sunny" },
      ],
    });
    const b = oai({
      model: "gpt-x",
      max_completion_tokens: 50,
      user: "u",
      store: true,
      metadata: { k: "v" },
      service_tier: "flex",
      messages: [
        { role: "developer", content: [{ type: "text", text: "Be brief." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "hi " },
            { type: "text", text: "there" },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "text", text: "Checking." }],
          tool_calls: [{ id: "bbx_call-0", type: "function", function: { name: "w", arguments: '{"city":"Lisbon"}' } }],
        },
        { role: "tool", tool_call_id: "bbx_call-0", content: [{ type: "text", text: "sunny" }] },
      ],
    });
    expect(compareModelInput(a, b)).toBeUndefined();
  });

  it("is linear: a 2000-turn history compares quickly", () => {
    const messages: any[] = [];
    for (let i = 0; i < 2000; i++) {
      messages.push({
        role: "assistant",
        content: [{ type: "tool_use", id: `toolu_${i}`, name: "t", input: { i, pad: "x".repeat(200) } }],
      });
      messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "r".repeat(200) }],
      });
    }
    const rec = anth({ model: "m", messages });
    const act = anth({ model: "m", messages });
    const t0 = performance.now();
    expect(compareModelInput(rec, act)).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe("compareModelInput: which call a tool result answers", () => {
  const parallel = (first: string, second: string) => ({
    model: "claude-x",
    max_tokens: 100,
    messages: [
      { role: "user", content: "Weather in Lisbon and Porto?" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_L", name: "get_weather", input: { city: "Lisbon" } },
          { type: "tool_use", id: "toolu_P", name: "get_weather", input: { city: "Porto" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: first, content: "sunny" },
          { type: "tool_result", tool_use_id: second, content: "rain" },
        ],
      },
    ],
  });

  it("two same-name results sent back for each other's call (ids swapped) differ at the toolCallId", () => {
    expect(compareModelInput(anth(parallel("toolu_L", "toolu_P")), anth(parallel("toolu_P", "toolu_L")))).toEqual({
      path: "messages[2].content[0].toolCallId",
      recorded: "call-0",
      actual: "call-1",
    });
  });

  it("OpenAI: the same through tool messages", () => {
    const body = (a: string, b: string) => ({
      model: "gpt-x",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_L", type: "function", function: { name: "w", arguments: "{}" } },
            { id: "call_P", type: "function", function: { name: "w", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: a, content: "sunny" },
        { role: "tool", tool_call_id: b, content: "rain" },
      ],
    });
    expect(compareModelInput(oai(body("call_L", "call_P")), oai(body("call_P", "call_L")))).toMatchObject({
      path: expect.stringMatching(/toolCallId$/),
      recorded: "call-0",
      actual: "call-1",
    });
  });

  it("other provider ids, given in the same order, are no difference (they become the same call-N)", () => {
    const renamed = JSON.parse(
      JSON.stringify(parallel("toolu_L", "toolu_P")).replaceAll("toolu_L", "toolu_X").replaceAll("toolu_P", "toolu_Y"),
    );
    expect(compareModelInput(anth(parallel("toolu_L", "toolu_P")), anth(renamed))).toBeUndefined();
  });
});
