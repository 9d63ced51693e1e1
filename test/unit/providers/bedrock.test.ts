/**
 * The Bedrock Converse definition without an SDK: the event-stream codec against zlib's CRC-32
 * and the fake provider's own frames, cut at every byte; the body the path completes (model id,
 * stream, messages moved last); what is refused by name; the SigV4 parts kept out of cassettes.
 */
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bedrockProvider, crc32, encodeEvent, EventStreamDecoder } from "../../../src/providers/bedrock/index.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { createRedactor } from "../../../src/redact/index.js";
import { KeysSeen } from "../../../src/session/keys.js";
import { ProviderRoutes } from "../../../src/session/routes.js";
import { bedrockConverse, bedrockConverseStream, eventFrame } from "../../helpers/fakeProvider.js";

const URL_CONVERSE = new URL(
  "https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-x-v1%3A0/converse",
);
const URL_STREAM = new URL("https://bedrock-runtime.eu-west-1.amazonaws.com/model/m/converse-stream");
const parse = (url: URL, body: object) =>
  bedrockProvider.parseRequest(
    JSON.parse(
      bedrockProvider.requestText!({ method: "POST", url: url.href, headers: {}, body: JSON.stringify(body) }, url)!,
    ),
    new ToolCallIds(),
  );

describe("the AWS event-stream codec", () => {
  it("computes zlib's CRC-32", () => {
    for (const s of ["", "a", "123456789", "the AWS event stream"])
      expect(crc32(Buffer.from(s))).toBe(zlibCrc32(Buffer.from(s)));
  });

  it("cuts the fake provider's frames (written apart from it) back out, however the bytes are split", () => {
    const bytes = Buffer.concat(
      bedrockConverseStream({ text: "Hi there", toolCalls: [{ name: "f", input: { a: 1 } }] }),
    );
    for (const size of [1, 3, 7, 13, 64, bytes.length]) {
      const d = new EventStreamDecoder();
      const types: string[] = [];
      for (let i = 0; i < bytes.length; i += size)
        for (const m of d.push(bytes.subarray(i, i + size))) types.push(m.headers[":event-type"]!);
      expect(types).toEqual([
        "messageStart",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockStop",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
      ]);
      expect(d.pending).toBe(0);
    }
  });

  it("refuses a frame whose CRC does not match", () => {
    const frame = Buffer.from(encodeEvent("messageStart", { role: "assistant" }));
    frame[frame.length - 6]! ^= 1;
    expect(() => new EventStreamDecoder().push(frame)).toThrow("an event-stream message whose CRC does not match");
  });

  it("a streamed reply and a plain one give the same output; a replayed stream is read back to it", () => {
    const c = { text: "Checking.", toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] };
    const plain = bedrockProvider.parseResponse(bedrockConverse(c), new ToolCallIds());
    const asm = bedrockProvider.stream.createAssembler(new ToolCallIds());
    for (const f of bedrockConverseStream(c)) for (let i = 0; i < f.length; i += 5) asm.push(f.subarray(i, i + 5));
    expect(asm.complete()).toBe(true);
    expect(asm.finish()).toEqual(plain);
    const request = parse(URL_STREAM, { messages: [{ role: "user", content: [{ text: "Hi" }] }] });
    const ids = new ToolCallIds();
    const synthesized = bedrockProvider.stream.synthesize(plain, request, ids, 0) as Uint8Array;
    const back = bedrockProvider.stream.createAssembler(ids);
    back.push(synthesized);
    expect(back.finish()).toEqual(plain);
    expect(bedrockProvider.stream.contentType).toBe("application/vnd.amazon.eventstream");
  });

  it("an exception frame is a provider error: nothing is recorded", () => {
    const asm = bedrockProvider.stream.createAssembler(new ToolCallIds());
    asm.push(bedrockConverseStream({ text: "Hi" })[0]!);
    asm.push(
      eventFrame(
        { ":exception-type": "throttlingException", ":content-type": "application/json", ":message-type": "exception" },
        '{"message":"Too many requests"}',
      ),
    );
    expect(asm.failed()).toBe(true);
    expect(() => asm.finish()).toThrow(
      'Bedrock ConverseStream reply holds an exception from the provider (throttlingException: {"message":"Too many requests"})',
    );
  });
});

