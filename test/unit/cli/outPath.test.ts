import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { forkOut, recordName, recordOut } from "../../../src/cli/outPath.js";

const dir = mkdtempSync(join(tmpdir(), "bbx-outpath-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = new Date("2026-12-04T02:42:24.123Z");

describe("-o naming a folder", () => {
  it("record: a file is itself; a folder (existing, or ending in /) gets record-<date>-<time>.json in it", () => {
    expect(recordName(at)).toBe("record-20261204-024224");
    expect(recordOut(join(dir, "run.json"), at)).toBe(join(dir, "run.json"));
    expect(recordOut(dir, at)).toBe(join(dir, "record-20261204-024224.json"));
    expect(recordOut(`${join(dir, "new")}/`, at)).toBe(join(dir, "new", "record-20261204-024224.json"));
  });

  it("record: a name taken in that second gets -2, -3", () => {
    const runs = join(dir, "runs");
    mkdirSync(runs);
    writeFileSync(join(runs, "record-20261204-024224.json"), "{}");
    expect(recordOut(runs, at)).toBe(join(runs, "record-20261204-024224-2.json"));
    writeFileSync(join(runs, "record-20261204-024224-2.json"), "{}");
    expect(recordOut(runs, at)).toBe(join(runs, "record-20261204-024224-3.json"));
  });

  it("fork: a folder gets the default name inside it", () => {
    expect(forkOut(dir, "/x/trip.fork-3.json")).toBe(join(dir, "trip.fork-3.json"));
    expect(forkOut(join(dir, "f.json"), "/x/trip.fork-3.json")).toBe(join(dir, "f.json"));
  });
});
