/** The view data: step summaries and ends, the verdict, the pairs compared, and the page's script safety. */
import { describe, expect, it } from "vitest";
import { loadTrace } from "../../../src/index.js";
import { buildViewData, comparablePairs, stepMetas } from "../../../src/view/data.js";
import { renderHtml, scriptSafeJson } from "../../../src/view/html.js";
import { TraceBuilder } from "../../../src/trace/builder.js";
import type { Trace } from "../../../src/trace/types.js";

const fixture = (name: string): Promise<Trace> =>
  loadTrace(new URL(`../../fixtures/${name}.json`, import.meta.url).pathname);

describe("stepMetas", () => {
  it("ends a model call at its output and a tool call at the result with its toolCallId", async () => {
    const trace = await fixture("parallel");
    const steps = stepMetas(trace);
    expect(steps.map((s) => s.type)).toEqual(trace.steps.map((s) => s.type));
    trace.steps.forEach((s, i) => {
      const meta = steps[i]!;
      if (s.type === "model_input")
        expect(meta.end).toBe(trace.steps.find((o, j) => j > i && o.type === "model_output")!.timestamp);
      if (s.type === "tool_call") {
        const id = (s.payload as { toolCallId: string }).toolCallId;
        const result = trace.steps.find(
          (o) => o.type === "tool_result" && (o.payload as { toolCallId: string }).toolCallId === id,
        );
        expect(meta.end).toBe(result!.timestamp);
      }
      if (s.type === "tool_result" || s.type === "metadata") expect(meta.end).toBeNull();
    });
    expect(steps.some((s) => s.error)).toBe(true); // the fixture's error result
    expect(steps.filter((s) => s.model !== null).map((s) => s.model)).toContain("claude-sonnet-4-5");
  });
});

describe("buildViewData", () => {
  it("embeds the verify verdict and the divergence diffTraces reports", async () => {
    const [basic, tampered, child] = await Promise.all([fixture("basic"), fixture("tampered"), fixture("fork-child")]);
    const { data, payloads } = buildViewData(
      [basic, tampered, child].map((trace, i) => ({ trace, file: `${i}.json`, bytes: 1 })),
      { groups: [], cwd: "/w", version: "0.0.0" },
    );
    expect(data.runs[0]!.verify.ok).toBe(true);
    expect(data.runs[1]!.verify.ok).toBe(false);
    expect(data.runs[1]!.verify.problems.length).toBeGreaterThan(0);
    expect(payloads[0]).toEqual(basic.steps.map((s) => JSON.stringify(s.payload)));
    expect(data.pairs.map((p) => [p.a, p.b])).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(data.pairs[0]!.divergence).not.toBeNull();
  });

  it("compares every pair of a few runs, and only runs of one fork tree past that", () => {
    const run = (id: string, parentId?: string): Trace =>
      new TraceBuilder({ id, createdAt: 0, ...(parentId ? { parentId, forkedFromStepId: `${parentId}:0` } : {}) })
        .trace;
    const few = [run("a"), run("b"), run("c")];
    expect(comparablePairs(few)).toHaveLength(3);
    const many = [
      run("root"),
      run("kid", "root"),
      run("grandkid", "kid"),
      ...Array.from({ length: 20 }, (_, i) => run(`x${i}`)),
    ];
    expect(comparablePairs(many)).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
  });
});

describe("the page", () => {
  it("keeps a payload that holds </script> or <!-- inside its script element, with the same JSON", () => {
    const text = JSON.stringify({ html: "</script><script>alert(1)</script><!-- x" });
    expect(scriptSafeJson(text)).not.toMatch(/<\/script|<!--/i);
    expect(JSON.parse(scriptSafeJson(text))).toEqual(JSON.parse(text));
  });

  it("refuses a bundle that would end its own element", async () => {
    const { data, payloads } = buildViewData([], { groups: [], cwd: "/", version: "0" });
    expect(() => renderHtml(data, payloads, { js: "a='</script>'", css: "" })).toThrow(/closing script/);
  });
});
