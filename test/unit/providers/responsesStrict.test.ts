/**
 * `strict` on function tools, recorded and compared alike for the Responses API and chat
 * completions: one conversation sent to either API is one model_input, and a tool whose
 * `strict` changed is a divergence at `tools[i].strict`.
 */
import { describe, expect, it } from "vitest";
import { openaiResponsesProvider as responses } from "../../../src/providers/openai-responses/index.js";
import { openaiProvider as chat } from "../../../src/providers/openai/index.js";
import { compareModelInput } from "../../../src/providers/shared/compare.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

const chatBody = (strict?: boolean | null) => ({
  model: "gpt-4.1",
  messages: [{ role: "user", content: "Weather in Lisbon?" }],
  tools: [
    {
      type: "function",
      function: { name: "get_weather", parameters, ...(strict === undefined ? {} : { strict }) },
    },
  ],
});

const responsesBody = (strict?: boolean | null) => ({
  model: "gpt-4.1",
  input: [{ role: "user", content: "Weather in Lisbon?" }],
  tools: [{ type: "function", name: "get_weather", parameters, ...(strict === undefined ? {} : { strict }) }],
});

const input = (adapter: typeof chat, body: unknown) => adapter.parseRequest(body, new ToolCallIds()).input;

describe("strict function tools", () => {
  it.each([true, false])("chat completions records strict: %s on the tool (it was refused)", (strict) => {
    expect(input(chat, chatBody(strict)).tools).toEqual([{ name: "get_weather", inputSchema: parameters, strict }]);
  });

  it("a strict that is not a boolean (null, absent) is not recorded", () => {
    expect(input(chat, chatBody(null)).tools).toEqual([{ name: "get_weather", inputSchema: parameters }]);
    expect(input(chat, chatBody()).tools).toEqual([{ name: "get_weather", inputSchema: parameters }]);
  });

  it.each([true, false, undefined])("strict %s: the same model_input from either API", (strict) => {
    const a = input(chat, chatBody(strict));
    const b = input(responses, responsesBody(strict));
    expect(b).toEqual(a);
    expect(compareModelInput(a, b)).toBeUndefined();
  });

  it.each([
    ["true -> false", true, false],
    ["false -> true", false, true],
    ["true -> absent", true, undefined],
    ["absent -> false", undefined, false],
  ] as const)("strict %s is a divergence at tools[0].strict", (_what, recorded, actual) => {
    for (const [adapter, body] of [
      [chat, chatBody],
      [responses, responsesBody],
    ] as const) {
      const d = compareModelInput(input(adapter, body(recorded)), input(adapter, body(actual)));
      expect(d).toEqual({ path: "tools[0].strict", recorded, actual });
    }
  });
});
