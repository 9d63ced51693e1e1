/**
 * Gemini generateContent request body -> neutral ModelInput (pure).
 *
 * - `contents`: a `user` content -> a user turn, a `model` content -> an assistant turn; a
 *   turn of text parts only is its text (joined with no separator), else its parts in order
 *   (adjacent text parts joined: a streamed reply sent back chunk by chunk is one text):
 *   text, `functionCall` -> tool_use, `functionResponse` -> tool_result (its `response`
 *   kept exactly). Thought parts (`thought: true`) are left out, as thinking blocks are.
 * - `systemInstruction` -> systemPrompt, its text parts joined with "\n\n" (the AI SDK sends
 *   one part per system message).
 * - `tools[].functionDeclarations` -> tools (`parameters` or `parametersJsonSchema`);
 *   `toolConfig.functionCallingConfig` -> toolChoice; `generationConfig` -> params in neutral
 *   names (maxOutputTokens -> maxTokens, topP, topK, stopSequences ...); safetySettings ->
 *   params.safetySettings. The model comes from the URL (url.ts).
 * - Refused before anything is sent, as a replay could not give them back: Google's own
 *   tools (googleSearch, codeExecution, urlContext ...), cachedContent, file and inline data
 *   parts, code execution parts, several candidates, log probabilities, audio or image output.
 * - Function calls' call-N ids: calls.ts.
 */
import type { ToolCallIds } from "../shared/ids.js";
import type { ParsedModelRequest, RequestState } from "../types.js";
import type { JsonValue, Message, MessagePart, ModelParams, ToolDefinition } from "../../trace/types.js";
import {
  appendWire,
  arrayField,
  bodyObject,
  copyParam,
  isObj,
  refuse,
  withMessages,
  type Obj,
} from "../shared/wire.js";
import { answeredCall, slotKey, type OpenCall } from "./calls.js";
import { urlPartOf } from "./url.js";

export const WHAT = "Gemini generateContent";

/** Google's tools that run on Google's side, by their member of a Tool, and what to do instead. */
const SERVER_TOOLS: Record<string, string> = {
  googleSearch: "Google Search grounding",
  googleSearchRetrieval: "Google Search retrieval",
  codeExecution: "code execution",
  urlContext: "URL context",
  fileSearch: "file search",
  googleMaps: "Google Maps grounding",
  retrieval: "retrieval",
  enterpriseWebSearch: "enterprise web search",
  computerUse: "computer use",
};

export function parseGeminiRequest(raw: unknown, ids: ToolCallIds): ParsedModelRequest {
  return geminiRequestState(raw, ids).parsed;
}

/** parseGeminiRequest, keeping what geminiMoreContents continues from. */
export function geminiRequestState(raw: unknown, ids: ToolCallIds): RequestState {
  const body = bodyObject(raw, WHAT);
  const url = urlPartOf(body);
  if (url?.stream && !url.sse) {
    refuse(
      `${WHAT}: streamGenerateContent without alt=sse streams a JSON array, which Blackbox does not record; ask for Server-Sent Events (?alt=sse), as @google/genai and @ai-sdk/google do.`,
    );
  }
  if (body.cachedContent !== undefined && body.cachedContent !== null) {
    refuse(
      `${WHAT}: "cachedContent" (${JSON.stringify(body.cachedContent)}) puts content cached on Google's side in front of the conversation, which Blackbox cannot see or give back; not supported. Send the content itself in contents / systemInstruction while recording.`,
    );
  }
  const wire = arrayField(body, "contents", WHAT);
  const names = new Map<string, string>();
  const messages: Message[] = [];
  const signed = addContents(wire, 0, [], ids, names, messages);
  ids.functionCallSlot = wire.length;
  const tools = parseTools(body);
  const input: ParsedModelRequest["input"] = { messages, tools };
  const system = systemOf(body.systemInstruction);
  if (system !== undefined) input.systemPrompt = system;
  if (url) input.model = url.model;
  const params = parseParams(body);
  if (Object.keys(params).length > 0) input.params = params;
  // Gemini 3 signs its function calls (thoughtSignature) and refuses a history whose calls lack the signature:
  // a cassette keeps no signature, so a live fork cannot send it back (the fork refuses, as for thinking)
  const thinking = signed || (url !== undefined && /^gemini-3/.test(url.model) && hasCall(wire));
  return { parsed: { input, stream: url?.stream === true, thinking }, wire, names };
}

