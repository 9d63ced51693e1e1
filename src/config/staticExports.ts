/**
 * The names a JS/TS module exports, read from its source without running it.
 * Running the tool module to check its exports would load it before the module hooks
 * see it (and before tsx's loader exists, for `.ts` tools), so the config check reads
 * the declarations instead. `complete` is false when the module re-exports `*` or
 * assigns `module.exports` to something other than an object literal: then a name not
 * found is not proof of absence, and the check is left to the hook.
 */

export interface ExportScan {
  names: Set<string>;
  complete: boolean;
}

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:"'`\\])\/\/[^\n]*/g, "$1");
}

function listNames(list: string, names: Set<string>): void {
  for (const item of list.split(",")) {
    const parts = item
      .trim()
      .replace(/^type\s+/, "")
      .split(/\s+as\s+/);
    const name = (parts[1] ?? parts[0] ?? "").trim().replace(/^["']|["']$/g, "");
    if (name) names.add(name);
  }
}

/** Top-level keys of an object literal `{ a, b: x, c() {}, ...rest }` (nested braces skipped). */
function objectKeys(body: string, names: Set<string>): boolean {
  let depth = 0;
  let current = "";
  let complete = true;
  const flush = () => {
    const m = /^\s*(?:async\s+)?(\.\.\.)?\s*["']?([A-Za-z_$][\w$]*)/.exec(current);
    if (m?.[1]) complete = false;
    else if (m?.[2]) names.add(m[2]);
    current = "";
  };
  for (const ch of body) {
    if ("{[(".includes(ch)) depth++;
    if ("}])".includes(ch)) depth--;
    if (ch === "," && depth === 0) flush();
    else current += ch;
  }
  flush();
  return complete;
}

export function scanExports(source: string): ExportScan {
  const src = stripComments(source);
  const names = new Set<string>();
  let complete = true;
  for (const m of src.matchAll(/\bexport\s+(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/g))
    names.add(m[1]!);
  for (const m of src.matchAll(
    /\bexport\s+(?:declare\s+)?(?:abstract\s+)?(?:class|enum|const\s+enum)\s+([A-Za-z_$][\w$]*)/g,
  ))
    names.add(m[1]!);
  for (const m of src.matchAll(/\bexport\s+(?:declare\s+)?(?:const|let|var)\s+([^=;]+?)\s*(?:[:=;]|$)/gm)) {
    const decl = m[1]!;
    if (/^[{[]/.test(decl)) complete = false;
    else listNames(decl, names);
  }
  for (const m of src.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}/g)) listNames(m[1]!, names);
  if (/\bexport\s+default\b/.test(src)) names.add("default");
  if (/\bexport\s*\*\s*from\b/.test(src)) complete = false;
  for (const m of src.matchAll(/\b(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/g)) names.add(m[1]!);
  for (const m of src.matchAll(/\bexports\[\s*["']([^"']+)["']\s*\]\s*=/g)) names.add(m[1]!);
  for (const m of src.matchAll(/\bmodule\.exports\s*=\s*(\{?)/g)) {
    if (!m[1]) {
      complete = false;
      continue;
    }
    const start = (m.index ?? 0) + m[0].length;
    let depth = 1;
    let end = start;
    while (end < src.length && depth > 0) {
      if (src[end] === "{") depth++;
      else if (src[end] === "}") depth--;
      end++;
    }
    if (!objectKeys(src.slice(start, end - 1), names)) complete = false;
  }
  return { names, complete };
}
