import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CassetteWriteError, TraceLoadError } from "../../../src/errors.js";
import { loadTrace, loadTraceSync, MAX_CASSETTE_BYTES, saveTrace, saveTraceSync } from "../../../src/store/index.js";
import { cassetteText } from "../../../src/store/serialize.js";
import { TraceBuilder } from "../../../src/trace/builder.js";
import type { Trace } from "../../../src/trace/types.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "bbx-store-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function smallTrace(id = "t"): Trace {
  const b = new TraceBuilder({ id, createdAt: 1 });
  b.append("model_input", { messages: [{ role: "user", content: "hi" }], tools: [] }, 2);
  b.append("model_output", { type: "final_answer", text: "hello" }, 3);
  b.append("metadata", { event: "run_completed", status: "success", result: "hello" }, 4);
  return b.trace;
}

const leftovers = (d: string): string[] => fs.readdirSync(d).filter((f) => f.endsWith(".tmp"));

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("loadTrace / loadTraceSync", () => {
  it("round-trips what saveTrace wrote: indented JSON (compact below a payload's fields) with a trailing newline", async () => {
    const file = path.join(dir, "nested", "deeper", "run.json");
    await saveTrace(file, smallTrace());
    const text = fs.readFileSync(file, "utf8");
    expect(text).toBe(cassetteText(smallTrace()));
    expect(text.startsWith('{\n  "version": 2,\n')).toBe(true);
    expect(text.endsWith("}\n")).toBe(true);
    expect(await loadTrace(file)).toEqual(smallTrace());
    expect(loadTraceSync(file)).toEqual(smallTrace());
    expect(leftovers(path.dirname(file))).toEqual([]);
  });

  it("a missing file names the path", async () => {
    const file = path.join(dir, "nope.json");
    const e = await rejection(loadTrace(file));
    expect(e).toBeInstanceOf(TraceLoadError);
    expect(e.message).toBe(
      `cassette ${file} does not exist. Check the path (record a run first with \`blackbox record\`).`,
    );
    expect(thrown(() => loadTraceSync(file)).message).toBe(e.message);
  });

  it("a directory is not a cassette", async () => {
    expect((await rejection(loadTrace(dir))).message).toBe(
      `cassette ${dir} is a directory, not a file. Pass the path of a cassette .json file.`,
    );
  });

  it("a file too large to load as one string is refused before reading", async () => {
    const file = path.join(dir, "huge.json");
    const fd = fs.openSync(file, "w");
    fs.ftruncateSync(fd, MAX_CASSETTE_BYTES + 1); // sparse: no real disk use
    fs.closeSync(fd);
    const e = await rejection(loadTrace(file));
    expect(e).toBeInstanceOf(TraceLoadError);
    expect(e.message).toMatch(
      /^cassette .*huge\.json is too large to load \(256\.0 MiB; the limit is 256 MiB\)\. Split the run/,
    );
    expect(thrown(() => loadTraceSync(file)).message).toBe(e.message);
  });

  it("bad content is reported with the file name", async () => {
    const file = path.join(dir, "bad.json");
    fs.writeFileSync(file, "{ nope");
    expect((await rejection(loadTrace(file))).message).toMatch(
      new RegExp(`^cassette ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is not valid JSON \\(line 1, column 3`),
    );
  });
});

describe("saveTrace / saveTraceSync are atomic", () => {
  it("replaces an existing file and leaves no temp file", async () => {
    const file = path.join(dir, "run.json");
    saveTraceSync(file, smallTrace("first"));
    await saveTrace(file, smallTrace("second"));
    expect(loadTraceSync(file).id).toBe("second");
    saveTraceSync(file, smallTrace("third"));
    expect(loadTraceSync(file).id).toBe("third");
    expect(leftovers(dir)).toEqual([]);
  });

  it("target is a directory: CassetteWriteError, the directory untouched, temp removed", async () => {
    const target = path.join(dir, "out.json");
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, "keep.txt"), "keep");
    const e = await rejection(saveTrace(target, smallTrace()));
    expect(e).toBeInstanceOf(CassetteWriteError);
    expect(e.message).toMatch(
      /^cannot write cassette .*out\.json \((EISDIR|ENOTEMPTY)\): the path is a directory; choose a file path such as run.json\. Any previous file there is unchanged\.$/,
    );
    expect(fs.readFileSync(path.join(target, "keep.txt"), "utf8")).toBe("keep");
    expect(leftovers(dir)).toEqual([]);
    const s = thrown(() => saveTraceSync(target, smallTrace()));
    expect(s).toBeInstanceOf(CassetteWriteError);
    expect(leftovers(dir)).toEqual([]);
  });

  it("a parent that is a file: says to choose another path", async () => {
    const blocker = path.join(dir, "blocker");
    fs.writeFileSync(blocker, "x");
    const e = await rejection(saveTrace(path.join(blocker, "run.json"), smallTrace()));
    expect(e).toBeInstanceOf(CassetteWriteError);
    expect(e.message).toMatch(/cannot write cassette .*blocker\/run\.json \((ENOTDIR|EEXIST)\)/);
    expect(e.message).toMatch(/choose another output path|check the output path/);
  });

  it("a trace that is not plain JSON: nothing written, the previous file intact", async () => {
    const file = path.join(dir, "run.json");
    saveTraceSync(file, smallTrace("previous"));
    const bad = smallTrace("bad");
    (bad.steps[0]!.payload as Record<string, unknown>).n = 10n;
    const e = await rejection(saveTrace(file, bad));
    expect(e).toBeInstanceOf(CassetteWriteError);
    expect(e.message).toMatch(/the trace is not plain JSON .*Nothing was written\.$/);
    expect(() => saveTraceSync(file, bad)).toThrow(/the trace is not plain JSON/);
    expect(loadTraceSync(file).id).toBe("previous");
    expect(leftovers(dir)).toEqual([]);
  });
});
