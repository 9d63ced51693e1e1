// The canonical form is pinned: each expected hash was computed with
// `printf '%s' '<canonical>' | sha256sum`, outside this code.
import { describe, expect, it } from "vitest";
import { makeStep } from "../../../src/trace/builder.js";
import { canonicalJson, hashInputOf, stepHash } from "../../../src/trace/canonical.js";
import { verifyTrace } from "../../../src/trace/verify.js";

describe("hash vectors", () => {
  it("first step: keys sorted, no whitespace, UTF-8 text, prevHash null", () => {
    const step = makeStep(
      "v",
      undefined,
      "model_input",
      { tools: [], messages: [{ role: "user", content: "héllo" }] },
      1767225600000,
    );
    const canonical =
      '{"index":0,"payload":{"messages":[{"content":"héllo","role":"user"}],"tools":[]},"prevHash":null,"timestamp":1767225600000,"type":"model_input"}';
    expect(canonicalJson(hashInputOf(step))).toBe(canonical);
    expect(step.hash).toBe("25d4945640d31ae4377d738f6e27baac9c09a4f6f77e65733702a533d468780d");
  });

  it("chained step: numbers, booleans, null and nested keys", () => {
    const input = {
      type: "tool_call",
      timestamp: 1767225600250,
      prevHash: "0".repeat(64),
      index: 1,
      payload: { toolName: "t", toolInput: { b: "x", a: [1, 2.5, true, null] }, toolCallId: "call-0" },
    };
    const canonical =
      '{"index":1,"payload":{"toolCallId":"call-0","toolInput":{"a":[1,2.5,true,null],"b":"x"},"toolName":"t"},"prevHash":"0000000000000000000000000000000000000000000000000000000000000000","timestamp":1767225600250,"type":"tool_call"}';
    expect(canonicalJson(input)).toBe(canonical);
    expect(stepHash(input)).toBe("985a28e77f671beec32cdbc19bf99eebc49a07bf6ba18cdddcdadf97a60d745d");
  });

  it("id and hash are not hash input: a step's id can change without breaking its hash", () => {
    const step = makeStep("v", undefined, "model_input", { tools: [], messages: [] }, 1);
    expect(stepHash({ ...step, id: "other:0" })).toBe(step.hash);
    const output = makeStep("v", step, "model_output", { type: "final_answer", text: "x" }, 2);
    const end = makeStep("v", output, "metadata", { event: "run_completed", status: "success", result: "x" }, 3);
    const trace = { version: 2, id: "v", createdAt: 0, steps: [{ ...step, id: "wrong:0" }, output, end] };
    // ... but verify still checks id === `${trace.id}:${index}`
    expect(verifyTrace(trace).problems.map((p) => p.path)).toEqual(["steps[0].id"]);
  });
});
