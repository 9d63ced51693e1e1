/**
 * `node --import <root>/register.mjs agent` with the environment set by hand: ESM,
 * CommonJS and tsx agents, a TypeScript agent Node runs itself (type stripping, where
 * Node has it), the Anthropic and OpenAI SDKs, recorded against the fake provider, then
 * replayed with no network at all and the side-effect tool not run.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import {
  FIXTURES,
  REGISTER,
  hookedNode,
  queueRun,
  readCassette,
  toolNames,
  useZeroCodeFixture,
} from "./zeroCodeHelpers.js";

const fx = useZeroCodeFixture();

interface Case {
  name: string;
  dir: string;
  wire: "anthropic" | "openai";
  tools: [string, string];
  run: (env: Record<string, string | undefined>, offline: boolean) => ReturnType<typeof hookedNode>;
}

const cases: Case[] = [
  {
    name: "ESM agent, Anthropic SDK, export renamed by the config",
    dir: join(FIXTURES, "esm"),
    wire: "anthropic",
    tools: ["weather", "save_note"],
    run: (env, offline) => hookedNode(join(FIXTURES, "esm"), ["agent.mjs"], env, offline),
  },
  {
    name: "CommonJS agent, OpenAI SDK 6, CommonJS config",
    dir: join(FIXTURES, "cjs"),
    wire: "openai",
    tools: ["get_weather", "save_note"],
    run: (env, offline) => hookedNode(join(FIXTURES, "cjs"), ["agent.js"], env, offline),
  },
  {
    name: "ESM agent importing and also require()-ing one CommonJS tools file (wrapped once each way)",
    dir: join(FIXTURES, "mixed"),
    wire: "anthropic",
    tools: ["get_weather", "save_note"],
    run: (env, offline) => hookedNode(join(FIXTURES, "mixed"), ["agent.mjs"], env, offline),
  },
  {
    name: "TypeScript agent and tools under tsx, TypeScript config",
    dir: join(FIXTURES, "ts"),
    wire: "anthropic",
    tools: ["get_weather", "save_note"],
    run: (env, offline) =>
      runProcess(join(ROOT, "node_modules", ".bin", "tsx"), ["agent.ts"], {
        cwd: join(FIXTURES, "ts"),
        env: { ...env, NODE_OPTIONS: `--import ${REGISTER}` },
        offline,
      }),
  },
  // Node 22.18+ and 24 run a .ts file themselves (`node agent.ts`): the agent and its tools
  // module (named in a TypeScript config) are stripped by Node, not by a loader. Node 20
  // has no type stripping: this case runs in .ci/run's Node 24 and 22 passes.
  ...((process.features as { typescript?: string }).typescript
    ? [
        {
          name: "TypeScript agent and tools run by Node itself (type stripping), TypeScript config",
          dir: "ts-native",
          wire: "anthropic",
          tools: ["get_weather", "save_note"],
          run: (env, offline) => hookedNode(nativeTsProject(), ["agent.ts"], env, offline),
        } satisfies Case,
      ]
    : []),
];

/** The tsx case's project, its one extensionless import named as Node's type stripping needs it. */
function nativeTsProject(): string {
  const dir = join(fx.dir, "ts-native");
  if (!existsSync(dir)) {
    cpSync(join(FIXTURES, "ts"), dir, { recursive: true });
    const agent = join(dir, "agent.ts");
    const source = readFileSync(agent, "utf8");
    if (!source.includes('from "./tools";')) throw new Error("the ts fixture's agent no longer imports ./tools");
    writeFileSync(agent, source.replace('from "./tools";', 'from "./tools.ts";'));
  }
  return dir;
}

