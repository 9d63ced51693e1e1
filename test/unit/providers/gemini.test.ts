/**
 * The Gemini adapter (src/providers/gemini/): requests and replies both ways, call-N ids by
 * place, refusals by their messages, the stream folded at any cut, the URL's part and the
 * contents moved last, the incremental parse, and the key kept out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlackboxUnsupportedError, isBlackboxError } from "../../../src/errors.js";
import { geminiProvider, withUrl } from "../../../src/providers/gemini/index.js";
import { geminiMoreContents, geminiRequestState } from "../../../src/providers/gemini/request.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { KeysSeen } from "../../../src/session/keys.js";
import { findCredential } from "../../../src/trace/neutrality.js";
import { geminiResponse, geminiSSE } from "../../helpers/geminiWire.js";

const URL_PLAIN = new URL("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent");
const URL_SSE = new URL(
  "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
);
const enc = (s: string) => new TextEncoder().encode(s);
const TOOLS = [
  {
    functionDeclarations: [
      { name: "get_weather", description: "Forecast.", parametersJsonSchema: { type: "object" } },
      { name: "book", parameters: { type: "OBJECT" } },
    ],
  },
];

/** A body as the session parses it: the URL's part put in front. */
function parse(body: object, ids = new ToolCallIds(), url = URL_PLAIN) {
  return geminiProvider.parseRequest(JSON.parse(withUrl(JSON.stringify(body), url)!), ids);
}

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(BlackboxUnsupportedError);
    return (err as Error).message;
  }
  throw new Error("not refused");
};

