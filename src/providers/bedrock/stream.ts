/**
 * ConverseStream, both ways. Recording: the AWS event-stream frames are cut out of the
 * bytes however they arrive (eventstream.ts) and their events (messageStart,
 * contentBlockStart, contentBlockDelta, contentBlockStop, messageStop, metadata) folded into
 * the Converse reply a non-streamed call would have returned, which parseConverseResponse
 * reads, so a streamed reply and a plain one give the same ModelOutput. An exception frame
 * (`:message-type` exception) is a provider error: nothing is recorded. Replay: the reply's
 * blocks as the frames the SDK decodes. Pure.
 */
import type { JsonValue, ModelOutput } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import { isObj, refuse, type Obj } from "../shared/wire.js";
import type { ParsedModelRequest, StreamAdapter, StreamAssembler } from "../types.js";
import { EventStreamDecoder, encodeEvent, payloadText, type EventMessage } from "./eventstream.js";
import { parseConverseResponse, replyBlocks } from "./response.js";

/** Folds ConverseStream events into the equivalent Converse reply. */
export class ConverseEventFolder {
  private blocks: Obj[] = [];
  private json = new Map<number, string>();
  private stopReason: unknown;
  private stopped = false;
  private metadata = false;
  private extra: unknown;
  problem: string | undefined;

  message(m: EventMessage): void {
    if (this.problem !== undefined) return;
    const type = m.headers[":message-type"];
    if (type === "exception" || type === "error") {
      const name = m.headers[":exception-type"] ?? m.headers[":error-code"] ?? "error";
      this.problem = `an exception from the provider (${name}: ${payloadText(m.payload).slice(0, 200)})`;
      return;
    }
    let data: Obj;
    try {
      data = JSON.parse(payloadText(m.payload)) as Obj;
    } catch {
      this.problem = `an event "${m.headers[":event-type"]}" whose payload is not JSON`;
      return;
    }
    const index = typeof data.contentBlockIndex === "number" ? data.contentBlockIndex : -1;
    switch (m.headers[":event-type"]) {
      case "messageStart":
        return;
      case "contentBlockStart": {
        const start = isObj(data.start) ? data.start : {};
        if (isObj(start.toolUse)) {
          this.blocks[index] = { toolUse: { toolUseId: start.toolUse.toolUseId, name: start.toolUse.name } };
          this.json.set(index, "");
        } else this.problem = `a content block that starts as ${JSON.stringify(Object.keys(start)[0] ?? "empty")}`;
        return;
      }
      case "contentBlockDelta": {
        const delta = isObj(data.delta) ? data.delta : {};
        if (typeof delta.text === "string") {
          const block = (this.blocks[index] ??= { text: "" });
          block.text = String(block.text ?? "") + delta.text;
        } else if (isObj(delta.toolUse) && typeof delta.toolUse.input === "string" && this.json.has(index)) {
          this.json.set(index, this.json.get(index)! + delta.toolUse.input);
        } else {
          this.problem = `a ${JSON.stringify(Object.keys(delta)[0] ?? "empty")} delta (reasoning and citations are not supported yet)`;
        }
        return;
      }
      case "contentBlockStop": {
        const buf = this.json.get(index);
        const block = this.blocks[index];
        if (buf !== undefined && block && isObj(block.toolUse)) {
          try {
            block.toolUse.input = buf === "" ? {} : (JSON.parse(buf) as JsonValue);
          } catch {
            this.problem = `the input of tool call ${index}, which is not JSON (${buf.slice(0, 80)})`;
          }
          this.json.delete(index);
        }
        return;
      }
      case "messageStop":
        this.stopped = true;
        this.stopReason = data.stopReason;
        if (data.additionalModelResponseFields !== undefined && data.additionalModelResponseFields !== null)
          this.extra = data.additionalModelResponseFields;
        return;
      case "metadata":
        this.metadata = true;
        return;
      default:
        this.problem = `an event of type ${JSON.stringify(m.headers[":event-type"])}`;
    }
  }

  /** messageStop came: the reply is whole (the metadata event after it carries only usage). */
  get complete(): boolean {
    return this.stopped && this.problem === undefined;
  }

  get hasMetadata(): boolean {
    return this.metadata;
  }

  reply(): Obj {
    return {
      output: { message: { role: "assistant", content: this.blocks.filter((b) => b !== undefined) } },
      stopReason: this.stopReason,
      ...(this.extra === undefined ? {} : { additionalModelResponseFields: this.extra }),
    };
  }
}

const WHAT = "Bedrock ConverseStream reply";

export function createAssembler(ids: ToolCallIds): StreamAssembler {
  const decoder = new EventStreamDecoder();
  const folder = new ConverseEventFolder();
  let body: Obj | undefined;
  return {
    push(chunk) {
      if (folder.problem !== undefined) return;
      try {
        for (const m of decoder.push(chunk)) folder.message(m);
      } catch (err) {
        folder.problem = `bytes that are not AWS event-stream frames (${(err as Error).message})`;
      }
    },
    complete: () => folder.complete,
    failed: () => folder.problem !== undefined,
    finish() {
      if (folder.problem !== undefined)
        refuse(`${WHAT} holds ${folder.problem}, so this model call was not recorded. Record the run again.`);
      if (!folder.complete)
        refuse(
          `${WHAT} ended before its messageStop event (${decoder.pending} bytes of a frame left), so this model call was not recorded. Record the run again.`,
        );
      body = folder.reply();
      return parseConverseResponse(body, ids);
    },
    reply: () => body,
  };
}

/** The frames replaying `output`: messageStart, each block, messageStop, metadata. */
export function synthesize(output: ModelOutput, _request: ParsedModelRequest, ids: ToolCallIds): Uint8Array {
  const { content, stopReason } = replyBlocks(output, ids);
  const frames: Uint8Array[] = [encodeEvent("messageStart", { role: "assistant" })];
  content.forEach((b, i) => {
    const block = b as Obj;
    if (isObj(block.toolUse)) {
      const { toolUseId, name, input } = block.toolUse;
      frames.push(encodeEvent("contentBlockStart", { contentBlockIndex: i, start: { toolUse: { toolUseId, name } } }));
      frames.push(
        encodeEvent("contentBlockDelta", {
          contentBlockIndex: i,
          delta: { toolUse: { input: JSON.stringify(input ?? {}) } },
        }),
      );
    } else {
      frames.push(encodeEvent("contentBlockDelta", { contentBlockIndex: i, delta: { text: block.text } }));
    }
    frames.push(encodeEvent("contentBlockStop", { contentBlockIndex: i }));
  });
  frames.push(encodeEvent("messageStop", { stopReason }));
  frames.push(
    encodeEvent("metadata", {
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      metrics: { latencyMs: 0 },
    }),
  );
  let length = 0;
  for (const f of frames) length += f.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

export const converseStreamAdapter: StreamAdapter = {
  createAssembler,
  synthesize,
  contentType: "application/vnd.amazon.eventstream",
};
