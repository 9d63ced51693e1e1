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
    const mixed = [{ type: "text", text: key.slice(0, 9) }, { type: "tool_use", text: "ignored" }, { type: "text", text: key.slice(9) }];
    expect(findSecrets({ content: mixed }, [key])).toEqual(["content"]); // all text parts of one list join (stricter than compare, which joins adjacent ones)
  });
});
