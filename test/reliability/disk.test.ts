/**
 * A full disk and an unwritable output folder: the error names the path and says what
 * to do, nothing half-written is left, a previous cassette stays intact, and the
 * agent's own result (its output and exit code) is not masked.
 *
 * The full disk is a 64 KiB tmpfs and the read-only folder a read-only tmpfs (root
 * only). When mount fails, the full-disk case says why and checks nothing else; the
 * unwritable case then uses a path under a regular file (ENOTDIR) instead.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { blackbox, CassetteWriteError, loadTrace } from "../../src/index.js";
import { runTs } from "../helpers/child.js";

const root = mkdtempSync(join(tmpdir(), "bbx-disk-"));
const mounted: string[] = [];

function mountTmpfs(name: string, options: string): string | Error {
  const dir = join(root, name);
  mkdirSync(dir);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    return new Error(
      `mount -t tmpfs -o ${options} failed (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`,
    );
  }
  mounted.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of mounted) execFileSync("umount", [dir]);
});

/** Fills a folder to its last few bytes. */
function fill(dir: string): void {
  const chunk = Buffer.alloc(1024, 120);
  const fd = join(dir, "filler.bin");
  writeFileSync(fd, "");
  try {
    for (;;) writeFileSync(fd, chunk, { flag: "a" });
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
  }
}

describe("a full disk", () => {
  test("a child that exits 3 keeps its output and exit code; stderr names the cassette and says to free space; the previous cassette is intact", async () => {
    const dir = mountTmpfs("full", "size=64k");
    if (dir instanceof Error) {
      console.log(`full-disk case not run: ${dir.message}`);
      return;
    }
    const out = join(dir, "run.json");
    copyFileSync("test/fixtures/basic.json", out);
    const before = readFileSync(out, "utf8");
    fill(dir);
    const r = await runTs("test/reliability/faultChild.ts", ["exit-after", out]);
    expect(r.stdout).toContain("answer: Sunny in Lisbon.");
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `blackbox: cannot write cassette ${out} (ENOSPC): free some disk space and run again. Any previous file there is unchanged.`,
    );
    expect(readFileSync(out, "utf8")).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(["filler.bin", "run.json"]);
  });

  test("finish() rejects with a CassetteWriteError naming the path, after the agent got its answer", async () => {
    const dir = mountTmpfs("full2", "size=64k");
    if (dir instanceof Error) {
      console.log(`full-disk case not run: ${dir.message}`);
      return;
    }
    fill(dir);
    const out = join(dir, "lib.json");
    const bb = blackbox({ mode: "record", out });
    const shout = bb.tool("shout", async (s: string) => `${s.toUpperCase()} ${"!".repeat(20_000)}`);
    const result = await shout("hello");
    expect(result.startsWith("HELLO")).toBe(true);
    const err = await bb.finish({ result }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CassetteWriteError);
    expect((err as Error).message).toBe(
      `cannot write cassette ${out} (ENOSPC): free some disk space and run again. Any previous file there is unchanged.`,
    );
    expect(readdirSync(dir)).toEqual(["filler.bin"]);
  });
});

describe("an unwritable output folder", () => {
  test("a child that finishes normally prints its answer, then fails with a message naming the path", async () => {
    const ro = mountTmpfs("readonly", "ro,size=64k");
    let out: string;
    let expected: string;
    if (ro instanceof Error) {
      console.log(`read-only folder case uses a path under a file instead: ${ro.message}`);
      writeFileSync(join(root, "a-file"), "");
      out = join(root, "a-file", "run.json");
      expected = `cannot write cassette ${out} (ENOTDIR): a part of the path is a file, not a folder; choose another output path.`;
    } else {
      out = join(ro, "runs", "run.json");
      expected = `cannot write cassette ${out} (EROFS): make the folder writable or choose another output path.`;
    }
    const r = await runTs("test/reliability/faultChild.ts", ["none", out]);
    expect(r.stdout).toContain("answer: Sunny in Lisbon.");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(expected);
  });

  test("a recording that ended in a fault still reports the write error and keeps the agent's exit code", async () => {
    writeFileSync(join(root, "plain-file"), "");
    const out = join(root, "plain-file", "run.json");
    const r = await runTs("test/reliability/faultChild.ts", ["exit-in-tool", out]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`blackbox: cannot write cassette ${out} (ENOTDIR)`);
    await expect(loadTrace(out)).rejects.toThrow(`cassette ${out} cannot be read`);
  });
});