/**
 * The request of `state` with the contents `more` added at the end (every other member unchanged), converting
 * only `more`: each content is a turn of its own, so nothing merges into the last one. Takes over
 * `state.wire`; a refusal leaves `state` unusable.
 */
export function geminiMoreContents(state: RequestState, more: unknown[], ids: ToolCallIds): RequestState {
  const from = state.wire.length;
  const wire = appendWire(state, more);
  const messages = state.parsed.input.messages.slice();
  const signed = addContents(wire, from, openCalls(wire, from - 1), ids, state.names, messages);
  ids.functionCallSlot = wire.length;
  const next = withMessages(state, wire, messages);
  const model = next.parsed.input.model;
  if (signed || (model !== undefined && /^gemini-3/.test(model) && hasCall(more))) next.parsed.thinking = true;
  return next;
}

/** The function calls of the content at `i`, when it is the model's (what a next user content may answer). */
function openCalls(wire: unknown[], i: number): OpenCall[] {
  const c = wire[i];
  if (!isObj(c) || c.role !== "model" || !Array.isArray(c.parts)) return [];
  const calls: OpenCall[] = [];
  for (const p of c.parts) {
    if (!isObj(p) || !isObj(p.functionCall)) continue;
    const fc = p.functionCall;
    const id = typeof fc.id === "string" ? fc.id : undefined;
    calls.push({ key: slotKey(i, calls.length), id, name: String(fc.name), answered: false });
  }
  return calls;
}

function hasCall(wire: unknown[]): boolean {
  return wire.some((c) => isObj(c) && Array.isArray(c.parts) && c.parts.some((p) => isObj(p) && isObj(p.functionCall)));
}

/** Converts contents[from..] onto `messages` (`open`: the calls of the content before); whether a part was signed. */
function addContents(
  wire: unknown[],
  from: number,
  open: OpenCall[],
  ids: ToolCallIds,
  names: Map<string, string>,
  messages: Message[],
): boolean {
  let signed = false;
  for (let i = from; i < wire.length; i++) {
    const c = wire[i];
    if (!isObj(c)) refuse(`${WHAT}: contents[${i}] is not an object.`);
    const role = c.role ?? "user";
    if (role !== "user" && role !== "model" && role !== "function") {
      refuse(`${WHAT}: contents[${i}] has role ${JSON.stringify(c.role)}; Blackbox records user and model contents.`);
    }
    const wireParts = arrayField(c, "parts", `${WHAT} contents[${i}]`);
    const parts: MessagePart[] = [];
    const calls: OpenCall[] = [];
    wireParts.forEach((p, k) => {
      const where = `contents[${i}].parts[${k}]`;
      if (!isObj(p)) refuse(`${WHAT}: ${where} is not an object.`);
      refuseOpaque(p, where);
      if (typeof p.thoughtSignature === "string") signed = true;
      if (p.thought === true) return; // a thought summary: left out, as thinking blocks are
      if (typeof p.text === "string") {
        // a streamed reply sent back as its chunks' parts: one text, as the reply was (and as redaction reads it)
        const last = parts[parts.length - 1];
        if (last?.type === "text") last.text += p.text;
        else parts.push({ type: "text", text: p.text });
      } else if (isObj(p.functionCall)) {
        if (role !== "model")
          refuse(`${WHAT}: ${where} is a functionCall in a user content; only the model calls functions.`);
        const fc = p.functionCall;
        if (typeof fc.name !== "string") refuse(`${WHAT}: ${where}.functionCall needs a string name.`);
        const key = slotKey(i, calls.length);
        calls.push({ key, id: typeof fc.id === "string" ? fc.id : undefined, name: fc.name, answered: false });
        names.set(key, fc.name);
        parts.push({
          type: "tool_use",
          toolCallId: ids.callIdFor(key),
          toolName: fc.name,
          toolInput: (fc.args ?? {}) as JsonValue,
        });
      } else if (isObj(p.functionResponse)) {
        const fr = p.functionResponse;
        if (typeof fr.name !== "string") refuse(`${WHAT}: ${where}.functionResponse needs a string name.`);
        const call = answeredCall(open, fr.id, fr.name);
        if (!call) {
          refuse(
            `${WHAT}: ${where} is a functionResponse for ${JSON.stringify(fr.name)}${typeof fr.id === "string" ? ` (id ${JSON.stringify(fr.id)})` : ""}, which the model content before it did not call; send the model's functionCall content first, then one functionResponse per call.`,
          );
        }
        call.answered = true;
        parts.push({
          type: "tool_result",
          toolCallId: ids.callIdFor(call.key),
          toolName: fr.name,
          result: (fr.response ?? {}) as JsonValue,
        });
      } else if (Object.keys(p).every((key) => key === "thoughtSignature" || key === "partMetadata")) {
        return; // a signature on its own (a streamed reply's last part): nothing said
      } else {
        refuse(
          `${WHAT}: ${where} is a part with ${JSON.stringify(Object.keys(p))}; Blackbox records text, functionCall and functionResponse parts.`,
        );
      }
    });
    open = calls;
    messages.push({ role: role === "model" ? "assistant" : "user", content: contentOf(parts) });
  }
  return signed;
}