describe.each(cases)("$name", (c) => {
  const out = join(fx.dir, `${c.dir.split("/").pop()}.json`);
  const notes = join(fx.dir, `${c.dir.split("/").pop()}-notes.txt`);
  const base = () => ({
    NOTES_FILE: notes,
    // One base URL per case: the fake serves both wire formats on one origin.
    ...(c.wire === "anthropic" ? { ANTHROPIC_BASE_URL: fx.fake.anthropicUrl } : { OPENAI_BASE_URL: fx.fake.openaiUrl }),
    ANTHROPIC_API_KEY: "sk-ant-fake-key-0123456789",
    OPENAI_API_KEY: "sk-fake-openai-key-0123456789",
  });

  test("records every model and tool call, unchanged agent", async () => {
    queueRun(fx.fake, c.wire, c.tools, "Noted: sunny in Lisbon.");
    const r = await c.run({ ...base(), BLACKBOX_MODE: "record", BLACKBOX_OUT: out }, false);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("answer: Noted: sunny in Lisbon.");
    expect(r.code).toBe(0);
    expect(existsSync(notes)).toBe(true);
    const trace = readCassette(out);
    expect(toolNames(trace)).toEqual(c.tools);
    expect(trace.steps.filter((s) => s.type === "model_input")).toHaveLength(3);
    expect(trace.steps.at(-1)!.payload).toMatchObject({ event: "run_completed", status: "success" });
  });

  test("replays offline (no network namespace) without running the side-effect tool", async () => {
    rmSync(notes, { force: true });
    const r = await c.run({ ...base(), BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out }, true);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("answer: Noted: sunny in Lisbon.");
    expect(r.code).toBe(0);
    expect(existsSync(notes)).toBe(false);
  });

  test("replays by hand with no API key in the environment (the hook sets placeholders, as the CLI does)", async () => {
    rmSync(notes, { force: true });
    const env = {
      ...base(),
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      BLACKBOX_MODE: "replay",
      BLACKBOX_CASSETTE: out,
    };
    const r = await c.run(env, true);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("answer: Noted: sunny in Lisbon.");
    expect(r.code).toBe(0);
    expect(existsSync(notes)).toBe(false);
  });

  test("a replay whose agent asks something else diverges: exit non-zero and a report", async () => {
    const r = await c.run(
      { ...base(), PROMPT: "Something else entirely", BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: out },
      true,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/diverge/i);
    expect(existsSync(notes)).toBe(false);
  });
});

test("BLACKBOX_MODE unset: the hook does nothing, the agent talks to the provider directly", async () => {
  const out = join(fx.dir, "off.json");
  const notes = join(fx.dir, "off-notes.txt");
  queueRun(fx.fake, "anthropic", ["weather", "save_note"], "Plain run.");
  const before = fx.fake.requests.length;
  const r = await hookedNode(join(FIXTURES, "esm"), ["agent.mjs"], {
    NOTES_FILE: notes,
    ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
    ANTHROPIC_API_KEY: "sk-ant-fake-key-0123456789",
    BLACKBOX_MODE: undefined,
    BLACKBOX_OUT: out,
  });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("answer: Plain run.");
  expect(fx.fake.requests.length - before).toBe(3);
  expect(existsSync(out)).toBe(false);
  expect(existsSync(notes)).toBe(true);
});

test("a recording process never sends the placeholder key a replay left in its environment (a replay's child that records)", async () => {
  // replay and fork --script set ANTHROPIC_API_KEY/OPENAI_API_KEY to a placeholder "never
  // sent", and their children inherit it: one of them recording must not send it upstream
  const out = join(fx.dir, "placeholder-record.json");
  queueRun(fx.fake, "anthropic", ["weather", "save_note"], "Never asked.");
  const before = fx.fake.requests.length;
  const r = await hookedNode(join(FIXTURES, "esm"), ["agent.mjs"], {
    NOTES_FILE: join(fx.dir, "placeholder-notes.txt"),
    ANTHROPIC_BASE_URL: fx.fake.anthropicUrl,
    ANTHROPIC_API_KEY: "blackbox-placeholder-key-never-sent",
    OPENAI_API_KEY: undefined,
    BLACKBOX_MODE: "record",
    BLACKBOX_OUT: out,
  });
  const sent = fx.fake.requests
    .slice(before)
    .map((q) => `${q.headers["x-api-key"] ?? ""} ${q.headers.authorization ?? ""}`);
  while (fx.fake.pending > 0) await fetch(fx.fake.anthropicUrl, { method: "POST", body: "{}" }); // the replies it never asked for
  expect(sent.filter((h) => h.includes("blackbox-placeholder-key-never-sent"))).toEqual([]);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/API key|apiKey|authentication/i);
});
