/**
 * Provider neutrality (trace-format.md, "What verify checks for provider
 * neutrality"). Two levels:
 * - structure (keys, ids, types, metadata): no provider ids, no provider
 *   response keys, no API keys or key variable names;
 * - user data (tool inputs/results/errors, input schemas, message text,
 *   system prompt, final text, request params): only realistic credentials.
 */
import { appendPath } from "./jsonPath.js";
import { quoted } from "./printable.js";
import type { SharedValues } from "./share.js";

export interface NeutralityProblem {
  path: string;
  message: string;
}

/** Keys whose values are the user's data: only credentials are flagged inside them. */
const DATA_KEYS = new Set([
  "toolInput",
  "result",
  "error",
  "inputSchema",
  "text",
  "systemPrompt",
  "description",
  "params",
  "message",
]);

/** Keys of provider wire responses; none belongs in a neutral cassette. */
export const PROVIDER_RESPONSE_KEYS = new Set([
  "usage",
  "stop_reason",
  "stop_sequence",
  "finish_reason",
  "system_fingerprint",
  "logprobs",
  "top_logprobs",
  "choices",
  "tool_use_id",
  "input_tokens",
  "output_tokens",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
  "service_tier",
]);

const KEY_NAMES =
  /ANTHROPIC_API_KEY|OPENAI_API_KEY|GEMINI_API_KEY|GOOGLE_API_KEY|GOOGLE_GENERATIVE_AI_API_KEY|^x-api-key$|^x-goog-api-key$|^authorization$|^api[-_]?key$/i;
const KEY_NAME_IN_TEXT = /ANTHROPIC_API_KEY|OPENAI_API_KEY|GEMINI_API_KEY|x-api-key|x-goog-api-key/i;

/** Provider-native ids: toolu_01..., msg_..., call_..., chatcmpl-..., resp_... (Blackbox's own ids are call-N). */
const PROVIDER_ID = /(?<![A-Za-z0-9])(?:srvtoolu_|toolu_|msg_|call_|resp_|chatcmpl-)([A-Za-z0-9]+)(?![A-Za-z0-9_-])/g;

/** Realistic credentials: Anthropic, OpenAI and Google keys, bearer tokens. */
const CREDENTIALS = [
  /sk-ant-[A-Za-z0-9_-]{20,}/,
  /sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/,
  /(?<![A-Za-z0-9])sk-[A-Za-z0-9]{32,}/,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/i,
  /AIza[0-9A-Za-z_-]{35}/, // a Google API key (Gemini)
];

function redact(text: string): string {
  return text.length <= 12 ? `${text.slice(0, 4)}...` : `${text.slice(0, 10)}...`;
}

export function findCredential(text: string): string | undefined {
  for (const re of CREDENTIALS) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}

export function findProviderId(text: string): string | undefined {
  for (const m of text.matchAll(PROVIDER_ID)) {
    const tail = m[1]!;
    if (/[0-9]/.test(tail) || tail.length >= 16) return m[0];
  }
  return undefined;
}

const REDO = "Re-record the run with this Blackbox (it stores only neutral fields).";
const LEAK = "Remove the secret (re-record the run without it) and rotate the key.";

type Segments = (string | number)[];

/** The JSON path of the current node, built only when a problem is reported. */
function pathOf(root: string, segs: Segments): string {
  let path = root;
  for (const seg of segs) path = appendPath(path, seg);
  return path;
}

/** Cheap pre-checks: most strings hold none of the markers the regexes look for. */
const MAY_HOLD_CREDENTIAL = /sk-|bearer/i;
const MAY_HOLD_ID_OR_KEY_NAME = /_|chatcmpl-/;

function checkString(
  text: string,
  root: string,
  segs: Segments,
  structure: boolean,
  out: NeutralityProblem[],
  what: string,
): void {
  const cred = MAY_HOLD_CREDENTIAL.test(text) ? findCredential(text) : undefined;
  if (cred) {
    out.push({
      path: pathOf(root, segs),
      message: `${what} contains what looks like an API key or bearer token (${redact(cred)}). ${LEAK}`,
    });
    return;
  }
  if (!structure) return;
  if (!MAY_HOLD_ID_OR_KEY_NAME.test(text) && !KEY_NAME_IN_TEXT.test(text)) return;
  const id = findProviderId(text);
  if (id)
    out.push({
      path: pathOf(root, segs),
      message: `${what} contains a provider-native id (${quoted(id)}); cassettes hold only Blackbox's call-N ids. ${REDO}`,
    });
  else if (KEY_NAME_IN_TEXT.test(text))
    out.push({
      path: pathOf(root, segs),
      message: `${what} names an API key variable or header; credentials never belong in a cassette. ${LEAK}`,
    });
}

