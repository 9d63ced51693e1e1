/**
 * OpenAI Responses API streaming, both ways. Recording: the events (`response.created`,
 * `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`,
 * `response.function_call_arguments.delta`, ..., `response.completed`) are folded back
 * into the Response body a non-streamed call would have returned, and that body goes
 * through the adapter's own parse, so a streamed reply and a plain one give the same
 * ModelOutput. Replay: the adapter's built body is unfolded into the event sequence the
 * API sends (with `sequence_number`s), which `client.responses.stream()` and
 * `create({ stream: true })` parse. Pure.
 *
 * The final event's response is what the reply is, as for the SDK's own accumulator
 * (which replaces its snapshot with it); its `output` is taken from the item events when
 * the final event leaves it empty.
 */
import type { ModelOutput } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import { formatSse, type SseEvent, sseAssembler } from "../shared/sse.js";
import type { ParsedModelRequest, StreamAdapter, StreamAssembler } from "../types.js";
import { isObj, refuse, type Obj } from "../shared/wire.js";
import { buildResponsesResponse, parseResponsesResponse } from "./response.js";

/** Folds Responses API stream events into the equivalent non-streamed body. */
export class ResponsesEventFolder {
  private started = false;
  private readonly items: Obj[] = [];
  private final: Obj | undefined;
  problem: string | undefined;

  event(ev: SseEvent): void {
    if (this.problem !== undefined || this.final !== undefined) return;
    if (ev.data.startsWith("[DONE]")) return;
    let data: unknown;
    try {
      data = JSON.parse(ev.data);
    } catch {
      this.problem = `an event whose data is not JSON (${ev.data.slice(0, 80)})`;
      return;
    }
    if (!isObj(data)) {
      this.problem = `an event whose data is not an object (${ev.data.slice(0, 80)})`;
      return;
    }
    const type = typeof data.type === "string" ? data.type : ev.event;
    if (type === "error" || ev.event === "error" || isObj(data.error)) {
      const err = isObj(data.error) ? data.error : data;
      this.problem = `an error from the provider (${String(err.code ?? err.type ?? "error")}: ${String(err.message ?? ev.data)})`;
      return;
    }
    this.apply(type, data);
  }

  private apply(type: string | undefined, e: Obj): void {
    switch (type) {
      case "response.created":
      case "response.queued":
      case "response.in_progress":
        this.started = true;
        return;
      case "response.completed":
      case "response.incomplete":
        if (!isObj(e.response)) this.problem = `a ${type} event without a response`;
        else this.final = e.response;
        return;
      case "response.failed": {
        const r = isObj(e.response) ? e.response : {};
        const err = isObj(r.error) ? r.error : {};
        this.problem = `a failed response (${String(err.code ?? "error")}: ${String(err.message ?? "no message")})`;
        return;
      }
      case "response.output_item.added":
      case "response.output_item.done":
        if (!isObj(e.item)) this.problem = `a ${type} event without an item`;
        else this.items[Number(e.output_index ?? this.items.length)] = e.item;
        return;
      case "response.content_part.added":
      case "response.content_part.done": {
        const item = this.item(e, type);
        if (item && item.type === "message" && isObj(e.part)) {
          if (!Array.isArray(item.content)) item.content = [];
          (item.content as unknown[])[Number(e.content_index ?? 0)] = e.part;
        }
        return;
      }
      case "response.output_text.delta":
      case "response.output_text.done":
      case "response.refusal.delta":
      case "response.refusal.done":
      case "response.output_text.annotation.added": {
        const part = this.part(e, type);
        if (!part) return;
        if (type === "response.output_text.delta") part.text = String(part.text ?? "") + String(e.delta ?? "");
        else if (type === "response.output_text.done") part.text = String(e.text ?? "");
        else if (type === "response.refusal.delta") part.refusal = String(part.refusal ?? "") + String(e.delta ?? "");
        else if (type === "response.refusal.done") part.refusal = String(e.refusal ?? "");
        else {
          if (!Array.isArray(part.annotations)) part.annotations = [];
          (part.annotations as unknown[])[Number(e.annotation_index ?? 0)] = e.annotation;
        }
        return;
      }
      case "response.function_call_arguments.delta":
      case "response.function_call_arguments.done": {
        const item = this.item(e, type);
        if (!item || item.type !== "function_call") return;
        if (type.endsWith(".delta")) item.arguments = String(item.arguments ?? "") + String(e.delta ?? "");
        else item.arguments = String(e.arguments ?? "");
        return;
      }
      default:
        return; // reasoning summaries, keepalives, OpenAI-side tool progress: nothing a reply keeps
    }
  }

