/** Property: every neutral output survives build -> parse unchanged, for both providers. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { providers } from "../../../src/providers/index.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import type { JsonValue, ModelOutput } from "../../../src/trace/types.js";

const call = fc.record({
  toolCallId: fc.nat(50).map((n) => `call-${n}`),
  toolName: fc.stringMatching(/^[a-z_]{1,12}$/),
  toolInput: fc.jsonValue() as fc.Arbitrary<JsonValue>,
});
const distinct = fc.uniqueArray(call, { minLength: 1, maxLength: 4, selector: (c) => c.toolCallId });

const output: fc.Arbitrary<ModelOutput> = fc.oneof(
  fc.record({ type: fc.constant("final_answer" as const), text: fc.string() }),
  fc.record({
    type: fc.constant("final_answer" as const),
    text: fc.string(),
    stop: fc.constantFrom("length" as const, "refusal" as const),
  }),
  fc.record(
    {
      type: fc.constant("tool_calls" as const),
      calls: distinct,
      text: fc.string({ minLength: 1 }),
      stop: fc.constant("length" as const),
    },
    { requiredKeys: ["type", "calls"] },
  ),
);

describe.each(["anthropic", "openai"] as const)("%s build -> parse", (name) => {
  const adapter = providers[name];
  const request = adapter.parseRequest({ model: "m", messages: [] }, new ToolCallIds());
  it("gives back the same neutral output", () => {
    fc.assert(
      fc.property(output, (out) => {
        const ids = new ToolCallIds();
        const wire = JSON.parse(JSON.stringify(adapter.buildResponse(out, request, ids, 1)));
        const back = adapter.parseResponse(wire, ids);
        expect(back).toEqual(JSON.parse(JSON.stringify(out)));
      }),
      { numRuns: 300 },
    );
  });
  it("turns the built-in loop's single tool_call into a one-call tool_calls", () => {
    const ids = new ToolCallIds();
    const wire = adapter.buildResponse(
      { type: "tool_call", toolCallId: "call-5", toolName: "t", toolInput: { a: [1] } },
      request,
      ids,
      0,
    );
    expect(adapter.parseResponse(wire, ids)).toEqual({
      type: "tool_calls",
      calls: [{ toolCallId: "call-5", toolName: "t", toolInput: { a: [1] } }],
    });
  });
});
