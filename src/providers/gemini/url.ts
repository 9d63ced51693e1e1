/**
 * What a Gemini request says in its URL rather than its body: the model and whether the
 * reply is streamed (`POST …/models/{model}:generateContent`, `…:streamGenerateContent?alt=sse`).
 * The session parses the body text (and, in replay, compares a tool loop's requests by
 * their text), so the URL's part goes in front of it as one member of Blackbox's own
 * (`"bbx:url"`): a request to another model is another text. Pure.
 */
import { cleanPath, isObj, type Obj } from "../shared/wire.js";

/** The member of the parsed body that holds what the URL said. */
export const URL_MEMBER = "bbx:url";

/** `…/models/<model>:<method>` (the Gemini API's, Vertex AI's publishers/google, a tuned model's). */
const MODEL_CALL = /\/((?:models|tunedModels)\/[^/:]+):(generateContent|streamGenerateContent)$/;

export interface UrlPart {
  /** The model as the path names it, without `models/` (a tuned model keeps `tunedModels/`). */
  model: string;
  stream: boolean;
  /** `alt=sse`: the stream is Server-Sent Events (else a JSON array). */
  sse: boolean;
}

/** The model call `url` is, or undefined when it is not one. */
export function modelCallOf(url: URL): UrlPart | undefined {
  const m = MODEL_CALL.exec(cleanPath(url));
  if (!m) return undefined;
  const model = decodeURIComponent(m[1]!).replace(/^models\//, "");
  return { model, stream: m[2] === "streamGenerateContent", sse: url.searchParams.get("alt") === "sse" };
}

/** The base URL a model call went under (what comes before `/v1beta/models/...`, or `/models/...`). */
export function basePathOf(path: string): string {
  const at = path.search(/(\/v1[a-z0-9]*)?\/(models|tunedModels)\/[^/]+$/);
  return at < 0 ? path : path.slice(0, at);
}

/**
 * The body text the adapter parses: `{"bbx:url":{...},` then the body's members. A body
 * that is not a JSON object is left as it is (the parse refuses it).
 */
export function withUrl(text: string | undefined, url: URL): string | undefined {
  const part = modelCallOf(url);
  if (!part || text === undefined) return text;
  let i = 0;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  if (text[i] !== "{") return text;
  let j = i + 1;
  while (j < text.length && /\s/.test(text[j]!)) j++;
  const head = `{${JSON.stringify(URL_MEMBER)}:${JSON.stringify(part)}`;
  return text[j] === "}" ? head + text.slice(j) : head + "," + text.slice(j);
}

/** The URL's part of a parsed body, or undefined (a body parsed without its URL: tests). */
export function urlPartOf(body: Obj): UrlPart | undefined {
  const u = body[URL_MEMBER];
  if (!isObj(u) || typeof u.model !== "string") return undefined;
  return { model: u.model, stream: u.stream === true, sse: u.sse === true };
}