  private item(e: Obj, type: string): Obj | undefined {
    const item = this.items[Number(e.output_index)];
    if (!item) this.problem = `a ${type} event for output item ${String(e.output_index)}, which was never added`;
    return item;
  }

  private part(e: Obj, type: string): Obj | undefined {
    const item = this.item(e, type);
    if (!item || item.type !== "message") return undefined;
    const part = Array.isArray(item.content) ? item.content[Number(e.content_index)] : undefined;
    if (!isObj(part)) {
      this.problem = `a ${type} event for content part ${String(e.content_index)} of output item ${String(e.output_index)}, which was never added`;
      return undefined;
    }
    return part;
  }

  /** The final event (response.completed / response.incomplete) came, and nothing wrong before it. */
  get complete(): boolean {
    return this.problem === undefined && this.final !== undefined;
  }

  /** The assembled Response body; throws when the stream broke or was not understood. */
  body(): Obj {
    if (this.problem !== undefined) {
      refuse(
        `The OpenAI Responses stream could not be recorded: it contained ${this.problem}. ` +
          "Blackbox records only complete replies: retry the call, or record without stream: true.",
      );
    }
    if (this.final === undefined) {
      const what = this.started ? "before response.completed" : "before response.created";
      refuse(
        `The OpenAI Responses stream broke: it ended ${what}, so the reply is incomplete and cannot be recorded. ` +
          "Retry the call (the agent saw the same broken stream), or record again when the provider is stable.",
      );
    }
    const output = this.final.output;
    if (Array.isArray(output) && output.length > 0) return this.final;
    return { ...this.final, output: this.items.filter((i) => i !== undefined) };
  }
}

export function createAssembler(ids: ToolCallIds): StreamAssembler {
  return sseAssembler(new ResponsesEventFolder(), (body) => parseResponsesResponse(body as Obj, ids));
}

/** The SSE text of a Response body, as the API streams it: every event named and numbered from 0. */
export function responseToSse(body: Obj): string {
  const out: string[] = [];
  let seq = 0;
  const emit = (type: string, fields: Obj): void => {
    out.push(formatSse({ event: type, data: JSON.stringify({ type, sequence_number: seq++, ...fields }) }));
  };
  const started = { ...body, status: "in_progress", incomplete_details: null, output: [], usage: null };
  emit("response.created", { response: started });
  emit("response.in_progress", { response: started });
  const output = Array.isArray(body.output) ? (body.output as Obj[]) : [];
  output.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "message") {
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      ((item.content as Obj[]) ?? []).forEach((part, content_index) => {
        const at = { item_id, output_index, content_index };
        if (part.type === "refusal") {
          const refusal = String(part.refusal ?? "");
          emit("response.content_part.added", { ...at, part: { ...part, refusal: "" } });
          if (refusal !== "") emit("response.refusal.delta", { ...at, delta: refusal });
          emit("response.refusal.done", { ...at, refusal });
        } else {
          const text = String(part.text ?? "");
          emit("response.content_part.added", { ...at, part: { ...part, text: "" } });
          if (text !== "") emit("response.output_text.delta", { ...at, delta: text, logprobs: [] });
          emit("response.output_text.done", { ...at, text, logprobs: [] });
        }
        emit("response.content_part.done", { ...at, part });
      });
    } else if (item.type === "function_call") {
      const args = String(item.arguments ?? "");
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      if (args !== "") emit("response.function_call_arguments.delta", { item_id, output_index, delta: args });
      emit("response.function_call_arguments.done", { item_id, output_index, name: item.name, arguments: args });
    } else {
      emit("response.output_item.added", { output_index, item });
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit(body.status === "incomplete" ? "response.incomplete" : "response.completed", { response: body });
  return out.join("");
}

export function synthesize(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): string {
  return responseToSse(buildResponsesResponse(output, request, ids, seq) as Obj);
}

export const responsesStreamAdapter: StreamAdapter = { createAssembler, synthesize };