/**
 * The shared objects (src/trace/share.ts) whose subtree was walked without a problem, one
 * set per level (the checks differ by level, never by path: a clean subtree is clean
 * wherever it stands; a subtree with a problem is walked at each place, for each path).
 */
interface Clean {
  shared: SharedValues;
  structure: Set<object>;
  data: Set<object>;
}

function walk(
  value: unknown,
  root: string,
  segs: Segments,
  structure: boolean,
  out: NeutralityProblem[],
  clean?: Clean,
): void {
  if (typeof value === "string") {
    checkString(value, root, segs, structure, out, "value");
    return;
  }
  if (value === null || typeof value !== "object") return;
  if (clean && clean.shared.has(value)) {
    const known = structure ? clean.structure : clean.data;
    if (known.has(value)) return;
    const before = out.length;
    walkObject(value, root, segs, structure, out, clean);
    if (out.length === before) known.add(value);
    return;
  }
  walkObject(value, root, segs, structure, out, clean);
}

function walkObject(
  value: object,
  root: string,
  segs: Segments,
  structure: boolean,
  out: NeutralityProblem[],
  clean: Clean | undefined,
): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      segs.push(i);
      walk(value[i], root, segs, structure, out, clean);
      segs.pop();
    }
    return;
  }
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    segs.push(key);
    if (structure) {
      if (PROVIDER_RESPONSE_KEYS.has(key)) {
        out.push({
          path: pathOf(root, segs),
          message: `provider response key ${quoted(key)} is not part of the cassette format. ${REDO}`,
        });
      } else if (KEY_NAMES.test(key)) {
        out.push({
          path: pathOf(root, segs),
          message: `key ${quoted(key)} is an API key name or auth header; credentials never belong in a cassette. ${LEAK}`,
        });
      } else {
        checkString(key, root, segs, true, out, "key");
      }
    } else {
      checkString(key, root, segs, false, out, "key");
    }
    // `content` is data when it is plain text; as an array it holds structured parts.
    const data = !structure || DATA_KEYS.has(key) || (key === "content" && typeof child === "string");
    walk(child, root, segs, !data, out, clean);
    segs.pop();
  }
}

/**
 * Every neutrality problem in a value (a trace, a step, a payload), with JSON paths from `root`.
 * `shared`: objects standing at several places (src/trace/share.ts), scanned once where clean.
 */
export function checkNeutrality(value: unknown, root = "", shared?: SharedValues): NeutralityProblem[] {
  const out: NeutralityProblem[] = [];
  walk(
    value,
    root,
    [],
    true,
    out,
    shared && shared.size > 0 ? { shared, structure: new Set(), data: new Set() } : undefined,
  );
  return out;
}

/**
 * The text of a run of text parts (`{ type: "text", text }`), as compare joins them; undefined when there is
 * no such part.
 */
function joinedText(list: unknown[]): string | undefined {
  let text: string | undefined;
  for (const p of list) {
    const part = p as { type?: unknown; text?: unknown } | null;
    if (part !== null && typeof part === "object" && part.type === "text" && typeof part.text === "string")
      text = (text ?? "") + part.text;
  }
  return text;
}

/**
 * JSON paths of every string (value or key) containing one of the literal `secrets`, and of
 * every list of text parts whose joined text does (a key split across two text blocks).
 */
export function findSecrets(value: unknown, secrets: string[]): string[] {
  const needles = secrets.filter((s) => s.length > 0);
  const found: string[] = [];
  if (needles.length === 0) return found;
  const hit = (s: string): boolean => needles.some((n) => s.includes(n));
  const visit = (v: unknown, path: string): void => {
    if (typeof v === "string") {
      if (hit(v)) found.push(path);
    } else if (Array.isArray(v)) {
      const before = found.length;
      v.forEach((x, i) => visit(x, appendPath(path, i)));
      const joined = found.length === before ? joinedText(v) : undefined;
      if (joined !== undefined && hit(joined)) found.push(path);
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        const p = appendPath(path, k);
        if (hit(k)) found.push(p);
        visit(x, p);
      }
    }
  };
  visit(value, "");
  return found;
}
