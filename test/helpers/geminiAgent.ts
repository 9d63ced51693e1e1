/**
 * A Gemini tool-using agent on the real @google/genai, written as Google's function-calling
 * guide writes it (contents grown by hand: the model's content, then one user content of
 * functionResponse parts), and its kit for the conformance suite. The SDK is the pinned one
 * of test/fixtures/sdk-versions/gemini, installed on first use.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentOptions, Kit, ToolFns } from "./agents.js";
import { installFixture } from "./fixtureInstall.js";
import { geminiResponse, geminiSSE } from "./geminiWire.js";

export const GEMINI_FIXTURE = join(import.meta.dirname, "..", "fixtures", "sdk-versions", "gemini");
installFixture(GEMINI_FIXTURE);
const genai = (await import(
  pathToFileURL(join(GEMINI_FIXTURE, "node_modules", "@google", "genai", "dist", "node", "index.mjs")).href
)) as { GoogleGenAI: new (options: Record<string, unknown>) => unknown }; // typed here: the fixture installs at test time

/** A realistic-looking Google API key (the secret scan and the redaction rules know its shape). */
export const GEMINI_TEST_KEY = "AIzaSyTestKey0000000000000000000000000a";

const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

type Part = Record<string, unknown>;

export async function geminiAgent(ai: any, tools: ToolFns, o: AgentOptions): Promise<string> {
  const contents: Array<{ role: string; parts: Part[] }> = [{ role: "user", parts: [{ text: o.task }] }];
  const functionDeclarations = Object.keys(tools).map((name) => ({
    name,
    description: o.toolDescription ?? `The ${name} tool`,
    parametersJsonSchema: schema,
  }));
  const { model = o.model ?? "gemini-2.5-flash", ...config } = (o.extra ?? {}) as Record<string, unknown>;
  for (let turn = 0; turn < (o.maxTurns ?? 8); turn++) {
    const params = {
      model,
      contents,
      config: {
        systemInstruction: o.system ?? "You are a travel agent.",
        maxOutputTokens: 1024,
        tools: [{ functionDeclarations }],
        ...config,
      },
    };
    let parts: Part[];
    let finish: string | undefined;
    if (o.stream) {
      parts = [];
      for await (const chunk of await ai.models.generateContentStream(params)) {
        const c = chunk.candidates?.[0];
        parts.push(...((c?.content?.parts ?? []) as Part[]));
        if (c?.finishReason) finish = c.finishReason;
      }
    } else {
      const res = await ai.models.generateContent(params);
      parts = (res.candidates?.[0]?.content?.parts ?? []) as Part[];
      finish = res.candidates?.[0]?.finishReason;
    }
    contents.push({ role: "model", parts });
    const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall as { name: string; args: unknown });
    const text = parts.map((p) => (typeof p.text === "string" && !p.thought ? p.text : "")).join("");
    if (calls.length === 0) return text + (finish === "MAX_TOKENS" ? " [cut]" : "");
    const run = async (c: { name: string; args: unknown }): Promise<Part> => {
      try {
        return { functionResponse: { name: c.name, response: { output: await tools[c.name]!(c.args) } } };
      } catch (err) {
        return { functionResponse: { name: c.name, response: { error: (err as Error).message } } };
      }
    };
    const results: Part[] = [];
    if (o.sequential) for (const c of calls) results.push(await run(c));
    else if (o.reverse) results.push(...(await Promise.all([...calls].reverse().map(run))).reverse());
    else results.push(...(await Promise.all(calls.map(run))));
    contents.push({ role: "user", parts: results });
  }
  throw new Error("agent: too many turns");
}

/** The text of a refused call as the SDK surfaces it: its ApiError's message is the error body's JSON. */
export function geminiErrorText(err: { status?: number; message: string }): string {
  try {
    return `${err.status} ${(JSON.parse(err.message) as { error: { message: string } }).error.message}`;
  } catch {
    return err.message;
  }
}

export const geminiKit: Kit = {
  name: "gemini",
  client: (fetch, baseUrl, apiKey = GEMINI_TEST_KEY) =>
    new genai.GoogleGenAI({ apiKey, httpOptions: { baseUrl, ...(fetch ? { fetch } : {}) } }),
  run: (c, t, o) => geminiAgent(c, t, o),
  reply: (c) => ({ json: geminiResponse(c) }),
  streamReply: (c) => ({ sse: geminiSSE(c), chunkSize: 7 }),
  lengthStop: "MAX_TOKENS",
  errorText: geminiErrorText,
};
