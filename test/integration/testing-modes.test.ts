// Record modes, one rule for every way in (src/session/modes/resolve.ts): the rule itself, then
// blackbox({ mode: "auto" }) in code and BLACKBOX_MODE=auto under the register hook, with the real
// SDK against the fake provider; the hook's replay runs under unshare -n.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { blackbox } from "../../src/index.js";
import { chooseMode, recordModeOf } from "../../src/session/modes/resolve.js";
import { anthropicKit as kit } from "../helpers/agents.js";
import {
  blackboxCli,
  DONE_LINE,
  FIXTURES,
  hookedNode,
  queueRun,
  readCassette,
  useZeroCodeFixture,
} from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture();
const again = { command: "npm test" };
const KEY = { ANTHROPIC_API_KEY: "sk-ant-fake-key-0123456789" };
afterEach(() => void vi.unstubAllEnvs());

test("the rule: missing records what does not exist, none never records, all re-records; CI makes none the default", () => {
  const pick = (env: Record<string, string | undefined>, exists: boolean, record?: "missing" | "none" | "all") =>
    chooseMode({ cassette: "c.json", exists, env: { ...KEY, ...env }, record, again }).mode;
  expect(pick({}, false)).toBe("record");
  expect(pick({}, true)).toBe("replay");
  expect(pick({ BLACKBOX_RECORD: "all" }, true)).toBe("record");
  expect(pick({ BLACKBOX_RECORD: "none" }, true)).toBe("replay");
  expect(pick({ CI: "true" }, true)).toBe("replay");
  expect(pick({ CI: "false" }, false)).toBe("record"); // CI=false is not CI
  expect(pick({ CI: "1", BLACKBOX_RECORD: "missing" }, false)).toBe("record"); // the variable beats CI
  expect(() => pick({ BLACKBOX_RECORD: "none" }, false, "all")).toThrow("BLACKBOX_RECORD=none never records"); // and the option
  expect(recordModeOf({}, "all").record).toBe("all");
  expect(() => pick({ CI: "1" }, false)).toThrow(
    "no cassette at c.json, and BLACKBOX_RECORD=none, the default when CI is set never records one. Record it where an API key is set: BLACKBOX_RECORD=missing npm test, then commit the cassette.",
  );
  expect(() => pick({ BLACKBOX_RECORD: "sometimes" }, true)).toThrow(
    'BLACKBOX_RECORD="sometimes" is not valid; set it to one of: missing, none, all',
  );
  // a recording needs a key, said before anything is sent; the replay placeholder is no key
  expect(() => pick({ ANTHROPIC_API_KEY: "blackbox-placeholder-key-never-sent" }, false)).toThrow(
    "recording c.json needs an API key (there is none yet and BLACKBOX_RECORD=missing, the default outside CI records it), and none is set (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_BEARER_TOKEN_BEDROCK); nothing was sent.",
  );
});

