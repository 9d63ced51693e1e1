/** The edit-and-fork command the page shows: quoting checked by a real shell, errors, the in-code options. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { defaultForkPath } from "../../../src/cli/builtin.js";
import { defaultForkOut, forkPlan, shellQuote, singleQuote } from "../../../src/view/forkCommand.js";

/** The words sh makes of a command line (printed NUL-separated by printf). */
function shWords(line: string): string[] {
  const out = execFileSync("sh", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

describe("shell quoting", () => {
  const hard = [
    "it's",
    "'",
    "''",
    "a b",
    "$HOME",
    "`id`",
    "$(id)",
    "\\",
    '"quoted"',
    "new\nline",
    "tab\there",
    "*",
    "!bang",
    "ünïcødé ☂",
    "",
  ];
  for (const word of hard) {
    it(`sh reads ${JSON.stringify(word)} back as it was`, () => {
      expect(shWords(singleQuote(word))).toEqual([word]);
      expect(shWords(shellQuote(word))).toEqual([word]);
    });
  }
  it("leaves a plain path bare", () => {
    expect(shellQuote("runs/trip.json")).toBe("runs/trip.json");
    expect(shellQuote("my runs/trip.json")).toBe("'my runs/trip.json'");
  });
});

describe("forkPlan", () => {
  it("gives the command blackbox fork takes: compact JSON in single quotes, the cassette, --at", () => {
    const plan = forkPlan({ cassette: "runs/trip.json", at: 3, text: '{ "forecast": "it\'s rain" }', command: "" });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.cli).toBe(`blackbox fork runs/trip.json --at 3 --set '{"forecast":"it'\\''s rain"}'`);
    expect(shWords(plan.cli.replace(/^blackbox fork /, ""))).toEqual([
      "runs/trip.json",
      "--at",
      "3",
      "--set",
      `{"forecast":"it's rain"}`,
    ]);
  });

  it("appends the agent's command after --, as typed", () => {
    const plan = forkPlan({ cassette: "a b.json", at: 7, text: '"sunny"', command: "  node agent.mjs --fast " });
    expect(plan.ok && plan.cli).toBe(`blackbox fork 'a b.json' --at 7 --set '"sunny"' -- node agent.mjs --fast`);
  });

  it("names a cassette that starts with - so that it is not read as an option", () => {
    const plan = forkPlan({ cassette: "-odd.json", at: 1, text: "1", command: "" });
    expect(plan.ok && plan.cli).toBe(`blackbox fork ./-odd.json --at 1 --set '1'`);
  });

  it("says what is wrong with text that is not JSON, or not plain JSON", () => {
    const bad = forkPlan({ cassette: "t.json", at: 3, text: "sunny", command: "" });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problem).toMatch(/^the result is not valid JSON .*quote a string/);
    const huge = forkPlan({ cassette: "t.json", at: 3, text: "1e999", command: "" });
    expect(!huge.ok && huge.problem).toMatch(/not plain JSON: it holds the number Infinity/);
  });

  it("gives the same fork as session options, out where blackbox fork would write it", () => {
    const plan = forkPlan({ cassette: "runs/trip.json", at: 3, text: '{"a":[1,2]}', command: "" });
    expect(plan.ok && plan.code).toContain('mode: "fork",\n  cassette: "runs/trip.json",\n  forkAt: 3,');
    expect(plan.ok && plan.code).toContain('out: "runs/trip.fork-3.json"');
    const options = plan.ok ? plan.code.slice(plan.code.indexOf("({") + 1, plan.code.lastIndexOf(")")) : "";
    // the options are a JavaScript object literal with the edited value in it
    expect(new Function(`return ${options}`)()).toEqual({
      mode: "fork",
      cassette: "runs/trip.json",
      forkAt: 3,
      forkSet: { a: [1, 2] },
      out: "runs/trip.fork-3.json",
    });
  });

  it("names the default fork file as the CLI does", () => {
    for (const p of ["trip.json", "runs/trip.json", "runs/Trip.JSON", "runs/trip", "/abs/x.y.json"])
      expect(defaultForkOut(p, 4)).toBe(defaultForkPath(p, 4));
  });
});
