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
 * The body text the adapter parses: `{"bbx:url":{...},` then the body's members, `contents`
 * last (both SDKs send it before other members), so that a tool loop's next request is the
 * last one's text plus contents at the end, which the session parses incrementally. A body
 * that is not a JSON object is left as it is (the parse refuses it).
 */
export function withUrl(text: string | undefined, url: URL): string | undefined {
  const part = modelCallOf(url);
  if (!part || text === undefined) return text;
  const head = `{${JSON.stringify(URL_MEMBER)}:${JSON.stringify(part)}`;
  const moved = contentsLast(text);
  if (moved !== undefined) return head + "," + moved;
  let i = 0;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  if (text[i] !== "{") return text;
  let j = i + 1;
  while (j < text.length && /\s/.test(text[j]!)) j++;
  return text[j] === "}" ? head + text.slice(j) : head + "," + text.slice(j);
}

/**
 * A body as JSON.stringify writes it, split around its `contents` array: `head` ends with
 * `"contents":[`, `tail` starts with its closing `]` (the members before and after it). Two
 * bodies with the same frame differ in their contents elements only (or, for a body made
 * to fool it, in root members around contents, which moving them does not change).
 */
interface Frame {
  head: string;
  tail: string;
}

/** The frame of the last body split (a tool loop's requests share it): a cache, checked on every use. */
let lastFrame: Frame | undefined;

/**
 * The members of `text` after its `{`, `contents` moved last (`...,"contents":[...]}`); undefined when the
 * text is not a body as JSON.stringify writes one. A text with the last frame's head and tail is that frame
 * around other elements: the tail closes contents at the top level, so moving the members around it changes no
 * member (a body is checked whole, once, when its frame is new).
 */
function contentsLast(text: string): string | undefined {
  let frame = lastFrame;
  if (
    !frame ||
    !text.startsWith(frame.head) ||
    !text.endsWith(frame.tail) ||
    text.length < frame.head.length + frame.tail.length
  ) {
    frame = frameOf(text);
    if (!frame) return undefined;
    // contents is last already: a tail of `]}` would take any body ending in an array for its frame
    if (frame.tail === "]}") return text.slice(1);
    lastFrame = frame;
  }
  const { head, tail } = frame;
  const before = head.slice(1, head.length - CONTENTS.length); // `"a":1,` or ""
  const after = tail.length > 2 ? tail.slice(2, -1) + "," : ""; // `"b":2,` or ""
  return before + after + CONTENTS + text.slice(head.length, text.length - tail.length) + "]}";
}

const CONTENTS = `"contents":[`;

function frameOf(text: string): Frame | undefined {
  if (!text.includes(CONTENTS)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(body) || !Array.isArray(body.contents)) return undefined;
  const keys = Object.keys(body);
  const at = keys.indexOf("contents");
  const pick = (ks: string[]): Obj => Object.fromEntries(ks.map((k) => [k, body[k]]));
  const head = JSON.stringify({ ...pick(keys.slice(0, at)), contents: [] }).slice(0, -2);
  const tail = JSON.stringify({ contents: [], ...pick(keys.slice(at + 1)) }).slice(CONTENTS.length + 1);
  const elements = JSON.stringify(body.contents).slice(1, -1);
  return text === head + elements + tail ? { head, tail } : undefined;
}

/** The URL's part of a parsed body, or undefined (a body parsed without its URL: tests). */
export function urlPartOf(body: Obj): UrlPart | undefined {
  const u = body[URL_MEMBER];
  if (!isObj(u) || typeof u.model !== "string") return undefined;
  return { model: u.model, stream: u.stream === true, sse: u.sse === true };
}
