/**
 * A run of several conversations (docs/conversations.md): an orchestrator fans out five
 * researchers with Promise.all (two of them with the same first request), each with its own
 * client and tool loop, against a fake provider that answers after random delays; then one
 * more call combines their notes. Recorded with zero code and in code, replayed with no
 * network at all (`unshare -n`) with random delays in the agent: every replay gives the
 * recorded answers, and the tool never runs.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRunSync } from "../../src/store/run.js";
import { ROOT, runProcess } from "../helpers/child.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { FANOUT, fanoutRespond, fanoutRespondAlike, KEYS, PLACEHOLDER_KEYS } from "./runHelpers.js";

const AGENT = FANOUT;
const REGISTER = join(ROOT, "register.mjs");

let fake: FakeProvider;
let dir: string;

beforeAll(async () => {
  fake = await startFakeProvider({ respond: fanoutRespond });
  dir = mkdtempSync(join(tmpdir(), "bb-fanout-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const providerEnv = () => ({ ANTHROPIC_BASE_URL: fake.anthropicUrl, OPENAI_BASE_URL: fake.openaiUrl });

interface Answer {
  notes: string[];
  summary: string;
}

function hooked(env: Record<string, string | undefined>, offline = false) {
  return runProcess(process.execPath, ["--import", REGISTER, "agent.mjs"], {
    cwd: AGENT,
    env: { ...env, BLACKBOX_RUN: undefined, BLACKBOX_LOCKS: undefined },
    offline,
    timeoutMs: 60_000,
  });
}

/** The answers of the notes: each researcher's note names its topic's fact (two researchers share a topic). */
function checkRecorded(answer: Answer): void {
  expect(answer.notes).toHaveLength(5);
  ["tides", "volcanoes", "tides", "comets", "glaciers"].forEach((t, i) =>
    expect(answer.notes[i]).toMatch(`note: ${t}-`),
  );
  expect(answer.notes[0]).not.toBe(answer.notes[2]); // the same first request, another random fact
}

