/**
 * Mutated cassettes (types swapped, nulls in lists, huge lists, deep nesting, terminal
 * control characters, and hostile.ts's truncations, wrong values and bad UTF-8) fed to
 * loadTrace, verifyTrace and every CLI command that reads a cassette, the CLI run in-process
 * (src/cli/main.ts, its stdout and stderr captured): an exit code of 0, 1 or 2 and never an
 * uncaught exception or a stack trace, and nothing printed that a terminal would act on or
 * reorder by (every value quoted escaped, JSON output included). The child-process runs of
 * the same commands, with memory held to a small heap, are hostile-repros.test.ts.
 * Needs `npm run build` (view reads the page bundle from dist/). BLACKBOX_LONG=1: 10x the cases.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, expect, test } from "vitest";
import { isBlackboxError, loadTrace, verifyTrace } from "../../src/index.js";
import { main } from "../../src/cli/main.js";
import { FIXTURES } from "./hostile.js";
import { anyMutation, applyAnyMutation, type AnyMutation } from "./hostile-mutations.js";

const RUNS = process.env.BLACKBOX_LONG === "1" ? 1000 : 50;
// not os.tmpdir()/bb-*: the secret scan reads what recordings wrote; these files are made up
const dir = mkdtempSync(join(tmpdir(), "hostile-cli-"));
const tally: Record<string, number> = {};
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  console.log(`hostile-cli: ${JSON.stringify(tally)}`);
});

/** What a terminal acts on or reorders by; a line break is the only control character output may hold. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const STACK = /\n\s+at .+:\d+:\d+|^\s*at .+\(.+:\d+:\d+\)/m;

/** Runs the CLI in this process with stdout and stderr captured. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const chunks: string[] = [];
  const write = process.stdout.write;
  const writeErr = process.stderr.write;
  const capture = (chunk: unknown, ...rest: unknown[]): boolean => {
    chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    done?.();
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  let code: number;
  try {
    code = await main(args);
  } catch (error) {
    code = -1;
    chunks.push(`UNCAUGHT ${(error as Error)?.stack ?? String(error)}`);
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
    process.exitCode = undefined;
  }
  return { code, out: chunks.join("") };
}

let n = 0;
async function attack(base: { name: string; text: string }, m: AnyMutation): Promise<void> {
  const file = join(dir, `case-${n++ % 20}.json`);
  const bytes = applyAnyMutation(base.text, m);
  writeFileSync(file, bytes);
  const what = JSON.stringify(m).slice(0, 200);
  const started = Date.now();

  try {
    await loadTrace(file);
  } catch (error) {
    if (!isBlackboxError(error))
      throw new Error(`loadTrace threw an untyped error (${what}): ${(error as Error).stack}`);
    expect((error as Error).message, what).not.toMatch(/\u202e|\u2028|\u0085/);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    value = undefined;
  }
  if (value !== undefined) {
    const v = verifyTrace(value); // never throws, whatever the value
    for (const p of v.problems) {
      expect(p.path, what).not.toMatch(UNSAFE);
      expect(p.message, what).not.toMatch(UNSAFE);
    }
  }

  const fixture = `test/fixtures/${base.name}.json`;
  const commands = [
    ["verify", file],
    ["verify", file, "--json"],
    ["show", file],
    ["show", file, "--json"],
    ["diff", fixture, file],
    ["diff", file, fixture, "--json"],
    ["replay", file],
    ["fork", file, "--at", "3", "-o", join(dir, "fork.json")],
    ["view", file, "-o", join(dir, "view.html")],
  ];
  for (const args of commands) {
    const r = await cli(args);
    const label = `blackbox ${args.join(" ")} (${what})`;
    expect(r.out, label).not.toContain("UNCAUGHT");
    expect([0, 1, 2], `${label} exit ${r.code}:\n${r.out.slice(0, 500)}`).toContain(r.code);
    expect(r.out, `${label} printed a stack trace`).not.toMatch(STACK);
    expect(r.out.replace(/\n/g, ""), `${label} printed a raw control character`).not.toMatch(UNSAFE);
    tally[`${args[0]} ${r.code}`] = (tally[`${args[0]} ${r.code}`] ?? 0) + 1;
  }
  // no hang: alone a case takes well under a second, on a loaded machine several
  expect(Date.now() - started, `one case took too long (${what})`).toBeLessThan(30_000);
}

test(
  `${RUNS} mutated cassettes through loadTrace, verifyTrace and every CLI command in-process`,
  { timeout: 120_000 + RUNS * 1_000 }, // alone: about 0.13 s a case; on a loaded 2-core machine ten times that
  async () => {
    const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
    process.env.NO_COLOR = "1";
    delete process.env.FORCE_COLOR;
    try {
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: FIXTURES.length - 1 }), anyMutation, (i, m) => attack(FIXTURES[i]!, m)),
        { numRuns: RUNS, seed: process.env.BLACKBOX_SEED ? Number(process.env.BLACKBOX_SEED) : undefined },
      );
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  },
);
