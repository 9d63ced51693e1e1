/**
 * Gemini streaming (`streamGenerateContent?alt=sse`), both ways. Each `data:` event is a
 * GenerateContentResponse holding the next parts of the one candidate; the last carries
 * its finishReason (and the usage). Recording: the chunks are folded back into the body a
 * non-streamed call would have returned (text parts joined, function calls in order), which
 * goes through the adapter's own parse, so a streamed reply and a plain one give the same
 * ModelOutput. Replay: the built body is cut into chunks, one a part, the finishReason on
 * the last. Pure.
 */
import type { ModelOutput } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import { formatSse, type SseEvent, sseAssembler } from "../shared/sse.js";
import type { ParsedModelRequest, StreamAdapter, StreamAssembler } from "../types.js";
import { isObj, refuse, type Obj } from "../shared/wire.js";
import { buildGeminiResponse, parseGeminiResponse } from "./response.js";

/** Folds streamed GenerateContentResponse chunks into the equivalent non-streamed body. */
export class GeminiChunkFolder {
  private base: Obj | undefined;
  private readonly parts: Obj[] = [];
  private candidate: Obj = {};
  private candidates = 0;
  private finish: unknown;
  problem: string | undefined;

  event(ev: SseEvent): void {
    if (this.problem !== undefined) return;
    let data: unknown;
    try {
      data = JSON.parse(ev.data);
    } catch {
      this.problem = `a chunk whose data is not JSON (${ev.data.slice(0, 80)})`;
      return;
    }
    if (!isObj(data)) {
      this.problem = `a chunk whose data is not an object (${ev.data.slice(0, 80)})`;
      return;
    }
    if (isObj(data.error)) {
      const e = data.error;
      this.problem = `an error from the provider (${String(e.status ?? e.code ?? "error")}: ${String(e.message ?? ev.data)})`;
      return;
    }
    const { candidates, ...rest } = data;
    this.base = { ...(this.base ?? {}), ...rest };
    if (!Array.isArray(candidates)) return;
    this.candidates = Math.max(this.candidates, candidates.length);
    const c = candidates[0];
    if (!isObj(c)) return;
    const { content, ...fields } = c;
    this.candidate = { ...this.candidate, ...fields };
    if (c.finishReason !== undefined && c.finishReason !== null) this.finish = c.finishReason;
    const parts = isObj(content) && Array.isArray(content.parts) ? content.parts : [];
    for (const p of parts) {
      if (!isObj(p)) continue;
      const last = this.parts[this.parts.length - 1];
      // a text delta continues the text part before it (a thought's a thought's); a signature on it stays
      if (
        typeof p.text === "string" &&
        last &&
        typeof last.text === "string" &&
        (last.thought === true) === (p.thought === true)
      ) {
        last.text = last.text + p.text;
        if (p.thoughtSignature !== undefined) last.thoughtSignature = p.thoughtSignature;
      } else this.parts.push({ ...p });
    }
  }

  /** The chunk with the finishReason came, and nothing wrong before it. */
  get complete(): boolean {
    return this.problem === undefined && this.finish !== undefined;
  }

  /** The assembled body; throws when the stream broke or was not understood. */
  body(): Obj {
    if (this.problem !== undefined) {
      refuse(
        `The Gemini stream could not be recorded: it contained ${this.problem}. ` +
          "Blackbox records only complete replies: retry the call, or record with generateContent (not streamed).",
      );
    }
    if (this.finish === undefined) {
      if (this.base && this.candidates === 0) return this.base; // a blocked prompt: the parse says so
      refuse(
        `The Gemini stream broke: it ended ${this.base ? "before a finishReason" : "before any chunk"}, so the reply is incomplete and cannot be recorded. ` +
          "Retry the call (the agent saw the same broken stream), or record again when the provider is stable.",
      );
    }
    const candidates = Array.from({ length: this.candidates }, (_, i) =>
      i === 0 ? { ...this.candidate, content: { parts: this.parts, role: "model" } } : {},
    );
    return { ...this.base, candidates };
  }
}

export function createAssembler(ids: ToolCallIds): StreamAssembler {
  return sseAssembler(new GeminiChunkFolder(), (body) => parseGeminiResponse(body as Obj, ids));
}

/** The SSE text of a GenerateContentResponse, as the API streams it: a chunk a part, the finishReason last. */
export function responseToSse(body: Obj): string {
  const cand = (Array.isArray(body.candidates) ? body.candidates[0] : undefined) as Obj | undefined;
  const parts = (isObj(cand?.content) && Array.isArray(cand.content.parts) ? cand.content.parts : []) as Obj[];
  const { candidates: _c, usageMetadata, ...rest } = body;
  const out: string[] = [];
  const chunk = (ps: Obj[], last: boolean): void => {
    const c: Obj = { content: { parts: ps, role: "model" }, index: 0 };
    if (last) c.finishReason = cand?.finishReason ?? "STOP";
    const data: Obj = { candidates: [c], ...(last ? { usageMetadata } : {}), ...rest };
    out.push(formatSse({ data: JSON.stringify(data) }).replace(/\n\n$/, "\r\n\r\n"));
  };
  if (parts.length === 0) chunk([], true);
  parts.forEach((p, i) => chunk([p], i === parts.length - 1));
  return out.join("");
}

export function synthesize(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): string {
  return responseToSse(buildGeminiResponse(output, request, ids, seq) as Obj);
}

export const geminiStreamAdapter: StreamAdapter = { createAssembler, synthesize };