for (const provider of ["anthropic", "openai", "responses"] as const) {
  for (const stream of [false, true]) {
    const name = `${provider}${stream ? ", streamed" : ""}`;
    describe(`a fan-out of five researchers (${name})`, () => {
      it("recorded with zero code into a folder of six conversations, replayed offline with no tool run", async () => {
        const out = join(dir, `${provider}-${stream}.json`);
        const sideEffects = join(dir, `${provider}-${stream}.tools`);
        const common = {
          FANOUT_PROVIDER: provider,
          FANOUT_STREAM: stream ? "1" : "0",
          FANOUT_SIDE_EFFECTS: sideEffects,
        };
        const rec = await hooked({ ...common, ...KEYS, ...providerEnv(), BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
        expect(rec.stderr).toBe("");
        expect(rec.code).toBe(0);
        const recorded = JSON.parse(rec.stdout) as Answer;
        checkRecorded(recorded);
        expect(readFileSync(sideEffects, "utf8").trim().split("\n")).toHaveLength(5);
        // several conversations: the folder of the file's name, no file
        const folder = out.replace(/\.json$/, "");
        expect(existsSync(out)).toBe(false);
        const { index, traces } = loadRunSync(folder);
        expect(index.conversations.map((c) => c.modelCalls)).toEqual([2, 2, 2, 2, 2, 1].sort().reverse());
        expect(index.conversations.filter((c) => c.toldApart.startsWith("the same first request"))).toHaveLength(1);
        expect(traces).toHaveLength(6);
        const all = readdirSync(folder)
          .map((f) => readFileSync(join(folder, f), "utf8"))
          .join("\n");
        expect(all).not.toContain(KEYS.ANTHROPIC_API_KEY);
        expect(all).not.toContain(KEYS.OPENAI_API_KEY);

        rmSync(sideEffects);
        for (let i = 0; i < 2; i++) {
          const rep = await hooked({ ...common, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: `${folder}/` }, true);
          expect(rep.stderr).toBe("");
          expect(rep.code).toBe(0);
          expect(JSON.parse(rep.stdout)).toEqual(recorded);
        }
        expect(existsSync(sideEffects)).toBe(false);
      });
    });
  }
}

describe("two researchers alike all along: the same request, the same reply, the same tool call", () => {
  let alikeFake: FakeProvider;
  beforeAll(async () => {
    alikeFake = await startFakeProvider({ respond: fanoutRespondAlike });
  });
  afterAll(() => alikeFake.close());

  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: each recorded conversation holds its own tool result, and replays give the recorded answers`, async () => {
      const out = join(dir, `alike-${provider}.json`);
      const common = { FANOUT_PROVIDER: provider, FANOUT_STREAM: "0" };
      const env = { ANTHROPIC_BASE_URL: alikeFake.anthropicUrl, OPENAI_BASE_URL: alikeFake.openaiUrl };
      const rec = await hooked({ ...common, ...KEYS, ...env, BLACKBOX_MODE: "record", BLACKBOX_OUT: out });
      expect(rec.stderr).toBe("");
      const recorded = JSON.parse(rec.stdout) as Answer;
      checkRecorded(recorded);
      const { traces } = loadRunSync(out.replace(/\.json$/, ""));
      // the tides researchers' conversations: each one's next request carries the result its own round holds
      for (const t of traces) {
        const result = t.steps.find((s) => s.type === "tool_result")?.payload as { result?: { fact: string } };
        const next = t.steps.filter((s) => s.type === "model_input")[1];
        if (result?.result && next) expect(JSON.stringify(next.payload)).toContain(result.result.fact);
      }
      for (let i = 0; i < 3; i++) {
        const rep = await hooked(
          { ...common, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: `${out.replace(/\.json$/, "")}/` },
          true,
        );
        expect(rep.stderr).toBe("");
        expect(JSON.parse(rep.stdout)).toEqual(recorded);
      }
    });
  }
});

describe("a fan-out in code (blackbox({ out: folder/ }))", () => {
  it("records a run folder, then replays it 50 times in one offline process with the same answers", async () => {
    const folder = join(dir, "in-code") + "/";
    const sideEffects = join(dir, "in-code.tools");
    const env = { FANOUT_PROVIDER: "anthropic", FANOUT_STREAM: "1", FANOUT_SIDE_EFFECTS: sideEffects };
    const rec = await runProcess(process.execPath, ["inCode.mjs", "record", folder], {
      cwd: AGENT,
      env: { ...env, ...KEYS, ...providerEnv() },
    });
    expect(rec.stderr).toBe("");
    const [recorded] = JSON.parse(rec.stdout) as Answer[];
    checkRecorded(recorded!);
    expect(loadRunSync(folder).index.conversations).toHaveLength(6);
    rmSync(sideEffects);
    const rep = await runProcess(process.execPath, ["inCode.mjs", "replay", folder, "50"], {
      cwd: AGENT,
      env: { ...env, ...PLACEHOLDER_KEYS },
      offline: true,
      timeoutMs: 120_000,
    });
    expect(rep.stderr).toBe("");
    expect(rep.code).toBe(0);
    const answers = JSON.parse(rep.stdout) as Answer[];
    expect(answers).toHaveLength(50);
    for (const a of answers) expect(a).toEqual(recorded);
    expect(existsSync(sideEffects)).toBe(false);
  });

  it("a changed prompt in one researcher diverges naming that conversation's cassette", async () => {
    const folder = join(dir, "in-code") + "/";
    const agent = readFileSync(join(AGENT, "agent.mjs"), "utf8");
    const changed = join(AGENT, "agent.changed.tmp.mjs");
    writeFileSync(changed, agent.replace('"comets"', '"meteors"'));
    const script = `import { blackbox } from "../../../dist/index.js"; import { orchestrate } from "./agent.changed.tmp.mjs"; import * as t from "./tools.mjs";
const bb = blackbox({ mode: "replay", cassette: ${JSON.stringify(folder)} });
try { await orchestrate({ fetch: bb.fetch, tools: bb.tools({ lookup: t.lookup }) }); } catch (e) { console.log("AGENT:" + e.message.split("\\n")[0]); }
try { await bb.finish(); } catch (e) { console.log("FINISH:" + e.message); }`;
    try {
      const r = await runProcess(process.execPath, ["--input-type=module", "-e", script], {
        cwd: AGENT,
        env: { FANOUT_PROVIDER: "anthropic", FANOUT_STREAM: "1", ...PLACEHOLDER_KEYS },
        offline: true,
      });
      expect(r.stdout).toMatch(/FINISH:Replay diverged at step 0 \(model_input\): the model request differs/);
      expect(r.stdout).toContain('recorded: "Research comets."');
      expect(r.stdout).toContain('now:      "Research meteors."');
      expect(r.stdout).toMatch(/Cassette: .*in-code\/conversation-0\d\.json/);
    } finally {
      rmSync(changed, { force: true });
    }
  });
});
