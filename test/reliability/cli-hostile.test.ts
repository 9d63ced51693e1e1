/**
 * The CLI on hostile cassettes, as a child process the way users run it: `show`,
 * `verify` and `diff` on a fast-check sample of broken files answer with an exit code
 * and a message, never a stack trace, a V8 crash or a hang. A cassette too large to
 * load as one string (a sparse file) gets a clear error from every command that
 * reads one. Needs `npm run build`. BLACKBOX_LONG=1 tries 10x the files.
 */
import { closeSync, mkdtempSync, openSync, ftruncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { blackbox, isBlackboxError } from "../../src/index.js";
import { runCli, type CliResult } from "../helpers/cli.js";
import { applyMutation, FIXTURES, mutation } from "./hostile.js";

const FILES = process.env.BLACKBOX_LONG === "1" ? 200 : 16;
const dir = mkdtempSync(join(tmpdir(), "bbx-cli-hostile-"));

function expectClean(r: CliResult, what: string): void {
  expect(r.code, `${what} did not end by itself (timed out) or crashed:\n${r.stderr}`).not.toBeNull();
  expect([0, 1, 2], `${what} exit code ${r.code}:\n${r.stderr}`).toContain(r.code);
  expect(r.stderr, `${what} printed a stack trace`).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(r.stderr, `${what} crashed`).not.toMatch(/TypeError|RangeError|ReferenceError|FATAL ERROR|Maximum call stack/);
  if (r.code !== 0)
    expect(r.stderr.trim().length + r.stdout.trim().length, `${what} failed silently`).toBeGreaterThan(10);
}

/** Runs at most two children at a time (2 cores). */
async function inPairs<T>(items: T[], f: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 2) await Promise.all(items.slice(i, i + 2).map(f));
}

test(
  `show, verify and diff on ${FILES} hostile cassettes: an exit code and a message, never a crash`,
  { timeout: 60_000 + FILES * 4_000 },
  async () => {
    const cases = fc.sample(fc.tuple(fc.nat({ max: FIXTURES.length - 1 }), mutation), { numRuns: FILES, seed: 6 });
    const files = cases.map(([i, m], n) => {
      const file = join(dir, `hostile-${n}.json`);
      writeFileSync(file, applyMutation(FIXTURES[i]!.text, m));
      return { file, m, base: `test/fixtures/${FIXTURES[i]!.name}.json` };
    });
    const codes: Record<string, number> = {};
    await inPairs(files, async ({ file, m, base }) => {
      const commands = [
        ["show", file],
        ["show", file, "--json"],
        ["verify", file],
        ["diff", base, file],
      ];
      const pick = commands[files.findIndex((f) => f.file === file) % commands.length]!;
      const r = await runCli(pick, { env: { NO_COLOR: "1" } });
      expectClean(r, `blackbox ${pick.join(" ")} (${JSON.stringify(m).slice(0, 200)})`);
      codes[`${pick[0]} ${r.code}`] = (codes[`${pick[0]} ${r.code}`] ?? 0) + 1;
    });
    console.log(`cli-hostile: ${FILES} files -> ${JSON.stringify(codes)}`);
  },
);

describe("a cassette too large to load as one string (a sparse 600 MiB file)", () => {
  const huge = join(dir, "huge.json");
  const fd = openSync(huge, "w");
  ftruncateSync(fd, 600 * 1024 * 1024); // no real disk use; past V8's ~512 MiB string limit
  closeSync(fd);
  const message = `cassette ${huge} is too large to load (600.0 MiB; the limit is 256 MiB). Split the run into shorter runs or record less tool output. (A real run this large can raise the limit with BLACKBOX_MAX_CASSETTE_MB, up to 512.)`;

  test.each([["show"], ["verify"], ["diff"]])("blackbox %s says so and exits 1 or 2", async (command) => {
    const args = command === "diff" ? ["diff", "test/fixtures/basic.json", huge] : [command, huge];
    const r = await runCli(args, { env: { NO_COLOR: "1" } });
    expectClean(r, `blackbox ${command}`);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain(message); // verify reports on stdout
  });

  test("a replay session refuses it with a typed error", () => {
    let error: unknown;
    try {
      blackbox({ mode: "replay", cassette: huge });
    } catch (e) {
      error = e;
    }
    expect(isBlackboxError(error)).toBe(true);
    expect((error as Error).message).toBe(message);
  });
});
