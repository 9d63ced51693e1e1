import { describe, expect, it } from "vitest";
import { findSecrets } from "../../../src/trace/neutrality.js";

describe("findSecrets over text parts", () => {
  const key = "sk-ant-test-split-0123456789";
  const parts = (...texts: string[]) => texts.map((text) => ({ type: "text", text }));

  it("finds a key split across adjacent text parts, at the list", () => {
    expect(findSecrets({ content: parts("a ", key.slice(0, 9), key.slice(9), " b") }, [key])).toEqual(["content"]);
  });
  it("reports a key inside one part at that part, not twice", () => {
    expect(findSecrets({ content: parts(`x${key}`, "y") }, [key])).toEqual(["content[0].text"]);
  });
  it("leaves text parts that only join to other text alone; all text parts of one list are joined", () => {
    expect(findSecrets({ content: parts("sk-ant-", "other") }, [key])).toEqual([]);
    const mixed = [
      { type: "text", text: key.slice(0, 9) },
      { type: "tool_use", text: "ignored" },
      { type: "text", text: key.slice(9) },
    ];
    expect(findSecrets({ content: mixed }, [key])).toEqual(["content"]); // all text parts of one list join (stricter than compare, which joins adjacent ones)
  });
});

describe("TraceBuilder timestamps", () => {
  it("a fractional clock is written as whole milliseconds, so the trace verifies", async () => {
    const { TraceBuilder } = await import("../../../src/trace/builder.js");
    const { verifyTrace } = await import("../../../src/trace/verify.js");
    const b = new TraceBuilder({ id: "frac", createdAt: 1 });
    b.append("tool_call", { toolCallId: "call-0", toolName: "t", toolInput: null }, 10.4);
    b.append("tool_result", { toolCallId: "call-0", toolName: "t", result: 1 }, 11.6);
    b.append("metadata", { event: "run_completed", status: "success", result: 1 }, 12.5);
    expect(b.trace.steps.map((s) => s.timestamp)).toEqual([10, 12, 13]);
    expect(verifyTrace(b.trace)).toEqual({ ok: true, problems: [] });
  });
});