describe("requests", () => {
  it("maps the model, system instruction, contents, tools and controls to the neutral names", () => {
    const p = parse({
      contents: [
        { role: "user", parts: [{ text: "Weather " }, { text: "in Lisbon?" }] },
        { role: "model", parts: [{ text: "hm", thought: true }, { text: "Checking." }] },
      ],
      systemInstruction: { role: "user", parts: [{ text: "You plan trips." }, { text: "Be brief." }] },
      tools: TOOLS,
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      generationConfig: {
        maxOutputTokens: 64,
        temperature: 0.2,
        topK: 3,
        stopSequences: ["x"],
        thinkingConfig: { thinkingBudget: 0 },
      },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      labels: { team: "a" },
    });
    expect(p.stream).toBe(false);
    expect(p.thinking).toBe(false);
    expect(p.input).toEqual({
      model: "gemini-2.5-flash",
      systemPrompt: "You plan trips.\n\nBe brief.",
      messages: [
        { role: "user", content: "Weather in Lisbon?" },
        { role: "assistant", content: "Checking." },
      ],
      tools: [
        { name: "get_weather", description: "Forecast.", inputSchema: { type: "object" } },
        { name: "book", inputSchema: { type: "OBJECT" } },
      ],
      params: {
        maxTokens: 64,
        temperature: 0.2,
        topK: 3,
        stopSequences: ["x"],
        thinking: { thinkingBudget: 0 },
        toolChoice: { name: "get_weather" },
        safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      },
    });
    expect(parse({ contents: [] }, new ToolCallIds(), URL_SSE).stream).toBe(true);
  });

  it("a reply's calls and the history that sends them back get the same call-N, paired by name or id", () => {
    const ids = new ToolCallIds();
    const user = { role: "user", parts: [{ text: "Lisbon or Porto?" }] };
    parse({ contents: [user], tools: TOOLS }, ids);
    const out = geminiProvider.parseResponse(
      geminiResponse({
        text: "Both.",
        toolCalls: [
          { name: "get_weather", input: { city: "Lisbon" } },
          { name: "get_weather", input: { city: "Porto" } },
        ],
      }),
      ids,
    );
    expect(out).toMatchObject({
      type: "tool_calls",
      text: "Both.",
      calls: [{ toolCallId: "call-0" }, { toolCallId: "call-1" }],
    });
    // the AI SDK sends back ids it made up: a call is known by its place, a response paired by the id
    const model = {
      role: "model",
      parts: [
        { text: "Both." },
        { functionCall: { id: "x1", name: "get_weather", args: { city: "Lisbon" } } },
        { functionCall: { id: "x2", name: "get_weather", args: { city: "Porto" } } },
      ],
    };
    const results = {
      role: "user",
      parts: [
        { functionResponse: { id: "x2", name: "get_weather", response: { output: "rain" } } },
        { functionResponse: { id: "x1", name: "get_weather", response: { output: "sun" } } },
      ],
    };
    const next = parse({ contents: [user, model, results], tools: TOOLS }, ids);
    expect(next.input.messages[1]!.content).toEqual([
      { type: "text", text: "Both." },
      { type: "tool_use", toolCallId: "call-0", toolName: "get_weather", toolInput: { city: "Lisbon" } },
      { type: "tool_use", toolCallId: "call-1", toolName: "get_weather", toolInput: { city: "Porto" } },
    ]);
    expect(next.input.messages[2]!.content).toEqual([
      { type: "tool_result", toolCallId: "call-1", toolName: "get_weather", result: { output: "rain" } },
      { type: "tool_result", toolCallId: "call-0", toolName: "get_weather", result: { output: "sun" } },
    ]);
    // without ids, in order of the calls of that name
    const plain = {
      ...results,
      parts: results.parts.map((p) => ({ functionResponse: { ...p.functionResponse, id: undefined } })),
    };
    const byName = parse({ contents: [user, model, plain], tools: TOOLS }, ids);
    expect((byName.input.messages[2]!.content as any[]).map((p) => p.toolCallId)).toEqual(["call-0", "call-1"]);
    expect(
      refusal(() =>
        parse({ contents: [user, { role: "user", parts: [{ functionResponse: { name: "book", response: {} } }] }] }),
      ),
    ).toContain(
      'contents[1].parts[0] is a functionResponse for "book", which the model content before it did not call',
    );
  });

  it.each([
    [
      { tools: [{ googleSearch: {} }] },
      `tools[0] is Google's Google Search grounding tool ("googleSearch"), which runs on Google's side`,
    ],
    [{ tools: [{ codeExecution: {} }] }, `tools[0] is Google's code execution tool ("codeExecution")`],
    [
      { cachedContent: "cachedContents/abc" },
      `"cachedContent" ("cachedContents/abc") puts content cached on Google's side`,
    ],
    [
      {
        contents: [
          { role: "user", parts: [{ fileData: { fileUri: "https://x/files/1", mimeType: "application/pdf" } }] },
        ],
      },
      'contents[0].parts[0] is a fileData part ("https://x/files/1"), a file stored on Google\'s side',
    ],
    [
      { contents: [{ parts: [{ inlineData: { mimeType: "image/png", data: "AA==" } }] }] },
      "contents[0].parts[0] is an inlineData part (image/png); image, audio",
    ],
    [
      { contents: [{ role: "model", parts: [{ executableCode: { code: "1" } }] }] },
      "contents[0].parts[0] is code the model ran on Google's side",
    ],
    [{ generationConfig: { candidateCount: 2 } }, "generationConfig.candidateCount = 2 asks for several candidates"],
    [{ generationConfig: { responseLogprobs: true } }, "generationConfig asks for log probabilities"],
    [
      { generationConfig: { responseModalities: ["AUDIO"] } },
      'generationConfig.responseModalities ["AUDIO"] asks for audio or image output',
    ],
  ])("refuses %j by name", (body, message) => {
    expect(refusal(() => parse({ contents: [], ...body }))).toContain(`Gemini generateContent: ${message}`);
  });

  it("refuses a stream that is not SSE, and the Interactions API", () => {
    const jsonStream = new URL("https://h/v1beta/models/m:streamGenerateContent");
    expect(refusal(() => parse({ contents: [] }, new ToolCallIds(), jsonStream))).toContain(
      "without alt=sse streams a JSON array",
    );
    expect(geminiProvider.classify("POST", new URL("https://h/v1beta/interactions"))).toMatchObject({
      unsupported: expect.stringContaining("The Gemini Interactions API"),
    });
    expect(geminiProvider.classify("POST", new URL("https://h/v1beta/models/m:countTokens"))).toBe("other");
    expect(geminiProvider.classify("POST", URL_PLAIN)).toBe("model");
  });

  it("a history carrying a thought signature, or a Gemini 3 run with function calls, is thinking-enabled", () => {
    const model = (extra: object) => ({
      role: "model",
      parts: [{ functionCall: { name: "book", args: {} }, ...extra }],
    });
    const user = { role: "user", parts: [{ text: "go" }] };
    expect(parse({ contents: [user, model({})] }).thinking).toBe(false);
    expect(parse({ contents: [user, model({ thoughtSignature: "c2ln" })] }).thinking).toBe(true);
    const g3 = new URL("https://h/v1beta/models/gemini-3-pro-preview:generateContent");
    expect(parse({ contents: [user, model({})] }, new ToolCallIds(), g3).thinking).toBe(true);
    expect(parse({ contents: [user] }, new ToolCallIds(), g3).thinking).toBe(false);
  });
});