test('blackbox({ mode: "auto" }) records a missing cassette, replays it after, and a divergence names the cassette and the update', async () => {
  const cassette = join(fx.dir, "auto.json");
  const tools = { get_weather: async ({ city }: { city: string }) => ({ city, sky: "sunny" }) };
  vi.stubEnv("CI", "");
  vi.stubEnv("BLACKBOX_RECORD", "");
  vi.stubEnv("ANTHROPIC_API_KEY", KEY.ANTHROPIC_API_KEY);
  fake().enqueue(
    kit.reply({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
    kit.reply({ text: "Sunny." }),
  );
  const rec = blackbox({ mode: "auto", cassette });
  expect(rec.mode).toBe("record");
  await kit.run(kit.client(rec.fetch, fake().anthropicUrl), rec.tools(tools), { task: "Lisbon?" });
  await rec.finish();
  expect(readCassette(cassette).steps.length).toBe(7);

  vi.stubEnv("CI", "1");
  const seen = fake().requests.length;
  const rep = blackbox({ mode: "auto", cassette });
  expect(rep.mode).toBe("replay");
  const err = await kit
    .run(kit.client(rep.fetch, fake().anthropicUrl), rep.tools(tools), { task: "Porto?" })
    .catch((e: Error) => e);
  expect(String(err)).toContain(`Cassette: ${cassette}\nIf the change is intended, re-record it: BLACKBOX_RECORD=all `);
  expect(fake().requests.length).toBe(seen);
  rep.dispose();

  rmSync(cassette);
  expect(() => blackbox({ mode: "auto", cassette })).toThrow(`no cassette at ${cassette}, and BLACKBOX_RECORD=none`);
});

test("BLACKBOX_MODE=auto under the register hook: records the missing cassette, re-records it unchanged byte for byte, then replays it offline with CI=1", async () => {
  const cassette = join(fx.dir, "hook-auto.json");
  const notes = join(fx.dir, "hook-notes.txt");
  const env = {
    ...KEY,
    ANTHROPIC_BASE_URL: fake().anthropicUrl,
    NOTES_FILE: notes,
    BLACKBOX_MODE: "auto",
    BLACKBOX_CASSETTE: cassette,
    CI: undefined,
    BLACKBOX_RECORD: undefined,
    // as a user's shell has it: not started by npm or vitest (the command the message names)
    npm_lifecycle_event: undefined,
    VITEST: undefined,
  };
  queueRun(fake(), "anthropic", ["weather", "save_note"], "Noted.");
  const recorded = await hookedNode(join(FIXTURES, "esm"), ["agent.mjs"], env);
  expect(recorded.stderr).toBe("");
  expect(recorded.stdout).toContain("answer: Noted.");
  expect(readCassette(cassette).steps.at(-1)!.type).toBe("metadata");
  const noted = readFileSync(notes, "utf8");

  // re-recorded unchanged under the hook (the CLI's road): the file is left byte for byte as it was
  const bytes = readFileSync(cassette, "utf8");
  queueRun(fake(), "anthropic", ["weather", "save_note"], "Noted.");
  const again = await hookedNode(join(FIXTURES, "esm"), ["agent.mjs"], { ...env, BLACKBOX_RECORD: "all" });
  expect(again.stderr).toBe("");
  expect(readFileSync(cassette, "utf8")).toBe(bytes);

  rmSync(notes);
  const seen = fake().requests.length;
  const replayed = await hookedNode(
    join(FIXTURES, "esm"),
    ["agent.mjs"],
    { ...env, CI: "1", ANTHROPIC_API_KEY: undefined },
    true,
  );
  expect(replayed.stderr).toBe("");
  expect(replayed.stdout).toBe(recorded.stdout);
  expect(replayed.code).toBe(0);
  expect(existsSync(notes)).toBe(false);
  expect(noted).not.toBe("");
  expect(fake().requests.length).toBe(seen);

  rmSync(cassette);
  const missing = await hookedNode(join(FIXTURES, "esm"), ["agent.mjs"], { ...env, CI: "1" }, true);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toBe(
    `blackbox: no cassette at ${cassette}, and BLACKBOX_RECORD=none, the default when CI is set never records one. Record it where an API key is set: BLACKBOX_RECORD=missing node agent.mjs, then commit the cassette.\n`,
  );
});

test("blackbox record over the cassette of an unchanged run: recorded as usual, and the file's bytes are the same", async () => {
  const out = join(fx.dir, "cli-again.json");
  const env = { ...KEY, NOTES_FILE: join(fx.dir, "cli-notes.txt") };
  const record = () => {
    queueRun(fake(), "anthropic", ["weather", "save_note"], "Noted.");
    return blackboxCli(fake(), join(FIXTURES, "esm"), ["record", "-o", out, "--", "node", "agent.mjs"], env);
  };
  const first = await record();
  expect(first.stderr).toMatch(DONE_LINE);
  const bytes = readFileSync(out, "utf8");
  const second = await record();
  expect(second.stderr).toMatch(DONE_LINE);
  expect(second.code).toBe(0);
  expect(readFileSync(out, "utf8")).toBe(bytes);
});

function fake() {
  return fx.fake;
}
