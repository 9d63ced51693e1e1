/**
 * The verdict cache (src/store/verdicts.ts): a replay's load of a cassette whose bytes this
 * code verified before skips verify; any other bytes are verified in full and fail with the
 * same message, whatever the cache holds.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadVerifiedTraceSync } from "../../../src/store/loadVerified.js";
import { TraceBuilder } from "../../../src/trace/builder.js";
import type { JsonValue } from "../../../src/trace/types.js";

const base = mkdtempSync(join(tmpdir(), "bbx-verdicts-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let cache: string;
let n = 0;
const before = process.env.BLACKBOX_VERIFY_CACHE;
beforeEach(() => {
  cache = join(base, `cache-${++n}`);
  process.env.BLACKBOX_VERIFY_CACHE = cache;
});
afterEach(() => {
  if (before === undefined) delete process.env.BLACKBOX_VERIFY_CACHE;
  else process.env.BLACKBOX_VERIFY_CACHE = before;
});

function cassette(answer = "ok"): string {
  const b = new TraceBuilder({ id: "run", createdAt: 1767225600000 });
  b.append("model_input", { messages: [{ role: "user", content: "hi" }], tools: [] } as unknown as JsonValue, 1);
  b.append("model_output", { type: "final_answer", text: answer }, 2);
  b.append("metadata", { event: "run_completed", status: "success", result: answer }, 3);
  return JSON.stringify(b.trace, null, 2);
}
const entries = () => {
  try {
    return readdirSync(cache);
  } catch {
    return [];
  }
};
const EDITED = /fails verify, so it cannot be replayed or forked:\n {2}step 1 steps\[1\]\.hash: hash does not match/;

describe("the verdict cache", () => {
  it("remembers a cassette that passed, by its bytes' SHA-256, and loads it again to the same trace", () => {
    const file = join(base, "a.json");
    writeFileSync(file, cassette());
    const first = loadVerifiedTraceSync(file);
    expect(entries()).toHaveLength(1);
    expect(entries()[0]).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(loadVerifiedTraceSync(file)).toEqual(first);
  });

  it("an edited cassette is verified in full and fails as before, though the original passed", () => {
    const file = join(base, "b.json");
    writeFileSync(file, cassette());
    loadVerifiedTraceSync(file);
    writeFileSync(file, cassette().replace('"text": "ok"', '"text": "edited"'));
    expect(() => loadVerifiedTraceSync(file)).toThrow(EDITED);
    expect(entries()).toHaveLength(1); // a failure is never remembered
  });

  it("an entry written by other code (another version or build) or under other limits does not count", () => {
    const file = join(base, "c.json");
    const good = cassette();
    writeFileSync(file, good);
    loadVerifiedTraceSync(file);
    const [name] = entries();
    const entry = join(cache, name!);
    const held = JSON.parse(readFileSync(entry, "utf8")) as { code: string };
    expect(held.code).toMatch(/^\d+\.\d+\.\d+\S* \d+ [\d.]+$/);
    // an entry naming the edited bytes' hash but another code identity: the edit is still found
    const edited = good.replace('"text": "ok"', '"text": "edited"');
    writeFileSync(file, edited);
    const sha = createHash("sha256").update(edited).digest("hex");
    writeFileSync(join(cache, `${sha}.json`), JSON.stringify({ ...held, code: "0.0.0 1 1" }));
    expect(() => loadVerifiedTraceSync(file)).toThrow(EDITED);
    writeFileSync(join(cache, `${sha}.json`), readFileSync(entry, "utf8").replace(/"maxSteps":\d+/, '"maxSteps":7'));
    expect(() => loadVerifiedTraceSync(file)).toThrow(EDITED);
  });

  it("BLACKBOX_VERIFY_CACHE=off keeps nothing", () => {
    process.env.BLACKBOX_VERIFY_CACHE = "off";
    const file = join(base, "d.json");
    writeFileSync(file, cassette());
    loadVerifiedTraceSync(file);
    expect(entries()).toEqual([]);
  });
});