describe("replies", () => {
  it("MAX_TOKENS is a length stop; a blocked prompt and a SAFETY finish are refused", () => {
    expect(
      geminiProvider.parseResponse(geminiResponse({ text: "Lisbon is", stop: "MAX_TOKENS" }), new ToolCallIds()),
    ).toEqual({
      type: "final_answer",
      text: "Lisbon is",
      stop: "length",
    });
    expect(
      refusal(() => geminiProvider.parseResponse({ promptFeedback: { blockReason: "SAFETY" } }, new ToolCallIds())),
    ).toContain("has no candidate (the prompt was blocked: SAFETY)");
    expect(
      refusal(() => geminiProvider.parseResponse(geminiResponse({ text: "x", stop: "SAFETY" }), new ToolCallIds())),
    ).toContain('finishReason "SAFETY", which Blackbox cannot give back');
  });

  it("a built reply parses back to the same output, and its calls carry no id", () => {
    const output = {
      type: "tool_calls" as const,
      text: "ok",
      calls: [{ toolCallId: "call-4", toolName: "f", toolInput: { a: 1 } }],
    };
    const request = parse({ contents: [{ parts: [{ text: "hi" }] }] });
    const ids = new ToolCallIds();
    const body = geminiProvider.buildResponse(output, request, ids, 7) as any;
    expect(body.candidates[0].content.parts).toEqual([{ text: "ok" }, { functionCall: { name: "f", args: { a: 1 } } }]);
    expect(body.responseId).toBe("bbx-resp-7");
    expect(body.modelVersion).toBe("gemini-2.5-flash");
    const back = new ToolCallIds();
    back.seedPast(4);
    expect(geminiProvider.parseResponse(body, back)).toEqual({
      ...output,
      calls: [{ ...output.calls[0]!, toolCallId: "call-5" }],
    });
  });

  it("the error body names Blackbox where isBlackboxError reads it in @google/genai's and the AI SDK's errors", () => {
    const text = JSON.stringify(geminiProvider.errorBody("[blackbox] no"));
    expect(isBlackboxError({ status: 400, message: text })).toBe(true); // @google/genai's ApiError
    expect(isBlackboxError({ statusCode: 400, message: "Bad Request", responseBody: text })).toBe(true); // the AI SDK's
    expect(isBlackboxError({ status: 400, message: '{"error":{"code":400,"message":"quota"}}' })).toBe(false);
  });
});

