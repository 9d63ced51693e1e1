/**
 * `blackbox completion bash|zsh|fish`, printed by the built CLI and loaded by the shell
 * itself: bash's completion function and fish's `complete -C` answer what a user's TAB
 * would get; zsh loads the script under compinit and registers it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "bbx-completion-"));
const scripts: Record<string, string> = {};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await runCli(["completion", shell]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    scripts[shell] = join(dir, `blackbox.${shell}`);
    writeFileSync(scripts[shell]!, r.stdout);
  }
});

const has = (shell: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${shell}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

describe("blackbox completion", () => {
  it("bash: commands, each command's options, an option's values, the shells", () => {
    const complete = (...words: string[]): string =>
      execFileSync(
        "bash",
        [
          "-c",
          `source ${scripts.bash}; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _blackbox; echo "\${COMPREPLY[*]}"`,
          "bash",
          ...words,
        ],
        { encoding: "utf8", cwd: dir },
      ).trim();
    expect(complete("blackbox", "rep")).toBe("replay");
    expect(complete("blackbox", "re")).toBe("record replay redact");
    expect(complete("blackbox", "replay", "--c")).toBe("--config");
    expect(complete("blackbox", "replay", "run.json", "--match", "")).toBe("strict sequence");
    expect(complete("blackbox", "fork", "--j")).toBe("--json");
    expect(complete("blackbox", "completion", "")).toBe("bash zsh fish");
    expect(complete("blackbox", "help", "sh")).toBe("show");
  });

  it("fish: complete -C gives the commands and an option's values", () => {
    expect(has("fish"), "fish is installed where this test runs").toBe(true);
    const complete = (line: string): string[] =>
      execFileSync("fish", ["-c", `source ${scripts.fish}; complete -C ${JSON.stringify(line)}`], {
        encoding: "utf8",
      })
        .trim()
        .split("\n")
        .map((l) => l.split("\t")[0]!);
    expect(complete("blackbox re")).toEqual(["record", "redact", "replay"]);
    expect(complete("blackbox replay x --match ").sort()).toEqual(["sequence", "strict"]);
    expect(complete("blackbox record --j")).toEqual(["--json"]);
  });

  it("zsh: the script parses and registers _blackbox under compinit", () => {
    expect(has("zsh"), "zsh is installed where this test runs").toBe(true);
    const out = execFileSync(
      "zsh",
      ["-f", "-c", `autoload -U compinit; compinit -u -D; source ${scripts.zsh}; print -r -- $_comps[blackbox]`],
      { encoding: "utf8" },
    );
    expect(out.trim()).toBe("_blackbox");
    const text = execFileSync("cat", [scripts.zsh], { encoding: "utf8" });
    for (const flag of ["--match[how requests are matched]:value:(strict sequence)", "--config", "--json", "--at"])
      expect(text).toContain(flag);
  });
});
