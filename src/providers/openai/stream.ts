/**
 * OpenAI Chat Completions streaming, both ways. Recording: chat.completion.chunk
 * deltas are folded back into the chat.completion body a non-streamed call would
 * have returned, and that body goes through the adapter's own parseResponse, so a
 * streamed reply and a plain one give the same ModelOutput. Replay: the adapter's
 * buildResponse body is unfolded into chunks ending with `[DONE]`. Pure.
 */
import type { ModelOutput } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import { buildResponse, parseResponse } from "./response.js";
import { isObj, refuse } from "../shared/wire.js";
import { SseParser, formatSse, type SseEvent } from "../shared/sse.js";
import type { ParsedModelRequest, StreamAssembler } from "../types.js";

type Obj = Record<string, unknown>;

interface ChoiceAcc {
  index: number;
  role: string;
  content: string | null;
  refusal: string | null;
  toolCalls: { id?: string; type?: string; name?: string; arguments: string }[];
  /** The deprecated function_call's deltas. */
  functionCall?: { name?: string; arguments: string };
  finish: string | null;
  logprobs: unknown;
}

/** Folds chat.completion.chunk events into the equivalent non-streamed body. */
export class OpenAIChunkFolder {
  private base: Obj | undefined;
  private choices: ChoiceAcc[] = [];
  private usage: unknown;
  private done = false;
  problem: string | undefined;

  event(ev: SseEvent): void {
    if (this.problem !== undefined || this.done) return;
    if (ev.data.startsWith("[DONE]")) {
      this.done = true;
      return;
    }
    let data: Obj;
    try {
      data = JSON.parse(ev.data) as Obj;
    } catch {
      this.problem = `a chunk whose data is not JSON (${ev.data.slice(0, 80)})`;
      return;
    }
    if (ev.event === "error" || (data && data.error)) {
      const err = (data.error ?? data) as Obj;
      this.problem = `an error from the provider (${String(err.type ?? err.code ?? "error")}: ${String(err.message ?? ev.data)})`;
      return;
    }
    this.chunk(data);
  }

  private chunk(c: Obj): void {
    const { choices, usage, object: _object, ...rest } = c;
    this.base = { ...(this.base ?? {}), ...rest };
    if (usage != null) this.usage = usage;
    for (const ch of (choices as Obj[]) ?? []) {
      const index = Number(ch.index ?? 0);
      const acc = (this.choices[index] ??= {
        index,
        role: "assistant",
        content: null,
        refusal: null,
        toolCalls: [],
        finish: null,
        logprobs: null,
      });
      if (ch.finish_reason) acc.finish = String(ch.finish_reason);
      if (ch.logprobs != null) acc.logprobs = ch.logprobs;
      const d = (ch.delta ?? {}) as Obj;
      if (typeof d.role === "string") acc.role = d.role;
      if (typeof d.content === "string") acc.content = (acc.content ?? "") + d.content;
      if (typeof d.refusal === "string") acc.refusal = (acc.refusal ?? "") + d.refusal;
      if (d.function_call != null) {
        const fc = d.function_call as Obj;
        const f = (acc.functionCall ??= { arguments: "" });
        if (fc.name) f.name = String(fc.name);
        if (typeof fc.arguments === "string") f.arguments += fc.arguments;
      }
      for (const tc of (d.tool_calls as Obj[]) ?? []) {
        const t = (acc.toolCalls[Number(tc.index ?? 0)] ??= { arguments: "" });
        const fn = (tc.function ?? {}) as Obj;
        if (tc.id) t.id = String(tc.id);
        if (tc.type) t.type = String(tc.type);
        if (fn.name) t.name = String(fn.name);
        if (typeof fn.arguments === "string") t.arguments += fn.arguments;
      }
    }
  }

  /** [DONE], or a finish_reason on every choice (n > 1 is refused), and nothing wrong before it. */
  get complete(): boolean {
    if (this.problem !== undefined || !this.base) return false;
    const choices = this.choices.filter((c) => c !== undefined);
    return choices.length > 0 && choices.every((c) => c.finish !== null);
  }

