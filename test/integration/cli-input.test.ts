/**
 * `verify`, `show` and `diff` on inputs that are not a plain UTF-8 cassette file: a named
 * pipe nothing writes to, a device, process substitution, `-` (stdin), a byte-order mark,
 * UTF-16 and bytes that are not UTF-8. Each either works or ends with one clear message,
 * quickly, with no stack trace. The CLI runs as a child process, as a user types it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runProcess } from "../helpers/child.js";
import { runCli, type CliResult } from "../helpers/cli.js";

const F = (name: string): string => join("test", "fixtures", name);
const tmp = mkdtempSync(join(tmpdir(), "bbx-cli-input-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function noStack(r: CliResult): void {
  expect(r.code, `timed out or crashed:\n${r.stderr}`).not.toBeNull();
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

describe("a path that is not a regular file", () => {
  it("a named pipe nothing writes to: each command ends at once with what to do (no hang)", async () => {
    const fifo = join(tmp, "pipe.json");
    execFileSync("mkfifo", [fifo]);
    for (const args of [
      ["verify", fifo],
      ["show", fifo],
      ["diff", F("basic.json"), fifo],
    ]) {
      const r = await runCli(args, { timeoutMs: 8_000 });
      noStack(r);
      // verify's verdict on what it read (1); show and diff cannot read it (2)
      expect(r.code, `blackbox ${args.join(" ")}`).toBe(args[0] === "verify" ? 1 : 2);
      expect(r.stdout + r.stderr).toContain(
        `cassette ${fifo} is a named pipe and nothing was written to it. Pass the path of a cassette .json file, or write the cassette into the pipe.`,
      );
    }
  });

  it("a device (/dev/zero never ends): refused at once instead of read until memory runs out", async () => {
    for (const args of [
      ["verify", "/dev/zero"],
      ["show", "/dev/zero"],
    ]) {
      const r = await runCli(args, { timeoutMs: 8_000 });
      noStack(r);
      expect(r.code).toBe(2); // a file that cannot be read: a usage error, on stderr
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("cassette /dev/zero is not a regular file (a character device); pass the path of a");
    }
  });

  it("process substitution (a pipe with a writer) still works: diff <(git show ...) run.json", async () => {
    const r = await runProcess("bash", [
      "-c",
      `node bin/blackbox.mjs diff <(cat ${F("basic.json")}) ${F("fork-child.json")}; echo "status=$?" >&2`,
    ]);
    expect(r.stdout).toContain("differ: first divergence at step 3 (tool_result)");
    expect(r.stderr.trim().split("\n").at(-1)).toBe("status=1");
  });
});

describe("- reads the cassette from stdin", () => {
  const basic = readFileSync(F("basic.json"));

  it("verify -, show -, diff - <file>", async () => {
    const v = await runCli(["verify", "-"], { input: basic });
    expect(v.code).toBe(0);
    expect(v.stdout).toBe("ok    -  (7 steps, hash chain intact)\n");
    const s = await runCli(["show", "-"], { input: basic });
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/^run basic {2}7 steps/);
    const d = await runCli(["diff", "-", F("fork-child.json")], { input: basic });
    expect(d.code).toBe(1);
    expect(d.stdout).toContain(`    A -: "clear"\n    B ${F("fork-child.json")}: "snow"`);
  });

  it("a tampered cassette on stdin fails verify like a file", async () => {
    const r = await runCli(["verify", "-"], { input: readFileSync(F("tampered.json")) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL  -  1 problem\n  step 3  steps[3].hash: hash does not match");
  });

  it("nothing on stdin: one clear message", async () => {
    const r = await runCli(["show", "-"], { input: "" });
    noStack(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "blackbox: cassette (stdin) is not valid JSON (it is empty). Pipe a cassette in, e.g. git show HEAD:run.json | blackbox show -\n" +
        "usage: blackbox show [options] <cassette>  (blackbox show --help: every option)\n",
    );
  });

  it("- twice is a usage error (stdin can be read once)", async () => {
    for (const args of [
      ["diff", "-", "-"],
      ["verify", "-", F("basic.json"), "-"],
    ]) {
      const r = await runCli(args, { input: basic });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("error: - (stdin) can be given only once; save one of the cassettes to a file");
    }
  });
});

describe("text encodings", () => {
  const basicText = readFileSync(F("basic.json"), "utf8");

  it("a UTF-8 byte-order mark (as some Windows editors save) is accepted", async () => {
    const file = join(tmp, "bom.json");
    writeFileSync(file, `\uFEFF${basicText}`);
    const v = await runCli(["verify", file]);
    expect(v.stdout).toBe(`ok    ${file}  (7 steps, hash chain intact)\n`);
    expect(v.code).toBe(0);
    expect((await runCli(["diff", F("basic.json"), file])).code).toBe(0);
  });

  it("UTF-16 (PowerShell's > redirection) says so and how to convert", async () => {
    const file = join(tmp, "utf16.json");
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(basicText, "utf16le")]));
    const r = await runCli(["show", file]);
    noStack(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `blackbox: cassette ${file} is UTF-16 text; cassettes are UTF-8. Convert it (e.g. iconv -f UTF-16 -t UTF-8 ${file} > run.json) or restore it from version control.\n` +
        "usage: blackbox show [options] <cassette>  (blackbox show --help: every option)\n",
    );
  });

  it("a byte that is not UTF-8 is named with its line and column, not blamed on the hash chain", async () => {
    const file = join(tmp, "latin1.json");
    const bytes = Buffer.from(basicText, "utf8");
    const at = bytes.indexOf(Buffer.from("°C", "utf8"));
    expect(at).toBeGreaterThan(0);
    // "°" as Latin-1 (0xB0) instead of UTF-8 (0xC2 0xB0)
    writeFileSync(file, Buffer.concat([bytes.subarray(0, at), Buffer.from([0xb0]), bytes.subarray(at + 2)]));
    const before = basicText.slice(0, basicText.indexOf("°C"));
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    const r = await runCli(["verify", file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `cassette ${file} is not UTF-8 text: the byte 0xB0 at line ${line}, column ${column} is not valid UTF-8 (saved in another encoding, such as Latin-1, or corrupted). Restore the file from version control or re-record the run.`,
    );
    expect(r.stdout).not.toContain("hash does not match");
  });
});

describe("fork without a command on a cassette that fails verify", () => {
  it("exits 1, names the problem and writes nothing (the child would fail verify too)", async () => {
    const demoDir = join(tmp, "demo");
    expect((await runCli(["demo", "--dir", demoDir])).code).toBe(0);
    const t = JSON.parse(readFileSync(join(demoDir, "trip.json"), "utf8"));
    t.steps[2].payload.toolInput.city = "Porto";
    const edited = join(tmp, "edited.json");
    writeFileSync(edited, JSON.stringify(t, null, 2));
    const out = join(tmp, "edited-child.json");
    const r = await runCli(["fork", edited, "--at", "3", "--set", '"rain"', "-o", out]);
    noStack(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `blackbox: ${edited} fails verify, so it cannot be replayed or forked:\n  step 2 steps[2].hash: hash does not match`,
    );
    expect(r.stdout).toBe("");
    expect(existsSync(out)).toBe(false);
  });
});

describe("options that only apply to a command, given without one", () => {
  it("fork --script/--live/--match and replay --match on the demo agent are refused, not silently ignored", async () => {
    const demoDir = join(tmp, "demo-opts");
    expect((await runCli(["demo", "--dir", demoDir])).code).toBe(0);
    const trip = join(demoDir, "trip.json");
    const script = join(tmp, "script.json");
    writeFileSync(script, JSON.stringify([{ type: "final_answer", text: "scripted" }]));
    const out = join(tmp, "opt-child.json");
    for (const [flag, ...value] of [["--script", script], ["--live"], ["--match", "sequence"]]) {
      const r = await runCli(["fork", trip, "--at", "3", "--set", '"rain"', flag!, ...value, "-o", out]);
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toContain(
        `error: ${flag} applies when forking a command (after --); without one, the built-in demo agent goes on with its own offline planner. Drop ${flag}, or add -- <command>`,
      );
      expect(existsSync(out)).toBe(false);
    }
    const r = await runCli(["replay", trip, "--match", "sequence"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "error: --match applies when replaying a command (after --); without one, the built-in demo agent is replayed from the cassette alone. Drop --match, or add -- <command>",
    );
  });
});

describe("fork --set @file", () => {
  it("a file with a UTF-8 byte-order mark (Notepad) is read as its JSON", async () => {
    const demoDir = join(tmp, "demo-set");
    expect((await runCli(["demo", "--dir", demoDir])).code).toBe(0);
    const set = join(tmp, "set-bom.json");
    writeFileSync(set, '\uFEFF{"city":"Lisbon","forecast":"rain","tempC":14}');
    const out = join(tmp, "set-bom-child.json");
    const r = await runCli(["fork", join(demoDir, "trip.json"), "--at", "3", "--set", `@${set}`, "-o", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).steps[3].payload.result).toEqual({
      city: "Lisbon",
      forecast: "rain",
      tempC: 14,
    });
  });
});