describe("streams", () => {
  const content = {
    text: "Lisbon: 日本 🌍 sunny, Porto rain.",
    toolCalls: [
      { name: "get_weather", input: { city: "Lisbon" } },
      { name: "book", input: { nights: 2 } },
    ],
    signature: "c2lnbmF0dXJl",
  };
  const bytes = enc(geminiSSE(content).join(""));
  const expected = geminiProvider.parseResponse(geminiResponse(content), new ToolCallIds());

  it("any cut of the byte stream gives the non-streamed output", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 40 }), (raw) => {
        const cuts = [...new Set(raw)].sort((a, b) => a - b);
        const a = geminiProvider.stream.createAssembler(new ToolCallIds());
        let start = 0;
        for (const c of cuts) {
          a.push(bytes.subarray(start, c));
          start = c;
        }
        a.push(bytes.subarray(start));
        expect(a.complete()).toBe(true);
        expect(a.finish()).toEqual(expected);
      }),
    );
  });

  it("a synthesized stream folds back into the output it was made from", () => {
    const request = parse({ contents: [{ parts: [{ text: "hi" }] }] }, new ToolCallIds(), URL_SSE);
    const sse = geminiProvider.stream.synthesize(expected, request, new ToolCallIds(), 0) as string;
    expect(sse).toMatch(/^data: \{.*\}\r\n\r\n/);
    const a = geminiProvider.stream.createAssembler(new ToolCallIds());
    a.push(enc(sse));
    expect(a.finish()).toEqual(expected);
  });

  it("a stream that ends before its finishReason, or carries an error, is refused", () => {
    const cut = geminiProvider.stream.createAssembler(new ToolCallIds());
    cut.push(bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(cut.complete()).toBe(false);
    expect(refusal(() => cut.finish())).toContain("The Gemini stream broke: it ended before a finishReason");
    const err = geminiProvider.stream.createAssembler(new ToolCallIds());
    err.push(
      enc(`data: ${JSON.stringify({ error: { code: 503, message: "overloaded", status: "UNAVAILABLE" } })}\r\n\r\n`),
    );
    expect(err.failed()).toBe(true);
    expect(refusal(() => err.finish())).toContain("an error from the provider (UNAVAILABLE: overloaded)");
  });
});

describe("the text the session parses", () => {
  it("puts the URL's part first and contents last, keeping every member", () => {
    for (const body of [
      { contents: [{ parts: [{ text: "a" }] }], systemInstruction: { parts: [{ text: "s" }] }, tools: TOOLS },
      { generationConfig: { temperature: 1 }, contents: [], tools: [] }, // the AI SDK's order
      { contents: [1] },
      { a: 1 },
      {},
    ]) {
      const text = withUrl(JSON.stringify(body), URL_PLAIN)!;
      const parsed = JSON.parse(text);
      expect(parsed).toEqual({ "bbx:url": { model: "gemini-2.5-flash", stream: false, sse: false }, ...body });
      if ("contents" in body) expect(Object.keys(parsed).at(-1)).toBe("contents");
      expect(JSON.stringify(parsed)).toBe(text);
    }
    expect(withUrl("not json", URL_PLAIN)).toBe("not json");
  });

  it("the incremental parse of a tool loop's next request gives what the full parse gives", () => {
    const user = { role: "user", parts: [{ text: "go" }] };
    const model = { role: "model", parts: [{ functionCall: { name: "book", args: { n: 1 } } }] };
    const result = { role: "user", parts: [{ functionResponse: { name: "book", response: { ok: true } } }] };
    const full = (contents: object[], ids: ToolCallIds) =>
      geminiRequestState(JSON.parse(withUrl(JSON.stringify({ contents, tools: TOOLS }), URL_PLAIN)!), ids);
    const a = new ToolCallIds();
    const first = full([user], a);
    const more = geminiMoreContents(first, [model, result], a);
    const b = new ToolCallIds();
    full([user], b);
    expect(more.parsed).toEqual(full([user, model, result], b).parsed);
    expect(a.functionCallSlot).toBe(3);
  });
});

describe("the key", () => {
  it("a ?key= query parameter and the x-goog-api-key header are keys a cassette must not hold", () => {
    const keys = new KeysSeen();
    keys.add({
      method: "POST",
      url: `${URL_PLAIN.href}?key=AIzaSyQueryKey0000000000000000000000000`,
      headers: {},
      body: "{}",
    });
    keys.add({
      method: "POST",
      url: URL_PLAIN.href,
      headers: { "x-goog-api-key": "AIzaSyHeaderKey000000000000000000000000" },
      body: "{}",
    });
    expect(keys.list({ GOOGLE_GENERATIVE_AI_API_KEY: "AIzaSyEnvKey000000000000000000000000000" }).sort()).toEqual([
      "AIzaSyEnvKey000000000000000000000000000",
      "AIzaSyHeaderKey000000000000000000000000",
      "AIzaSyQueryKey0000000000000000000000000",
    ]);
    expect(findCredential("debug: AIzaSyHeaderKey000000000000000000000000")).toBe(
      "AIzaSyHeaderKey000000000000000000000000",
    );
  });
});
