/**
 * A run of several conversations through the CLI, as a user types it (docs/conversations.md):
 * `blackbox record -o trip.json -- node agent.mjs` writes the folder trip/ when the agent fans
 * out, `replay trip/ -- ...` replays it with no network, `verify` checks the index and every
 * conversation, `show` lists them, and a command that reads one cassette says what to pass.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../helpers/child.js";
import { BIN, runCli } from "../helpers/cli.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { FANOUT, fanoutRespond, KEYS } from "./runHelpers.js";

let fake: FakeProvider;
let dir: string;
let trip: string;

beforeAll(async () => {
  fake = await startFakeProvider({ respond: fanoutRespond });
  dir = mkdtempSync(join(tmpdir(), "bb-run-cli-"));
  trip = join(dir, "trip");
  const r = await runCli(["record", "-o", `${trip}.json`, "--", "node", "agent.mjs"], {
    cwd: FANOUT,
    env: { ...KEYS, ANTHROPIC_BASE_URL: fake.anthropicUrl, FANOUT_PROVIDER: "anthropic", FANOUT_STREAM: "1" },
    timeoutMs: 60_000,
  });
  expect(r.stderr).toMatch(
    /^blackbox: recorded .*trip\/ \(a run of 6 conversations, 11 model calls, 5 tool calls\)\n$/,
  );
  expect(r.code).toBe(0);
}, 90_000);

afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a run through the CLI", () => {
  it("record writes the folder of the file's name, not the file; --json names the folder", () => {
    expect(existsSync(`${trip}.json`)).toBe(false);
    expect(existsSync(join(trip, "run.json"))).toBe(true);
    expect(existsSync(join(trip, "conversation-06.json"))).toBe(true);
  });

  it("replay trip/ -- <command> replays every conversation with no network, and says so", async () => {
    const r = await runProcess(process.execPath, [BIN, "replay", `${trip}/`, "--json", "--", "node", "agent.mjs"], {
      cwd: FANOUT,
      env: { FANOUT_PROVIDER: "anthropic", FANOUT_STREAM: "1" },
      offline: true,
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { ok: boolean; run: { modelCalls: number; toolCalls: number } };
    expect(json.ok).toBe(true);
    expect(json.run).toMatchObject({ modelCalls: 11, toolCalls: 5 });
    expect(r.stderr).toMatch(/blackbox: replayed .*trip\/ as recorded \(a run of 6 conversations/);
  });

  it("replay of a run's folder without a command is a usage error saying what to type", async () => {
    const r = await runCli(["replay", trip]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `is a run of several conversations; replay it with the command that recorded it: blackbox replay ${trip} -- <command>`,
    );
  });

  it("verify checks the index and each conversation", async () => {
    const r = await runCli(["verify", trip]);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^ok {4}.*conversation-0\d\.json/gm)).toHaveLength(6);
  });

  it("verify fails a conversation replaced by another's, an edited index, a conversation removed", async () => {
    const copy = join(dir, "tampered");
    cpSync(trip, copy, { recursive: true });
    writeFileSync(join(copy, "conversation-02.json"), readFileSync(join(copy, "conversation-03.json")));
    let r = await runCli(["verify", copy]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}.*conversation-02\.json/);
    expect(r.stdout).toContain("its hash chain ends other than run.json says");

    cpSync(trip, copy, { recursive: true });
    const index = JSON.parse(readFileSync(join(copy, "run.json"), "utf8")) as {
      conversations: { toolCalls: number }[];
    };
    index.conversations[0]!.toolCalls = 9;
    writeFileSync(join(copy, "run.json"), JSON.stringify(index));
    r = await runCli(["verify", copy]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("whose hash does not match its content (it was edited)");

    cpSync(trip, copy, { recursive: true });
    rmSync(join(copy, "conversation-04.json"));
    r = await runCli(["verify", copy]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}.*conversation-04\.json/);
  });

  it("a replay of a tampered run is refused before the command runs, naming it", async () => {
    const copy = join(dir, "tampered-replay");
    cpSync(trip, copy, { recursive: true });
    writeFileSync(join(copy, "conversation-02.json"), readFileSync(join(copy, "conversation-03.json")));
    const r = await runCli(["replay", copy, "--", "node", "agent.mjs"], { cwd: FANOUT });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("conversation-02.json, whose hash chain ends other than run.json says");
  });

  it("show lists the conversations in the order they started, then each timeline", async () => {
    const r = await runCli(["show", trip]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^run trip: 6 conversations, in the order they started\n/);
    expect(r.stdout).toContain("(the same first request as conversation 1)");
    expect(r.stdout.match(/^== conversation-0\d\.json ==$/gm)).toHaveLength(6);
    const json = JSON.parse((await runCli(["show", trip, "--json"])).stdout) as { conversations: unknown[] };
    expect(json.conversations).toHaveLength(6);
  });

  it("diff of two runs pairs their conversations and says which differ, and where", async () => {
    expect((await runCli(["diff", trip, trip])).code).toBe(0);
    const again = await runCli(["record", "-o", `${trip}-again.json`, "--", "node", "agent.mjs"], {
      cwd: FANOUT,
      env: { ...KEYS, ANTHROPIC_BASE_URL: fake.anthropicUrl, FANOUT_PROVIDER: "anthropic", FANOUT_STREAM: "1" },
      timeoutMs: 60_000,
    });
    expect(again.code).toBe(0);
    const r = await runCli(["diff", trip, `${trip}-again`]);
    expect(r.code).toBe(1);
    // the tools' random facts differ, so every conversation does
    expect(r.stdout).toMatch(/^differ: 6 conversation\(s\), 6 differ\n/);
    expect(r.stdout).toMatch(/ {2}conversation-01\.json: first divergence at step \d+/);
    const json = JSON.parse((await runCli(["diff", trip, `${trip}-again`, "--json"])).stdout) as {
      conversations: Array<{ a: string; b: string; same: boolean }>;
    };
    expect(json.conversations.map((c) => c.a)).toEqual(json.conversations.map((c) => c.b));
  });

  it("a command that reads one cassette, given the folder, names a conversation to pass", async () => {
    const r = await runCli(["fork", trip, "--at", "3", "--", "node", "agent.mjs"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is a run of several conversations (a folder holding run.json), not a cassette file");
    expect(r.stderr).toContain(join(trip, "conversation-01.json"));
  });
});
