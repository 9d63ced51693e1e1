/**
 * A cassette parsed step by step (src/store/stepwise.ts, src/trace/stepSplit.ts) is what
 * JSON.parse of its whole text gives, with the history shared as shareRecordedHistory
 * shares it, or nothing (then the file is read whole, as before). Any text, cut into chunks
 * anywhere: tool loops with any one value edited, text-level edits (nesting too deep, more
 * steps than the limit, broken JSON, a second or escaped `steps` key, escapes in strings,
 * a byte-order mark, UTF-16, bytes that are not UTF-8).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { loadVerifiedTraceSync } from "../../../src/store/loadVerified.js";
import { loadStepwiseSync, parseStepwise } from "../../../src/store/stepwise.js";
import { TraceBuilder } from "../../../src/trace/builder.js";
import { prescanJson } from "../../../src/trace/prescan.js";
import { exactlySame, shareRecordedHistory } from "../../../src/trace/share.js";
import type { JsonValue } from "../../../src/trace/types.js";
import { verifyTrace } from "../../../src/trace/verify.js";
import { mutate, mutationArb, nodePaths } from "../../helpers/traceArb.js";

const word = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('a "quoted" \\ word', "naïve ☃ 🚀", "steps", "[{,}]", "\\u0041") },
);
const message = fc.record({
  role: fc.constantFrom("user", "assistant"),
  content: fc.oneof(word, fc.array(fc.record({ type: fc.constant("text"), text: word }), { maxLength: 3 })),
});

/** A tool loop as a cassette holds it (model_input k repeats the first k+1 messages), pretty or compact. */
const loop = fc
  .record({ messages: fc.array(message, { minLength: 1, maxLength: 6 }), pretty: fc.boolean() })
  .map(({ messages, pretty }) => {
    const b = new TraceBuilder({ id: "loop", createdAt: 1767225600000 });
    messages.forEach((_, k) => {
      b.append(
        "model_input",
        { messages: messages.slice(0, k + 1), tools: [], params: { maxTokens: 1024 } } as unknown as JsonValue,
        1000 + k,
      );
      b.append("model_output", { type: "tool_call", toolCallId: `call-${k}`, toolName: "t", toolInput: {} }, 1000 + k);
    });
    b.append("metadata", { event: "run_completed", status: "success", result: "done" }, 2000);
    return JSON.stringify(b.trace, null, pretty ? 2 : undefined);
  });

const textEdit = fc.constantFrom<[string, (t: string) => string]>(
  ["none", (t) => t],
  ["too deep", (t) => t.replace(/"maxTokens": ?1024/, `"maxTokens": ${"[".repeat(300)}${"]".repeat(300)}`)],
  ["deep but allowed", (t) => t.replace(/"maxTokens": ?1024/, `"maxTokens": ${"[".repeat(200)}${"]".repeat(200)}`)],
  ["1e400", (t) => t.replace(/"maxTokens": ?1024/, '"maxTokens": 1e400')],
  ["trailing comma in steps", (t) => t.replace(/\}(\s*)\](\s*)\}\s*$/, "},$1]$2}")],
  ["comma in a step", (t) => t.replace(/"model_output"/, '"model_output",')],
  ["a second steps key", (t) => t.replace(/\}\s*$/, ', "steps": []}')],
  ["an escaped steps key after", (t) => t.replace(/\}\s*$/, ', "st\\u0065ps": []}')],
  ["steps not an array", (t) => t.replace(/"steps": ?\[[\s\S]*\]/, '"steps": {}')],
  ["no steps", (t) => t.replace(/"steps": ?\[[\s\S]*\]/, '"stepz": []')],
  ["empty steps", (t) => t.replace(/"steps": ?\[[\s\S]*\]/, '"steps": [ ]')],
  ["cut off", (t) => t.slice(0, Math.floor(t.length / 2))],
  ["garbage after", (t) => `${t} x`],
  ["unclosed string", (t) => t.replace(/"run_completed"/, '"run_completed')],
  ["stray bracket", (t) => t.replace(/"model_output"/, '"model_output"]')],
  ["version 1", (t) => t.replace(/"version": ?2/, '"version": 1')],
  [
    "steps first",
    (t) => t.replace(/^\{/, '{"steps": [], "x": 1, ').replace(/"steps": ?\[\], "x": 1, ([\s\S]*)"steps"/, '$1"steps"'),
  ],
);

/** What each way answers for `text`: the value and shared set the stepwise parse gives must be JSON.parse's. */
function check(bytes: Uint8Array, cuts: number[]): "taken" | "left" {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const c of [...cuts.map((x) => x % (bytes.length + 1))].sort((a, b) => a - b)) {
    chunks.push(bytes.subarray(at, c));
    at = c;
  }
  chunks.push(bytes.subarray(at));
  // each chunk in one reused buffer, overwritten after it is taken, as the file is read
  const got = parseStepwise(
    (function* () {
      for (const c of chunks) {
        const scratch = Buffer.from(c);
        yield scratch;
        scratch.fill(0x5b); // "[": anything kept from it would no longer parse as it was
      }
    })(),
  );
  const text = Buffer.from(bytes).toString("utf8");
  const fault = prescanJson(text, 256, 100_000);
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    expect(got).toBeUndefined(); // broken JSON is never taken
    return "left";
  }
  if (fault) expect(got).toBeUndefined(); // what the pre-scan refuses is never taken
  if (!got) return "left";
  expect(exactlySame(got.value, whole)).toBe(true); // key order and -0 included
  expect(JSON.stringify(got.value)).toBe(JSON.stringify(whole));
  const steps = (whole as { steps: unknown[] }).steps;
  const shared = shareRecordedHistory(steps);
  expect(got.shared.size).toBe(shared.size);
  expect(verifyTrace(got.value, got.shared)).toEqual(verifyTrace(whole, shared));
  return "taken";
}

