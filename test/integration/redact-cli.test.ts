/**
 * Redaction after the fact and as a check: `blackbox redact` on a cassette recorded without
 * rules, run as a user types it, yields one that verifies and replays under the rules;
 * `--check` holds a repository to its rules; a mistyped rule is a usage error.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { blackbox, loadTrace, verifyTrace } from "../../src/index.js";
import { anthropicKit as kit } from "../helpers/agents.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

const BIN = new URL("../../bin/blackbox.mjs", import.meta.url).pathname;
const EMAIL = "ann.customer@example.com";
const TASK = `Plan a weekend for ${EMAIL}: Lisbon or Porto?`;

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "bbx-redact-"));
});
afterAll(() => fake.close());

const weather = async ({ city }: { city: string }) => ({ city, forecast: "sunny", contact: EMAIL });

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [BIN, ...args], { cwd: dir }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

test("a cassette recorded without rules, redacted by the CLI, verifies and replays under the rules", async () => {
  const file = join(dir, "old.json");
  fake.enqueue(
    kit.reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    kit.reply({ text: `Lisbon: sunny. I wrote to ${EMAIL}.` }),
  );
  const bb = blackbox({ mode: "record", out: file, redact: false });
  await kit.run(kit.client(bb.fetch, fake.anthropicUrl), bb.tools({ get_weather: weather }), { task: TASK });
  await bb.finish();
  expect(readFileSync(file, "utf8")).toContain(EMAIL);

  // verify --strict holds the cassette to the config's rules
  writeFileSync(join(dir, "blackbox.config.mjs"), 'export default { redact: { detect: ["email"] } };\n');
  expect((await cli(["verify", "old.json"])).code).toBe(0);
  const strict = await cli(["verify", "--strict", "old.json"]);
  expect(strict.code).toBe(1);
  expect(strict.stdout).toContain(
    "(redaction): the redaction rules would change steps 0, 3, 4, 5, 6: 1 value redacted (1 EMAIL). Run blackbox redact old.json to rewrite it",
  );

  const before = await cli(["redact", "old.json", "--detect", "email", "--check"]);
  expect(before.code).toBe(1);
  expect(before.stdout).toContain("the rules would change steps 0, 3, 4, 5, 6: 1 value redacted (1 EMAIL)");
  expect(readFileSync(file, "utf8")).toContain(EMAIL);

  const run = await cli(["redact", "old.json", "--detect", "email"]);
  expect(run).toMatchObject({ code: 0, stderr: "" });
  expect(run.stdout).toContain("old.json: 1 value redacted (1 EMAIL) in steps 0, 3, 4, 5, 6; hash chain made again");
  expect(readFileSync(file, "utf8")).not.toContain(EMAIL);
  const t = await loadTrace(file);
  expect(verifyTrace(t).ok).toBe(true);
  expect(t.steps[3]!.payload).toMatchObject({ result: { contact: "<EMAIL_1>" } });

  expect((await cli(["redact", "old.json", "--detect", "email", "--check"])).code).toBe(0);
  expect((await cli(["verify", "--strict", "old.json"])).code).toBe(0);
  rmSync(join(dir, "blackbox.config.mjs"));

  const rb = blackbox({ mode: "replay", cassette: file, redact: { detect: ["email"] } });
  const answer = await kit.run(kit.client(rb.fetch, fake.anthropicUrl), rb.tools({ get_weather: weather }), {
    task: TASK,
  });
  expect(answer).toBe("Lisbon: sunny. I wrote to <EMAIL_1>.");
  await rb.finish();
});

test("a mistyped rule is a usage error naming the rule", async () => {
  const r = await cli(["redact", "old.json", "--detect", "emails"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(
    'redact.detect[0] "emails" is not a detector; the opt-in detectors are email, phone, card, ip',
  );
});
