/**
 * The providers build location strings (messages[i].content[j] ...) only when refusing;
 * the refusals still name the exact place.
 */
import { describe, expect, it } from "vitest";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { anthropicProvider as a, openaiProvider as o } from "../../../src/providers/index.js";

const use = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] };
const call = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "call_1", type: "function", function: { name: "t", arguments: "{}" } }],
};

describe("refusal locations", () => {
  const anthropic: [string, unknown[], unknown, string][] = [
    [
      "a text block without text",
      [{ role: "user", content: [{ type: "text", text: "ok" }, { type: "text" }] }],
      undefined,
      'messages[0].content[1]: a text block without a string "text"; send text as a string.',
    ],
    [
      "a block that is not an object",
      [{ role: "user", content: ["x"] }],
      undefined,
      "Anthropic messages.create: messages[0].content[0] is not a content block object.",
    ],
    [
      "a tool_use without an id",
      [{ role: "assistant", content: [{ type: "tool_use", name: "t" }] }],
      undefined,
      "Anthropic messages.create: messages[0].content[0] tool_use needs a string id and name.",
    ],
    [
      "a tool_result without an id",
      [use, { role: "user", content: [{ type: "tool_result" }] }],
      undefined,
      "Anthropic messages.create: messages[1].content[0] tool_result needs a string tool_use_id.",
    ],
    [
      "an image in a tool result",
      [
        use,
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a" }, { type: "image" }] },
          ],
        },
      ],
      undefined,
      "Anthropic messages.create: messages[1].content[0].content[1] is not a text block;",
    ],
    [
      "a tool result text block without text",
      [use, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text" }] }] }],
      undefined,
      'messages[1].content[0].content[0]: a text block without a string "text"',
    ],
    [
      "a tool result content of the wrong kind",
      [use, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: 5 }] }],
      undefined,
      "Anthropic messages.create: messages[1].content[0].content must be a string or a list of text blocks.",
    ],
    [
      "a system block without text",
      [],
      [{ type: "text", text: "a" }, { type: "text" }],
      'system[1]: a text block without a string "text"',
    ],
  ];
  for (const [name, messages, system, message] of anthropic) {
    it(`Anthropic: ${name}`, () => {
      expect(() => a.parseRequest({ model: "m", system, messages }, new ToolCallIds())).toThrow(message);
    });
  }

  const openai: [string, unknown[], string][] = [
    [
      "a user text part without text",
      [{ role: "user", content: [{ type: "text", text: "a" }, { type: "text" }] }],
      'messages[0].content[1]: a text block without a string "text"',
    ],
    [
      "a system text part without text",
      [{ role: "system", content: [{ type: "text" }] }],
      'messages[0].content[0]: a text block without a string "text"',
    ],
    [
      "a system content of the wrong kind",
      [{ role: "system", content: 5 }],
      "OpenAI chat.completions.create: messages[0].content must be a string or a list of text parts.",
    ],
    [
      "an image part in a tool message",
      [
        { role: "user", content: "hi" },
        call,
        { role: "tool", tool_call_id: "call_1", content: [{ type: "image_url" }] },
      ],
      'OpenAI chat.completions.create: messages[2].content[0] is a "image_url" part;',
    ],
    [
      "tool_calls that are not a list",
      [{ role: "assistant", content: "x", tool_calls: 5 }],
      'OpenAI chat.completions.create messages[0]: "tool_calls" is not an array;',
    ],
    [
      "a tool call that is not a function",
      [{ role: "assistant", content: "x", tool_calls: [{ type: "custom" }] }],
      "OpenAI chat.completions.create: messages[0].tool_calls[0] is not a function tool call;",
    ],
  ];
  for (const [name, messages, message] of openai) {
    it(`OpenAI: ${name}`, () => {
      expect(() => o.parseRequest({ model: "m", messages }, new ToolCallIds())).toThrow(message);
    });
  }
});