  /** The assembled chat.completion body; throws when the stream broke or was not understood. */
  body(requireDone = true): Obj {
    if (this.problem !== undefined) {
      refuse(
        `The OpenAI stream could not be recorded: it contained ${this.problem}. ` +
          "Blackbox records only complete replies: retry the call, or record without stream: true.",
      );
    }
    const unfinished = this.choices.some((c) => c && c.finish === null);
    if (!this.base || this.choices.length === 0 || unfinished || (requireDone && !this.done)) {
      const what =
        !this.base || this.choices.length === 0
          ? "before any choice"
          : unfinished
            ? "before a finish_reason"
            : "before data: [DONE]";
      refuse(
        `The OpenAI stream broke: it ended ${what}, so the reply is incomplete and cannot be recorded. ` +
          "Retry the call (the agent saw the same broken stream), or record again when the provider is stable.",
      );
    }
    const choices = this.choices
      .filter((c) => c !== undefined)
      .map((c) => {
        const hasCalls = c.toolCalls.length > 0 || c.functionCall !== undefined;
        // A stream opens with content "" even when the reply is tool calls or a refusal; a plain body has null.
        const content = c.content === "" && (hasCalls || c.refusal) ? null : c.content;
        const message: Obj = { role: c.role, content, refusal: c.refusal || null };
        if (c.functionCall) message.function_call = { name: c.functionCall.name, arguments: c.functionCall.arguments };
        if (c.toolCalls.length > 0) {
          message.tool_calls = c.toolCalls.map((t) => ({
            id: t.id,
            type: t.type ?? "function",
            function: { name: t.name, arguments: t.arguments },
          }));
        }
        return { index: c.index, message, finish_reason: c.finish, logprobs: c.logprobs };
      });
    const body: Obj = { ...this.base, object: "chat.completion", choices };
    if (this.usage !== undefined) body.usage = this.usage;
    return body;
  }
}

export function createAssembler(ids: ToolCallIds): StreamAssembler {
  const parser = new SseParser();
  const folder = new OpenAIChunkFolder();
  let folded: unknown;
  return {
    push(chunk) {
      for (const ev of parser.push(chunk)) folder.event(ev);
    },
    complete: () => folder.complete,
    failed: () => folder.problem !== undefined,
    finish(stoppedAfterFinalEvent = false) {
      for (const ev of parser.end()) folder.event(ev);
      folded = folder.body(!stoppedAfterFinalEvent);
      return parseResponse(folded, ids);
    },
    reply: () => folded,
  };
}

/**
 * The SSE text of a chat.completion body, as the API streams it. `withUsage` (the request's
 * `stream_options.include_usage`): every chunk carries `usage: null` and a last chunk with
 * no choices carries the body's usage, as the API sends them.
 */
export function completionToSse(body: Obj, withUsage = false): string {
  const { choices, usage, object: _object, ...rest } = body;
  const base: Obj = { ...rest, object: "chat.completion.chunk" };
  const out: string[] = [];
  const emit = (index: number, delta: Obj, finish_reason: string | null = null): void => {
    const chunk: Obj = { ...base, choices: [{ index, delta, logprobs: null, finish_reason }] };
    if (withUsage) chunk.usage = null;
    out.push(formatSse({ data: JSON.stringify(chunk) }));
  };
  for (const choice of (choices as Obj[]) ?? []) {
    const index = Number(choice.index ?? 0);
    const m = (choice.message ?? {}) as Obj;
    const content = typeof m.content === "string" ? m.content : null;
    emit(index, { role: m.role ?? "assistant", content: content === null ? null : "", refusal: null });
    if (content) emit(index, { content });
    if (typeof m.refusal === "string" && m.refusal !== "") emit(index, { refusal: m.refusal });
    if (isObj(m.function_call)) {
      const args = String(m.function_call.arguments ?? "");
      emit(index, { function_call: { name: m.function_call.name, arguments: "" } });
      if (args !== "") emit(index, { function_call: { arguments: args } });
    }
    ((m.tool_calls as Obj[]) ?? []).forEach((tc, i) => {
      const fn = (tc.function ?? {}) as Obj;
      emit(index, {
        tool_calls: [{ index: i, id: tc.id, type: tc.type ?? "function", function: { name: fn.name, arguments: "" } }],
      });
      const args = String(fn.arguments ?? "");
      if (args !== "") emit(index, { tool_calls: [{ index: i, function: { arguments: args } }] });
    });
    emit(index, {}, String(choice.finish_reason ?? "stop"));
  }
  if (withUsage) out.push(formatSse({ data: JSON.stringify({ ...base, choices: [], usage: usage ?? null }) }));
  out.push(formatSse({ data: "[DONE]" }));
  return out.join("");
}

export function synthesize(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): string {
  return completionToSse(buildResponse(output, request, ids, seq) as Obj, request.streamUsage === true);
}
