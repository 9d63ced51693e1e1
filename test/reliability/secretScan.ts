/**
 * Scans the cassettes tests wrote for secrets: the literal test keys (and any key in
 * the environment) anywhere in any file, and, in every cassette whose hash chain is
 * intact (as a recorder wrote it, not as a test edited it), what verify's neutrality
 * check finds: realistic credentials, provider-native ids, authorization / x-api-key
 * keys, provider response keys.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyTrace } from "../../src/trace/verify.js";

/** The keys the test agents send (test/helpers/agents.ts, geminiAgent.ts). */
export const TEST_KEYS = [
  "sk-ant-test-key-000000000000",
  "sk-proj-test-key-000000000000",
  "AIzaSyTestKey0000000000000000000000000a",
];

export interface Finding {
  file: string;
  what: string;
}

/** Where the suite writes: os.tmpdir()/bb-* and bbx-*, and the repo's .blackbox-tmp-* folders. */
export function suiteRoots(root: string): string[] {
  const under = (dir: string, re: RegExp): string[] => {
    try {
      return readdirSync(dir)
        .filter((n) => re.test(n))
        .map((n) => join(dir, n));
    } catch {
      return [];
    }
  };
  return [...under(tmpdir(), /^bbx?-/), ...under(root, /^\.blackbox-tmp-/)];
}

function jsonFiles(dir: string, since: number, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = join(dir, name);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue; // removed meanwhile
    }
    if (st.isDirectory()) {
      if (name !== "node_modules") jsonFiles(p, since, out);
    } else if (
      name.endsWith(".json") &&
      st.mtimeMs >= since &&
      st.size < 64 * 1024 * 1024 &&
      st.blocks * 512 >= st.size / 2
    )
      out.push(p);
  }
  return out;
}

const CHAIN = /\.(hash|prevHash)$/;
/** verify's neutrality messages (src/trace/neutrality.ts). */
const NEUTRALITY = /API key|bearer token|provider-native id|auth header|provider response key/;

export function scanFile(file: string, keys: string[]): Finding[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const found: Finding[] = [];
  for (const key of keys)
    if (text.includes(key)) found.push({ file, what: `the literal API key ${key.slice(0, 10)}...` });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return found;
  }
  if (value === null || typeof value !== "object" || !Array.isArray((value as { steps?: unknown }).steps)) return found;
  const v = verifyTrace(value);
  if (v.problems.some((p) => CHAIN.test(p.path))) return found; // edited by a test on purpose
  for (const p of v.problems)
    if (NEUTRALITY.test(p.message)) found.push({ file, what: `${p.path}: ${p.message.split(". ")[0]}` });
  return found;
}

/** Every finding in the JSON files under `roots` modified since `since` (ms). */
export function scanCassettes(roots: string[], since = 0): { files: number; findings: Finding[] } {
  const keys = [...TEST_KEYS, process.env.ANTHROPIC_API_KEY, process.env.OPENAI_API_KEY].filter(
    (k): k is string => !!k && k.length >= 8,
  );
  const files = roots.flatMap((r) => jsonFiles(r, since));
  return { files: files.length, findings: files.flatMap((f) => scanFile(f, keys)) };
}