/** The parts a replay could not give back, refused by name. */
function refuseOpaque(p: Obj, where: string): void {
  if (p.fileData !== undefined) {
    const uri = isObj(p.fileData) ? p.fileData.fileUri : undefined;
    refuse(
      `${WHAT}: ${where} is a fileData part (${JSON.stringify(uri ?? "a file")}), a file stored on Google's side that Blackbox cannot see or give back; file parts are not supported. Send the text it holds instead.`,
    );
  }
  if (p.inlineData !== undefined) {
    const mime = isObj(p.inlineData) ? p.inlineData.mimeType : undefined;
    refuse(
      `${WHAT}: ${where} is an inlineData part (${String(mime ?? "binary data")}); image, audio, video and document parts are not supported yet. Send text parts only.`,
    );
  }
  if (p.executableCode !== undefined || p.codeExecutionResult !== undefined) {
    refuse(
      `${WHAT}: ${where} is code the model ran on Google's side (executableCode / codeExecutionResult), which a replay could not give back; code execution is not supported. Run code in your own function tool instead.`,
    );
  }
}

function contentOf(parts: MessagePart[]): string | MessagePart[] {
  let text = "";
  for (const p of parts) {
    if (p.type !== "text") return parts;
    text += p.text;
  }
  return text;
}

function systemOf(si: unknown): string | undefined {
  if (si === undefined || si === null) return undefined;
  if (typeof si === "string") return si;
  if (!isObj(si)) refuse(`${WHAT}: systemInstruction must be a content with text parts.`);
  const texts = arrayField(si, "parts", `${WHAT} systemInstruction`).map((p, k) => {
    if (!isObj(p) || typeof p.text !== "string") {
      refuse(`${WHAT}: systemInstruction.parts[${k}] is not a text part; the system instruction is recorded as text.`);
    }
    return p.text;
  });
  return texts.join("\n\n");
}

