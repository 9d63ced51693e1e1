/**
 * Streaming end to end: the real SDKs, through bb.fetch, against the fake provider
 * streaming in small awkward chunks with delays. Each run records in a child process,
 * then replays the cassette in a child process under `unshare -n` (no network at all),
 * through each entry point, and the agent must see the same text and tool calls.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  anthropicMessage,
  anthropicSSE,
  openaiCompletion,
  openaiSSE,
  useFakeProvider,
} from "../helpers/fakeProvider.js";

const run = promisify(execFile);
const AGENT = join(import.meta.dirname, "streamingAgent.ts");
const ROOT = join(import.meta.dirname, "../..");
/** node with tsx as an import hook: one process per run (the tsx binary would start two). */
const NODE_TSX = [process.execPath, "--import", "tsx", AGENT];

type Provider = "anthropic" | "openai";
type Entry = "create" | "stream" | "plain";

const fx = useFakeProvider("bb-streaming-");

const toolTurn = {
  text: "Let me check both cities.",
  toolCalls: [
    { name: "get_weather", input: { city: "Lisbon" } },
    { name: "get_weather", input: { city: "Tokyo" } },
  ],
};
const finalTurn = { text: "Lisbon is sunny ☀ and Tokyo has rain 雨 — take an umbrella 🌂." };

function enqueueConversation(provider: Provider, streamed: boolean): void {
  const replies = [toolTurn, finalTurn].map((c) => {
    if (!streamed) return { json: provider === "anthropic" ? anthropicMessage(c) : openaiCompletion(c) };
    return { sse: provider === "anthropic" ? anthropicSSE(c) : openaiSSE(c), chunkSize: 5, delayMs: 1 };
  });
  fx.fake.enqueue(...replies);
}

async function agent(
  provider: Provider,
  mode: "record" | "replay",
  file: string,
  entry: Entry,
  door = "fetch",
): Promise<unknown> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BB_MODE: mode,
    BB_FILE: file,
    PROVIDER: provider,
    ENTRY: entry,
    DOOR: door,
  };
  // One provider per run: both fake origins are the same host, so only the one in use is routed.
  delete env.ANTHROPIC_BASE_URL;
  delete env.OPENAI_BASE_URL;
  if (provider === "anthropic") env.ANTHROPIC_BASE_URL = fx.fake.anthropicUrl;
  else env.OPENAI_BASE_URL = fx.fake.openaiUrl;
  const [cmd, ...args] = mode === "replay" ? ["unshare", "-n", ...NODE_TSX] : NODE_TSX;
  const { stdout } = await run(cmd!, args, { env, cwd: ROOT, timeout: 30_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

/** What the agent saw, as the test expects it for either provider. */
function expectedTurns(provider: Provider) {
  const toolStop = provider === "anthropic" ? "tool_use" : "tool_calls";
  const endStop = provider === "anthropic" ? "end_turn" : "stop";
  return {
    turns: [
      { text: toolTurn.text, calls: toolTurn.toolCalls, stop: toolStop },
      { text: finalTurn.text, calls: [], stop: endStop },
    ],
  };
}

describe.each(["anthropic", "openai"] as const)("%s streaming, recorded and replayed offline", (provider) => {
  for (const entry of ["create", "stream"] as const) {
    it(
      `records a streamed run (${entry}) and replays it offline through every entry point`,
      { timeout: 120_000 },
      async () => {
        const file = join(fx.dir, `${provider}-${entry}.json`);
        enqueueConversation(provider, true);
        const recorded = await agent(provider, "record", file, entry);
        expect(recorded).toEqual(expectedTurns(provider));
        expect(fx.fake.pending).toBe(0);
        expect(fx.fake.requests.at(-1)!.body).toMatchObject({ stream: true });

        const cassette = JSON.parse(readFileSync(file, "utf8"));
        const outputs = cassette.steps.filter((s: any) => s.type === "model_output").map((s: any) => s.payload);
        expect(outputs).toEqual([
          {
            type: "tool_calls",
            text: toolTurn.text,
            calls: [
              { toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
              { toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Tokyo" } },
            ],
          },
          { type: "final_answer", text: finalTurn.text },
        ]);
        // Provider-neutral: no event ids, usage or chunk boundaries.
        expect(JSON.stringify(cassette)).not.toMatch(
          /toolu_|call_|msg_|chatcmpl|usage|message_start|chat\.completion\.chunk/,
        );

        for (const replayEntry of ["create", "stream", "plain"] as const) {
          const before = fx.fake.requests.length;
          expect(await agent(provider, "replay", file, replayEntry), `replay via ${replayEntry}`).toEqual(
            expectedTurns(provider),
          );
          expect(fx.fake.requests.length).toBe(before);
        }
      },
    );
  }

  it("replays a run recorded without streaming to a streaming agent", { timeout: 90_000 }, async () => {
    const file = join(fx.dir, `${provider}-plain.json`);
    enqueueConversation(provider, false);
    expect(await agent(provider, "record", file, "plain")).toEqual(expectedTurns(provider));
    for (const replayEntry of ["create", "stream"] as const) {
      expect(await agent(provider, "replay", file, replayEntry), `replay via ${replayEntry}`).toEqual(
        expectedTurns(provider),
      );
    }
  });

  it(
    "records and replays streams through the global dispatcher door too (no fetch option)",
    { timeout: 90_000 },
    async () => {
      const file = join(fx.dir, `${provider}-dispatcher.json`);
      enqueueConversation(provider, true);
      expect(await agent(provider, "record", file, "create", "dispatcher")).toEqual(expectedTurns(provider));
      for (const replayEntry of ["stream", "plain"] as const) {
        expect(await agent(provider, "replay", file, replayEntry, "dispatcher"), `replay via ${replayEntry}`).toEqual(
          expectedTurns(provider),
        );
      }
    },
  );
});
