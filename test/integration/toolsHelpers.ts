/**
 * Shared by the tools-*.test.ts files: a framework agent with one inline tool (it appends to
 * $TOOL_LOG and returns a random value), recorded with zero code against the fake provider,
 * then replayed under unshare -n, each replay a child process of its own.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { runProcess } from "../helpers/child.js";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiSSE,
  type FakeProvider,
} from "../helpers/fakeProvider.js";
import { BIN, hookedNode, readCassette } from "./zeroCodeHelpers.js";

/** How many offline replays each run gets (the issue asks for ten): each is a child process of ~0.3 s. */
export const REPLAYS = 10;

export interface InlineToolRun {
  fake: FakeProvider;
  wire: "anthropic" | "openai";
  /** The agent asks for streamed replies. */
  streamed?: boolean;
  /** The agent calls no model, only the tool (by hand): nothing is queued. */
  noModel?: boolean;
  cwd: string;
  args: string[];
  env: Record<string, string | undefined>;
  dir: string;
  name: string;
  /** The tool as the model calls it, and the model's arguments. */
  tool: string;
  input: Record<string, unknown>;
  /** false: plain `node`, no register hook (the agent makes its session in code). */
  hook?: boolean;
}

/**
 * The run recorded (the tool ran once), and replayed REPLAYS times offline: the tool never
 * runs, each replay prints what the recording did (the tool's random value came from the
 * cassette) and passes; the cassette has the tool step under the model's name with only the
 * model's arguments, and `blackbox verify` finds it sound (no provider id in it).
 */
export async function inlineToolRecordedAndReplayed(o: InlineToolRun): Promise<void> {
  const node = (env: Record<string, string | undefined>, offline = false) =>
    o.hook === false
      ? runProcess(process.execPath, o.args, { cwd: o.cwd, env, offline })
      : hookedNode(o.cwd, o.args, env, offline);
  const reply = (c: Parameters<typeof anthropicMessage>[0]) =>
    o.streamed
      ? { sse: (o.wire === "anthropic" ? anthropicSSE : openaiSSE)(c) }
      : { json: (o.wire === "anthropic" ? anthropicMessage : openaiCompletion)(c) };
  if (!o.noModel)
    o.fake.enqueue(reply({ toolCalls: [{ name: o.tool, input: o.input }] }), reply({ text: "Sunny in Lisbon." }));
  const cassette = join(o.dir, `${o.name}.json`);
  const log = join(o.dir, `${o.name}.log`);
  const recorded = await node({ ...o.env, TOOL_LOG: log, BLACKBOX_MODE: "record", BLACKBOX_OUT: cassette });
  expect(recorded.stderr).toBe("");
  expect(recorded.code).toBe(0);
  expect(recorded.stdout).toContain(o.noModel ? "tool said:" : "Sunny in Lisbon.");
  expect(readFileSync(log, "utf8")).toBe(`${o.tool} Lisbon\n`);

  const trace = readCassette(cassette);
  const calls = trace.steps.filter((s) => s.type === "tool_call").map((s) => s.payload as Record<string, unknown>);
  expect(calls.map((c) => [c.toolName, c.toolInput])).toEqual([[o.tool, o.input]]);
  const verified = await runProcess(process.execPath, [BIN, "verify", cassette], { cwd: o.dir });
  expect(verified.stderr).toBe("");
  expect(verified.code).toBe(0);
  const text = readFileSync(cassette, "utf8");
  expect(text).not.toMatch(/toolu_|"call_/);

  rmSync(log);
  for (let i = 0; i < REPLAYS; i++) {
    const replayed = await node(
      { ...o.env, TOOL_LOG: log, BLACKBOX_MODE: "replay", BLACKBOX_CASSETTE: cassette },
      true,
    );
    expect(replayed.stderr).toBe("");
    expect(replayed.stdout).toBe(recorded.stdout);
    expect(replayed.code).toBe(0);
    expect(existsSync(log)).toBe(false);
  }
}