function parseTools(body: Obj): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  arrayField(body, "tools", WHAT).forEach((t, i) => {
    if (!isObj(t)) refuse(`${WHAT}: tools[${i}] is not an object.`);
    for (const key of Object.keys(t)) {
      if (key === "functionDeclarations") continue;
      const what = SERVER_TOOLS[key];
      refuse(
        what
          ? `${WHAT}: tools[${i}] is Google's ${what} tool ("${key}"), which runs on Google's side, so a replay could not give back what it found or ran; not supported. Declare a function tool that does it in your own process instead.`
          : `${WHAT}: tools[${i}] has "${key}"; Blackbox records function declarations only (tools: [{ functionDeclarations: [...] }]).`,
      );
    }
    arrayField(t, "functionDeclarations", `${WHAT} tools[${i}]`).forEach((f, k) => {
      if (!isObj(f) || typeof f.name !== "string")
        refuse(`${WHAT}: tools[${i}].functionDeclarations[${k}] needs a string name.`);
      const schema = f.parametersJsonSchema ?? f.parameters ?? {};
      const def: ToolDefinition = { name: f.name, inputSchema: schema as JsonValue };
      if (typeof f.description === "string") def.description = f.description;
      out.push(def);
    });
  });
  return out;
}

/** functionCallingConfig -> the neutral tool choice: "auto", "any", "none", "validated", or { name }. */
function toolChoiceOf(body: Obj): JsonValue | undefined {
  const tc = body.toolConfig;
  if (!isObj(tc) || !isObj(tc.functionCallingConfig)) return undefined;
  const fcc = tc.functionCallingConfig;
  const mode = typeof fcc.mode === "string" ? fcc.mode.toLowerCase() : "auto";
  const allowed = Array.isArray(fcc.allowedFunctionNames) ? (fcc.allowedFunctionNames as JsonValue[]) : undefined;
  if (mode === "any" && allowed?.length === 1) return { name: allowed[0]! };
  if (allowed && allowed.length > 0) return { mode, names: allowed };
  return mode;
}

const GENERATION_CONFIG: ReadonlyArray<[string, string]> = [
  ["maxOutputTokens", "maxTokens"],
  ["temperature", "temperature"],
  ["topP", "topP"],
  ["topK", "topK"],
  ["stopSequences", "stopSequences"],
  ["seed", "seed"],
  ["presencePenalty", "presencePenalty"],
  ["frequencyPenalty", "frequencyPenalty"],
  ["responseMimeType", "responseMimeType"],
  ["responseSchema", "responseSchema"],
  ["responseJsonSchema", "responseSchema"],
  ["responseModalities", "modalities"],
  ["thinkingConfig", "thinking"],
  ["mediaResolution", "mediaResolution"],
];

function parseParams(body: Obj): ModelParams {
  const p: ModelParams = {};
  const gc = body.generationConfig;
  if (gc !== undefined && gc !== null) {
    if (!isObj(gc)) refuse(`${WHAT}: generationConfig must be an object.`);
    if (typeof gc.candidateCount === "number" && gc.candidateCount > 1) {
      refuse(
        `${WHAT}: generationConfig.candidateCount = ${gc.candidateCount} asks for several candidates; not supported yet. Make one request per candidate (candidateCount: 1).`,
      );
    }
    if (gc.responseLogprobs === true || typeof gc.logprobs === "number") {
      refuse(
        `${WHAT}: generationConfig asks for log probabilities (responseLogprobs / logprobs), which a replay could not give back; remove them.`,
      );
    }
    if (Array.isArray(gc.responseModalities) && gc.responseModalities.some((m) => String(m).toUpperCase() !== "TEXT")) {
      refuse(
        `${WHAT}: generationConfig.responseModalities ${JSON.stringify(gc.responseModalities)} asks for audio or image output; not supported yet. Ask for TEXT only.`,
      );
    }
    if (gc.speechConfig !== undefined && gc.speechConfig !== null)
      refuse(`${WHAT}: generationConfig.speechConfig asks for spoken output; not supported yet.`);
    for (const [wire, neutral] of GENERATION_CONFIG) copyParam(p, gc, wire, neutral);
  }
  const choice = toolChoiceOf(body);
  if (choice !== undefined) p.toolChoice = choice;
  copyParam(p, body, "safetySettings", "safetySettings");
  return p;
}