describe("the request", () => {
  it("takes the model (decoded) and a streamed call from the path, and controls in neutral names", () => {
    const body = {
      messages: [{ role: "user", content: [{ text: "Hi" }] }],
      system: [{ text: "Be brief." }, { cachePoint: { type: "default" } }],
      inferenceConfig: { maxTokens: 100, temperature: 0.5, topP: 0.9, stopSequences: ["END"] },
      toolConfig: {
        tools: [{ toolSpec: { name: "f", inputSchema: { json: { type: "object" } } } }],
        toolChoice: { tool: { name: "f" } },
      },
    };
    const plain = parse(URL_CONVERSE, body);
    expect(plain.stream).toBe(false);
    expect(plain.input).toEqual({
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      tools: [{ name: "f", inputSchema: { type: "object" } }],
      systemPrompt: "Be brief.",
      model: "anthropic.claude-x-v1:0",
      params: { maxTokens: 100, temperature: 0.5, topP: 0.9, stopSequences: ["END"], toolChoice: { name: "f" } },
    });
    expect(parse(URL_STREAM, body).stream).toBe(true);
  });

  it("moves messages last when the body is the SDK's form with messages first, and only then", () => {
    const body = { messages: [{ role: "user", content: [{ text: "Hi" }] }], system: [{ text: "S" }] };
    const text = bedrockProvider.requestText!(
      { method: "POST", url: URL_CONVERSE.href, headers: {}, body: JSON.stringify(body) },
      URL_CONVERSE,
    )!;
    expect(text).toBe(
      '{"modelId":"anthropic.claude-x-v1:0","system":[{"text":"S"}],"messages":[{"role":"user","content":[{"text":"Hi"}]}]}',
    );
    // the next turn, the same members after the messages: the same order, found without a parse
    const next = { ...body, messages: [...body.messages, { role: "assistant", content: [{ text: "Yo" }] }] };
    expect(
      JSON.parse(
        bedrockProvider.requestText!(
          { method: "POST", url: URL_CONVERSE.href, headers: {}, body: JSON.stringify(next) },
          URL_CONVERSE,
        )!,
      ),
    ).toEqual({
      modelId: "anthropic.claude-x-v1:0",
      ...next,
    });
    // another form (whitespace): members kept where they are
    const spaced = JSON.stringify(body, null, 1);
    expect(
      JSON.parse(
        bedrockProvider.requestText!(
          { method: "POST", url: URL_CONVERSE.href, headers: {}, body: spaced },
          URL_CONVERSE,
        )!,
      ),
    ).toEqual({
      modelId: "anthropic.claude-x-v1:0",
      ...body,
    });
  });

  it.each([
    [
      "guardrailConfig",
      { guardrailConfig: { guardrailIdentifier: "g", guardrailVersion: "1" } },
      '"guardrailConfig" asks Bedrock to run a guardrail on the call',
    ],
    ["promptVariables", { promptVariables: { x: { text: "y" } } }, "a prompt managed in Bedrock Prompt Management"],
    [
      "another additionalModelResponseFieldPaths",
      { additionalModelResponseFieldPaths: ["/usage"] },
      '"additionalModelResponseFieldPaths" asks for model-specific reply fields (["/usage"])',
    ],
    [
      "an image",
      { messages: [{ role: "user", content: [{ image: { format: "png", source: { bytes: "AA==" } } }] }] },
      "messages[0].content[0] is an image",
    ],
    [
      "a system tool",
      { messages: [], toolConfig: { tools: [{ systemTool: { name: "web" } }] } },
      "toolConfig.tools[0] is a system tool, which runs on AWS's side",
    ],
  ])("refuses %s by name", (_what, fields, message) => {
    expect(() => parse(URL_CONVERSE, { messages: [{ role: "user", content: [{ text: "Hi" }] }], ...fields })).toThrow(
      message,
    );
  });

  it("classifies Converse as a model call and refuses InvokeModel and ApplyGuardrail wherever they go", () => {
    const at = (path: string) => bedrockProvider.classify("POST", new URL(`https://h${path}`));
    expect(at("/model/m/converse")).toBe("model");
    expect(at("/model/m/converse-stream")).toBe("model");
    expect(at("/model/m/invoke")).toMatchObject({ unsupported: expect.stringContaining("Bedrock's InvokeModel") });
    expect(at("/model/m/invoke-with-response-stream")).toMatchObject({ unsupported: expect.any(String) });
    expect(at("/guardrail/g/version/1/apply")).toMatchObject({
      unsupported: expect.stringContaining("ApplyGuardrail"),
    });
    expect(at("/model/m/count-tokens")).toBe("other");
  });
});

describe("routes and secrets", () => {
  it("routes every region's default host, AWS_ENDPOINT_URL_BEDROCK_RUNTIME and AWS_ENDPOINT_URL", () => {
    const routes = new ProviderRoutes(undefined, {
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: "http://127.0.0.1:4010",
      AWS_ENDPOINT_URL: "http://localhost:4566",
    });
    expect(routes.route("https://bedrock-runtime.ap-south-1.amazonaws.com/model/m/converse")).toBe("bedrock");
    expect(routes.route("https://bedrock-runtime.cn-north-1.amazonaws.com.cn/model/m/converse")).toBe("bedrock");
    expect(routes.route("http://127.0.0.1:4010/model/m/converse")).toBe("bedrock");
    expect(routes.route("http://localhost:4566/model/m/converse")).toBe("bedrock");
    expect(routes.route("https://bedrock.us-east-1.amazonaws.com/foundation-models")).toBeUndefined();
    expect(routes.route("https://s3.us-east-1.amazonaws.com/b")).toBeUndefined();
  });

  it("keeps the access key id, the signature, the session token and the secret from the environment as keys", () => {
    const signature = "a".repeat(32) + "0123456789abcdef0123456789abcdef";
    const keys = new KeysSeen();
    keys.add({
      method: "POST",
      url: URL_CONVERSE.href,
      body: "{}",
      headers: {
        authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261204/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`,
        "x-amz-security-token": "IQoJb3JpZ2luX2VjEBbbSessionToken",
      },
    });
    const list = keys.list({ AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" });
    expect(list).toEqual(
      expect.arrayContaining([
        "AKIAIOSFODNN7EXAMPLE",
        signature,
        "IQoJb3JpZ2luX2VjEBbbSessionToken",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      ]),
    );
    // and a signature an agent copies into a tool result is redacted by the default rules
    const r = createRedactor(undefined);
    expect(r.payload("tool_result", { result: `Signature=${signature}` })).toEqual({
      result: "Signature=<AWS_SIGNATURE_1>",
    });
  });
});
