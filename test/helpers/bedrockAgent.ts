/**
 * The conformance suite's Bedrock kit: a Converse tool loop on the real
 * @aws-sdk/client-bedrock-runtime (installed in test/fixtures/sdk-versions/bedrock, loaded from
 * there), written as AWS's tool-use example writes it. Given a fetch (bb.fetch), the client
 * sends with @smithy/fetch-http-handler's FetchHttpHandler and `customFetch`, the SDK's own
 * way to send with a fetch; without one, with its default request handler (NodeHttp2Handler),
 * which the hook switches (src/interception/awsSdk.ts).
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "./child.js";
import { bedrockConverse, bedrockConverseStream, type FakeContent, type FakeReply } from "./fakeProvider.js";
import type { AgentOptions, Kit, ToolFns } from "./agents.js";
import { installFixture } from "./fixtureInstall.js";

export const BEDROCK_APP = join(ROOT, "test", "fixtures", "sdk-versions", "bedrock");
export const BEDROCK_ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE";

let sdk: any;
let handler: any;
function load(): { sdk: any; handler: any } {
  if (!sdk) {
    installFixture(BEDROCK_APP);
    const req = createRequire(join(BEDROCK_APP, "package.json"));
    sdk = req("@aws-sdk/client-bedrock-runtime");
    handler = req("@smithy/fetch-http-handler");
  }
  return { sdk, handler };
}

const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

/** A Converse request's fields from the suite's `extra` (model, temperature; anything else as it is). */
function fieldsOf(extra: Record<string, unknown> = {}): { modelId?: string; temperature?: number; rest: object } {
  const { model, temperature, ...rest } = extra as { model?: string; temperature?: number };
  return { modelId: model, temperature, rest };
}

export async function bedrockAgent(client: any, tools: ToolFns, o: AgentOptions): Promise<string> {
  const { sdk } = load();
  const messages: any[] = [{ role: "user", content: [{ text: o.task }] }];
  const { modelId, temperature, rest } = fieldsOf(o.extra);
  const toolConfig = {
    tools: Object.keys(tools).map((name) => ({
      toolSpec: { name, description: o.toolDescription ?? `The ${name} tool`, inputSchema: { json: schema } },
    })),
  };
  for (let turn = 0; turn < (o.maxTurns ?? 8); turn++) {
    const input = {
      modelId: modelId ?? o.model ?? "anthropic.claude-sonnet-4-5-20250929-v1:0",
      system: [{ text: o.system ?? "You are a travel agent." }],
      messages,
      inferenceConfig: { maxTokens: 1024, ...(temperature === undefined ? {} : { temperature }) },
      ...(toolConfig.tools.length ? { toolConfig } : {}),
      ...rest,
    };
    let message: any;
    let stopReason: string | undefined;
    if (o.stream) {
      const r = await client.send(new sdk.ConverseStreamCommand(input));
      const content: any[] = [];
      const json: Record<number, string> = {};
      for await (const e of r.stream) {
        if (e.contentBlockStart?.start?.toolUse) {
          const i = e.contentBlockStart.contentBlockIndex;
          content[i] = { toolUse: { ...e.contentBlockStart.start.toolUse, input: {} } };
          json[i] = "";
        } else if (e.contentBlockDelta) {
          const i = e.contentBlockDelta.contentBlockIndex;
          if (e.contentBlockDelta.delta.text !== undefined)
            content[i] = { text: (content[i]?.text ?? "") + e.contentBlockDelta.delta.text };
          else if (e.contentBlockDelta.delta.toolUse) json[i] += e.contentBlockDelta.delta.toolUse.input;
        } else if (e.contentBlockStop && json[e.contentBlockStop.contentBlockIndex] !== undefined) {
          const i = e.contentBlockStop.contentBlockIndex;
          content[i].toolUse.input = JSON.parse(json[i] || "{}");
        } else if (e.messageStop) stopReason = e.messageStop.stopReason;
      }
      message = { role: "assistant", content: content.filter(Boolean) };
    } else {
      const r = await client.send(new sdk.ConverseCommand(input));
      message = r.output.message;
      stopReason = r.stopReason;
    }
    messages.push(message);
    const uses = message.content.filter((b: any) => b.toolUse).map((b: any) => b.toolUse);
    if (uses.length === 0)
      return message.content.map((b: any) => b.text ?? "").join("") + (stopReason === "max_tokens" ? " [cut]" : "");
    const run = async (u: any) => {
      try {
        return { toolResult: { toolUseId: u.toolUseId, content: [{ json: await tools[u.name]!(u.input) }] } };
      } catch (err) {
        return { toolResult: { toolUseId: u.toolUseId, content: [{ text: (err as Error).message }], status: "error" } };
      }
    };
    const results: any[] = [];
    if (o.sequential) for (const u of uses) results.push(await run(u));
    else if (o.reverse) results.push(...(await Promise.all([...uses].reverse().map(run))).reverse());
    else results.push(...(await Promise.all(uses.map(run))));
    messages.push({ role: "user", content: results });
  }
  throw new Error("agent: too many turns");
}

export const bedrockKit = {
  name: "bedrock" as const,
  client: (fetch: typeof globalThis.fetch | undefined, endpoint: string, accessKeyId = BEDROCK_ACCESS_KEY) => {
    const { sdk, handler } = load();
    return new sdk.BedrockRuntimeClient({
      region: "us-east-1",
      endpoint,
      credentials: { accessKeyId, secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
      maxAttempts: 3,
      ...(fetch ? { requestHandler: new handler.FetchHttpHandler({ customFetch: fetch }) } : {}),
    });
  },
  run: (c: any, t: ToolFns, o: AgentOptions) => bedrockAgent(c, t, o),
  reply: (c: FakeContent): FakeReply => ({ json: bedrockConverse(c) }),
  streamReply: (c: FakeContent): FakeReply => ({ eventstream: bedrockConverseStream(c), chunkSize: 7 }),
  lengthStop: "max_tokens",
} satisfies Kit;
