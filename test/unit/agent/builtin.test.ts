import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_RAIN, runDemoAgent } from "../../../src/agent/demo.js";
import { runAgent } from "../../../src/agent/loop.js";
import { ScriptedModelClient } from "../../../src/agent/modelClient.js";
import { defaultForkPath, forkBuiltin, replayBuiltin } from "../../../src/cli/builtin.js";
import { loadTrace, saveTrace } from "../../../src/store/index.js";
import { TraceBuilder } from "../../../src/trace/builder.js";
import { verifyTrace } from "../../../src/trace/verify.js";

let dir: string;
let parentFile: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bb-builtin-"));
  parentFile = join(dir, "trip.json");
  let t = 1_000;
  await saveTrace(parentFile, await runDemoAgent({ traceId: "trip", now: () => t++ }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const io = { stdout: "", stderr: "", color: false };
  return {
    io,
    sink: { stdout: (s: string) => void (io.stdout += s), stderr: (s: string) => void (io.stderr += s), color: false },
  };
}

describe("replayBuiltin", () => {
  it("replays a demo cassette offline and exits 0", async () => {
    const { io, sink } = capture();
    expect(await replayBuiltin(parentFile, sink)).toBe(0);
    expect(io.stdout).toBe(
      `replayed ${parentFile} offline: 11 steps reproduced from the cassette alone (no model, no tools), same outcome.\n`,
    );
  });

  it("exits 1 and names the step when a cassette was edited and re-hashed (verify passes, replay does not)", async () => {
    const trace = await loadTrace(parentFile);
    (trace.steps[9]!.payload as { text: string }).text = "Stay home.";
    // re-chain by re-running the builder over the edited payloads
    const b = new TraceBuilder({ id: trace.id, createdAt: trace.createdAt });
    for (const s of trace.steps) b.append(s.type, s.payload, s.timestamp);
    const file = join(dir, "edited.json");
    await saveTrace(file, b.trace);
    expect(verifyTrace(b.trace).ok).toBe(true);
    const { io, sink } = capture();
    expect(await replayBuiltin(file, sink)).toBe(1);
    expect(io.stderr).toContain(
      `blackbox: replay of ${file} diverged at step 10: step 10 (metadata) differs at payload.result`,
    );
    expect(io.stderr).toContain('recorded: "Saturday in Lisbon');
    expect(io.stderr).toContain('replayed: "Stay home."');
  });

  it("exits 2 and says how to replay a recorded agent's cassette (it has tool_calls outputs)", async () => {
    const b = new TraceBuilder({ id: "sdk", createdAt: 1 });
    b.append("model_input", { messages: [{ role: "user", content: "q" }], tools: [] }, 1);
    b.append(
      "model_output",
      { type: "tool_calls", calls: [{ toolCallId: "call-0", toolName: "t", toolInput: {} }] },
      2,
    );
    b.append("metadata", { event: "run_failed", status: "error", reason: "process_exit", exitCode: 1 }, 3);
    const file = join(dir, "sdk.json");
    await saveTrace(file, b.trace);
    const { io, sink } = capture();
    expect(await replayBuiltin(file, sink)).toBe(2);
    expect(io.stderr).toBe(
      `blackbox: ${file} was recorded from your own agent (through an SDK), not by the built-in demo agent, so blackbox cannot replay it on its own. Replay it by running the agent: blackbox replay ${file} -- <command>\n`,
    );
  });

  it("exits 1 with verify's problems when the hash chain is broken", async () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, readFileSync(parentFile, "utf8").replace('"sunny"', '"rain"'));
    const { io, sink } = capture();
    expect(await replayBuiltin(file, sink)).toBe(1);
    expect(io.stderr).toMatch(/failed verify, so it cannot be replayed:\n  - steps\[3\]\.hash: hash does not match/);
  });

  it("exits 1 with the load error for a missing file", async () => {
    const { io, sink } = capture();
    expect(await replayBuiltin(join(dir, "nope.json"), sink)).toBe(1);
    expect(io.stderr).toMatch(/^blackbox: .*nope\.json/);
  });
});

describe("forkBuiltin", () => {
  it("--at N --set: writes the child beside the parent and prints where and its timeline", async () => {
    const { io, sink } = capture();
    expect(await forkBuiltin(parentFile, { at: 3, set: DEMO_RAIN }, sink)).toBe(0);
    const out = defaultForkPath(parentFile, 3);
    expect(out).toBe(join(dir, "trip.fork-3.json"));
    const child = await loadTrace(out);
    expect(child).toMatchObject({ id: "trip.fork-3", parentId: "trip", forkedFromStepId: "trip:3" });
    expect(child.steps[3]!.payload).toEqual({ toolCallId: "call-0", toolName: "get_weather", result: DEMO_RAIN });
    expect(verifyTrace(child).ok).toBe(true);
    expect(io.stdout).toContain(
      `forked ${parentFile} at step 3 with the result ${JSON.stringify(DEMO_RAIN)}\nwrote ${out}\n`,
    );
    expect(io.stdout).toContain("<- fork point");
    expect(io.stdout).toContain(
      "the child's answer: Saturday in Lisbon will be rainy, 14°C, so plan indoors and take an umbrella: the Gulbenkian Museum, then the Oceanário, then a fado dinner in Alfama.\n",
    );
    expect(io.stdout).toContain(`blackbox diff ${parentFile} ${out}`);
  });

  it("--at alone: forkRun's table, written to --out", async () => {
    const out = join(dir, "again.json");
    const { sink } = capture();
    expect(await forkBuiltin(parentFile, { at: 5, out }, sink)).toBe(0);
    const child = await loadTrace(out);
    expect(child.id).toBe("again");
    expect(child.steps[5]!.type).toBe("model_input");
  });

  it("exits 2 with forkRun's message for a bad fork point", async () => {
    const { io, sink } = capture();
    expect(await forkBuiltin(parentFile, { at: 4, set: "x" }, sink)).toBe(2);
    expect(io.stderr).toBe(
      "blackbox: Cannot set a result at step 4: it is a model_input step, and --set replaces a tool result. Pick the index of a tool_result step (blackbox show lists them), or fork with --at alone.\n",
    );
  });

  it("refuses a cassette the demo agent did not record, pointing to fork -- <command>", async () => {
    const file = join(dir, "other.json");
    let t = 1;
    await saveTrace(
      file,
      await runAgent({
        traceId: "other",
        task: "x",
        toolDefinitions: [],
        tools: {},
        now: () => t++,
        client: new ScriptedModelClient([{ type: "final_answer", text: "hi" }]),
      }),
    );
    const { io, sink } = capture();
    expect(await forkBuiltin(file, { at: 0 }, sink)).toBe(2);
    expect(io.stderr).toBe(
      `blackbox: ${file} was not recorded by the built-in demo agent, so blackbox cannot continue it on its own. ` +
        `Fork your own agent by running it: blackbox fork ${file} --at 0 --set <json> -- <command>\n`,
    );
  });
});
