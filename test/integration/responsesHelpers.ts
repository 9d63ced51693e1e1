/**
 * The Responses API agent (test/fixtures/responses/agent.mjs) as the responses-*.test.ts
 * files run it: through the register hook (the CLI) or bb.fetch, with each SDK entry point,
 * its history whole or chained, recording against the fake provider or replaying offline.
 */
import { join } from "node:path";
import { ROOT, runProcess, type ChildResult } from "../helpers/child.js";
import { openaiResponse, openaiResponseSSE, type FakeProvider } from "../helpers/fakeProvider.js";
import { blackboxCli } from "./zeroCodeHelpers.js";

export const APP = join(ROOT, "test", "fixtures", "responses");
export type Door = "hook" | "fetch";
export type Call = "create" | "create-stream" | "stream";
export type History = "whole" | "chained";
export interface Run {
  door: Door;
  call: Call;
  history: History;
}

export const KEY = "sk-responses-test-0123456789";
/** Provider ids, and the key: none may be in a cassette. */
export const LEAKS = /resp_0|msg_0|fc_0|"call_|rs_0|sk-responses/;
export const ANSWER = "Sunny in Lisbon and Faro; no data for Porto.";

/** The fake's three replies: Lisbon and Porto at once, then Faro, then the answer. */
export function queueLoop(fake: FakeProvider, streamed: boolean, extra: { reasoning?: string } = {}): void {
  const reply = (c: Parameters<typeof openaiResponse>[0]) =>
    streamed ? { sse: openaiResponseSSE({ ...c, ...extra }) } : { json: openaiResponse({ ...c, ...extra }) };
  fake.enqueue(
    reply({
      text: "Checking two cities first.",
      toolCalls: [
        { name: "get_weather", input: { city: "Lisbon" } },
        { name: "get_weather", input: { city: "Porto" } },
      ],
    }),
    reply({ toolCalls: [{ name: "get_weather", input: { city: "Faro" } }] }),
    reply({ text: ANSWER }),
  );
}

export const name = (r: Run) => `${r.door}-${r.call}-${r.history}`;

/**
 * The agent as `r` runs it, in `session` (BB_OPTIONS for bb.fetch; for the hook, the CLI's
 * arguments before `--`), with the tool log `log`; offline: under unshare -n.
 */
export function runAgent(
  fake: FakeProvider,
  r: Run,
  session: { cli: string[]; options: Record<string, unknown> },
  log: string,
  extra: Record<string, string | undefined> = {},
  offline = false,
): Promise<ChildResult> {
  const env = {
    OPENAI_BASE_URL: fake.openaiUrl,
    OPENAI_API_KEY: offline ? undefined : KEY,
    AGENT_CALL: r.call,
    AGENT_HISTORY: r.history,
    TOOL_LOG: log,
    ...extra,
  };
  if (r.door === "hook") return blackboxCli(fake, APP, [...session.cli, "--", "node", "agent.mjs"], env, offline);
  return runProcess(process.execPath, ["agent.mjs"], {
    cwd: APP,
    offline,
    env: {
      ...env,
      ANTHROPIC_API_KEY: undefined,
      AGENT_DOOR: "fetch",
      BB_OPTIONS: JSON.stringify(session.options),
      BLACKBOX_MODE: undefined,
    },
  });
}

export const recordSession = (out: string) => ({ cli: ["record", "-o", out], options: { mode: "record", out } });
export const replaySession = (cassette: string) => ({
  cli: ["replay", cassette],
  options: { mode: "replay", cassette },
});

/** What the agent printed: its one JSON line. */
export function printed(r: ChildResult): { text?: string; calls?: number; ids?: string[]; failed?: string } {
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as { text?: string; calls?: number; ids?: string[]; failed?: string };
  } catch {
    throw new Error(`the agent printed no JSON line: stdout ${JSON.stringify(r.stdout)}, stderr ${r.stderr}`);
  }
}
