/**
 * The Gemini API's wire format for the fake provider (fakeProvider.ts): a
 * GenerateContentResponse as generateContent returns it (usage, modelVersion, a responseId,
 * function calls without ids, as the Gemini API sends them), and the same reply as
 * streamGenerateContent?alt=sse streams it: `data:` chunks ended by CRLF CRLF, the text in
 * several chunks, each function call whole in one, the finishReason and usage on the last.
 */
import type { FakeContent } from "./fakeProvider.js";

export interface FakeGeminiContent extends FakeContent {
  /** A Gemini 3 thoughtSignature on the first function call (or on the text when there is none). */
  signature?: string;
}

let counter = 0;

export function geminiResponse(c: FakeGeminiContent = {}): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  if (c.text !== undefined) parts.push({ text: c.text });
  for (const t of c.toolCalls ?? []) parts.push({ functionCall: { name: t.name, args: t.input } });
  const signed = parts.find((p) => p.functionCall !== undefined) ?? parts[0];
  if (c.signature && signed) signed.thoughtSignature = c.signature;
  return {
    candidates: [
      {
        content: { parts, role: "model" },
        finishReason: c.stop ?? "STOP",
        index: 0,
        safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "NEGLIGIBLE" }],
      },
    ],
    usageMetadata: {
      promptTokenCount: 88,
      candidatesTokenCount: 17,
      totalTokenCount: 105,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 88 }],
    },
    modelVersion: c.model ?? "gemini-2.5-flash",
    responseId: `Rq3fZ${(++counter).toString(36).padStart(6, "0")}kPxQ`,
  };
}

/** Cut a string in a few pieces (by code point). */
function pieces(s: string, n = 3): string[] {
  const cps = Array.from(s);
  const size = Math.max(1, Math.ceil(cps.length / n));
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

export function geminiSSE(c: FakeGeminiContent = {}): string[] {
  const full = geminiResponse(c);
  const cand = (full.candidates as Record<string, any>[])[0]!;
  const { candidates: _c, usageMetadata, ...rest } = full;
  const chunk = (parts: unknown[], last: boolean) => {
    const candidate: Record<string, unknown> = { content: { parts, role: "model" }, index: 0 };
    if (last) candidate.finishReason = cand.finishReason;
    const body = { candidates: [candidate], usageMetadata: last ? usageMetadata : { promptTokenCount: 88 }, ...rest };
    return `data: ${JSON.stringify(body)}\r\n\r\n`;
  };
  const out: string[] = [];
  const parts = cand.content.parts as Record<string, unknown>[];
  parts.forEach((p, i) => {
    const last = i === parts.length - 1;
    if (typeof p.text === "string") {
      const ps = pieces(p.text);
      ps.forEach((t, k) => out.push(chunk([{ ...p, text: t }], last && k === ps.length - 1)));
    } else out.push(chunk([p], last));
  });
  if (parts.length === 0) out.push(chunk([], true));
  return out;
}

/** The function responses a Gemini request carries, oldest first, as JSON text. */
export function geminiResultsIn(contents: unknown[]): string[] {
  const out: string[] = [];
  for (const c of contents as Array<{ parts?: Array<Record<string, unknown>> }>) {
    for (const p of c.parts ?? []) {
      const fr = p.functionResponse as { response?: unknown } | undefined;
      if (fr) out.push(JSON.stringify(fr.response));
    }
  }
  return out;
}