describe("a cassette parsed step by step", () => {
  it("is JSON.parse's value with the history shared, or is left to the whole-text load, for any text cut anywhere", () => {
    const taken = new Map<string, number>();
    fc.assert(
      fc.property(
        loop,
        fc.nat(),
        fc.nat(),
        mutationArb,
        fc.boolean(),
        textEdit,
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, pickStep, pickPath, m, edit, [name, textual], cuts) => {
          let file = text;
          if (edit) {
            const value = JSON.parse(text) as { steps: unknown[] };
            const step = value.steps[pickStep % value.steps.length];
            const paths = nodePaths(step);
            mutate(step, paths[pickPath % paths.length]!, m);
            file = JSON.stringify(value, null, 2) ?? "null";
          }
          const changed = textual(file);
          const verdict = check(Buffer.from(changed, "utf8"), cuts);
          // counted by the edit it made (a pattern an edited step no longer has leaves the text as it was)
          const as = changed === file && name !== "none" ? "unchanged" : name;
          if (!edit && name === "none") expect(verdict).toBe("taken"); // a cassette as written is always taken
          if (verdict === "taken") taken.set(as, (taken.get(as) ?? 0) + 1);
        },
      ),
      { numRuns: 800 },
    );
    expect(taken.get("none")).toBeGreaterThan(20); // the plain case is taken (else nothing was compared)
    expect(taken.get("1e400")).toBeGreaterThan(5); // a value verify refuses is still parsed as JSON.parse does
    for (const never of [
      "too deep",
      "trailing comma in steps",
      "a second steps key",
      "an escaped steps key after",
      "cut off",
    ])
      expect(taken.get(never) ?? 0).toBe(0);
  });

  it("leaves bytes that decodeCassette judges to the whole-text load: a BOM, UTF-16, bytes that are not UTF-8", () => {
    const text = JSON.stringify({ version: 2, id: "x", createdAt: 1, steps: [{ a: "é" }] });
    const utf8 = Buffer.from(text, "utf8");
    expect(parseStepwise([utf8])).toBeDefined();
    expect(parseStepwise([Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8])])).toBeUndefined();
    expect(parseStepwise([Buffer.from(text, "utf16le")])).toBeUndefined();
    const latin1 = Buffer.from(text, "latin1"); // é as the single byte 0xE9 inside a step
    expect(parseStepwise([latin1])).toBeUndefined();
    expect(parseStepwise([latin1.subarray(0, 1), latin1.subarray(1)])).toBeUndefined();
  });

  it("stops at the step limit as the pre-scan does", () => {
    const text = JSON.stringify({ version: 2, id: "x", createdAt: 1, steps: [1, 2, 3] });
    const before = process.env.BLACKBOX_MAX_STEPS;
    process.env.BLACKBOX_MAX_STEPS = "2";
    try {
      expect(parseStepwise([Buffer.from(text)])).toBeUndefined();
    } finally {
      if (before === undefined) delete process.env.BLACKBOX_MAX_STEPS;
      else process.env.BLACKBOX_MAX_STEPS = before;
    }
    expect(parseStepwise([Buffer.from(text)])?.value.steps).toEqual([1, 2, 3]);
  });

  const dir = mkdtempSync(join(tmpdir(), "bbx-stepwise-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loads a file as replay does, and an edited one fails with the whole-text load's message", () => {
    const b = new TraceBuilder({ id: "run", createdAt: 1767225600000 });
    b.append("model_input", { messages: [{ role: "user", content: "hi" }], tools: [] } as unknown as JsonValue, 1);
    b.append("model_output", { type: "final_answer", text: "ok" }, 2);
    b.append("metadata", { event: "run_completed", status: "success", result: "ok" }, 3);
    const file = join(dir, "run.json");
    writeFileSync(file, JSON.stringify(b.trace, null, 2));
    expect(loadStepwiseSync(file)).toBeDefined();
    expect(loadVerifiedTraceSync(file)).toEqual(b.trace);
    writeFileSync(file, JSON.stringify(b.trace, null, 2).replace('"ok"', '"edited"'));
    expect(() => loadVerifiedTraceSync(file)).toThrow(
      /fails verify, so it cannot be replayed or forked:\n  step 1 steps\[1\]\.hash: hash does not match/,
    );
    expect(loadStepwiseSync(join(dir, "missing.json"))).toBeUndefined();
    expect(loadStepwiseSync(dir)).toBeUndefined();
  });
});
