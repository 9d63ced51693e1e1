/**
 * An incremental Server-Sent Events parser over bytes. Chunks may split anywhere,
 * even inside a UTF-8 sequence or a CRLF pair. Follows the WHATWG event-stream
 * rules the SDKs use: lines end with LF, CR or CRLF; `event:` names the event,
 * `data:` lines join with "\n"; comments (`:`) and other fields are ignored; a
 * blank line dispatches. An event not closed by a blank line when the stream ends
 * is dropped, as the SDKs drop it. Pure: no I/O.
 */
import type { ModelOutput } from "../../trace/types.js";
import type { StreamAssembler } from "../types.js";

export interface SseEvent {
  event?: string;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private pending = "";
  private skipLf = false;
  private event: string | undefined;
  private data: string[] = [];
  private sawField = false;
  private first = true;

  /** Feed bytes; returns the events completed by them, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: decode what is left. An unterminated event is dropped. */
  end(): SseEvent[] {
    const out = this.feed(this.decoder.decode());
    this.pending = "";
    this.reset();
    return out;
  }

  private feed(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.first = text.length === 0;
    }
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 && this.skipLf && i === start && this.pending === "") {
        // The LF of a CRLF whose CR ended the previous chunk.
        this.skipLf = false;
        start = i + 1;
        continue;
      }
      this.skipLf = false;
      if (c !== 10 && c !== 13) continue;
      const line = this.pending + text.slice(start, i);
      this.pending = "";
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.skipLf = true;
        }
      }
      start = i + 1;
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    this.pending += text.slice(start);
    return out;
  }

  private line(line: string): SseEvent | undefined {
    if (line === "") {
      if (!this.sawField) return undefined;
      const ev: SseEvent = { data: this.data.join("\n") };
      if (this.event !== undefined) ev.event = this.event;
      this.reset();
      return ev;
    }
    if (line.charCodeAt(0) === 58 /* ':' */) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "event") {
      this.event = value;
      this.sawField = true;
    } else if (field === "data") {
      this.data.push(value);
      this.sawField = true;
    }
    return undefined;
  }

  private reset(): void {
    this.event = undefined;
    this.data = [];
    this.sawField = false;
  }
}

/** Parse a whole SSE text at once (tests, synthesized streams). */
export function parseSse(text: string | Uint8Array): SseEvent[] {
  const p = new SseParser();
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  return [...p.push(bytes), ...p.end()];
}

/** One SSE record as text: `event:` line when named, one `data:` line per data line, blank line. */
export function formatSse(ev: SseEvent): string {
  const head = ev.event !== undefined ? `event: ${ev.event}\n` : "";
  return (
    head +
    ev.data
      .split("\n")
      .map((d) => `data: ${d}\n`)
      .join("") +
    "\n"
  );
}

/** A provider's folder of stream events into the reply body the non-streamed call returns. */
export interface EventFolder {
  event(ev: SseEvent): void;
  /** The final event came, with nothing wrong so far. */
  readonly complete: boolean;
  /** The first problem seen (finish() reports it), if any. */
  readonly problem: string | undefined;
  body(): unknown;
}

/**
 * The stream assembler of an SSE provider: bytes parsed into events and folded into the reply body, which `parse`
 * reads into the neutral output at the end, as the non-streamed reply would be.
 */
export function sseAssembler(folder: EventFolder, parse: (body: unknown) => ModelOutput): StreamAssembler {
  const parser = new SseParser();
  let folded: unknown;
  return {
    push(chunk) {
      for (const ev of parser.push(chunk)) folder.event(ev);
    },
    complete: () => folder.complete,
    failed: () => folder.problem !== undefined,
    finish() {
      // the final event is the last one a provider sends: nothing after it is waited for
      for (const ev of parser.end()) folder.event(ev);
      folded = folder.body();
      return parse(folded);
    },
    reply: () => folded,
  };
}
