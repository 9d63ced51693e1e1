import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { providers } from "../../../src/providers/index.js";
import { anthropicProvider } from "../../../src/providers/anthropic/index.js";
import { openaiProvider } from "../../../src/providers/openai/index.js";
import { MULTIBYTE, anthropicReply, encode, openaiReply } from "./streamFixtures.js";

const streams = {
  anthropic: anthropicReply(
    [
      { type: "text", text: MULTIBYTE },
      { type: "tool_use", id: "toolu_1", name: "f", input: { q: "日本 🌍", n: [1, 2.5, null] } },
    ],
    "tool_use",
  ),
  openai: openaiReply(
    { content: MULTIBYTE, calls: [{ id: "call_1", name: "f", arguments: '{"q":"日本 🌍","n":[1,2.5,null]}' }] },
    "tool_calls",
  ),
} as const;

describe("stream assemblers under random cuts", () => {
  for (const name of ["anthropic", "openai"] as const) {
    it(`${name}: any cut of the byte stream gives the non-streamed output`, () => {
      const bytes = encode(streams[name].sse);
      const expected = (name === "anthropic" ? anthropicProvider : openaiProvider).parseResponse(
        streams[name].body,
        new ToolCallIds(),
      );
      fc.assert(
        fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 40 }), (raw) => {
          const cuts = [...new Set(raw)].sort((a, b) => a - b);
          const a = providers[name].stream.createAssembler(new ToolCallIds());
          let start = 0;
          for (const c of cuts) {
            a.push(bytes.subarray(start, c));
            start = c;
          }
          a.push(bytes.subarray(start));
          expect(a.finish()).toEqual(expected);
        }),
        { numRuns: 200 },
      );
    });
  }
});
