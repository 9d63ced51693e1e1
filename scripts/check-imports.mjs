// The house rules for imports inside src/, checked in `npm test`:
// - no import cycle between files;
// - imports point one way between folders (LAYERS: a folder imports only folders of a lower rank);
// - the pure folders (trace/, providers/) import no Node built-in that touches the outside world.
// Prints every breach and exits 1, or prints a one-line summary.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dirname, "..", "src");
/** Each top-level part of src/ and its rank: a file may import a part of a lower or equal rank. */
const LAYERS = {
  "errors.ts": 0,
  "globals.ts": 0,
  "config.ts": 3,
  "vendor/": 0,
  "trace/": 1,
  "providers/": 2,
  "redact/": 2,
  "agent/": 3,
  "session/": 3,
  "process/": 4,
  "store/": 5,
  "config/": 5,
  "interception/": 6,
  "tools/": 6,
  "view/": 6,
  "publicSession.ts": 7,
  "blackbox.ts": 8,
  "assert.ts": 8,
  "sweep.ts": 8,
  "register.ts": 8,
  "testing/": 8,
  "vitest/": 8,
  "jest/": 8,
  "cli/": 9,
  "index.ts": 10,
};
/** Parts of equal rank that must not import each other. */
const PEERS_APART = [
  "providers/",
  "redact/",
  "interception/",
  "tools/",
  "config/",
  "store/",
  "view/",
  "agent/",
  "session/",
];
const PURE = ["trace/", "providers/", "redact/"];
const IMPURE_BUILTINS =
  /^node:(fs|fs\/promises|net|http|https|http2|child_process|worker_threads|os|dgram|tls|cluster)$/;

function walk(dir, out = []) {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(e)) out.push(p);
  }
  return out;
}
const partOf = (file) => {
  const r = relative(SRC, file).split("\\").join("/");
  const slash = r.indexOf("/");
  return slash < 0 ? r : r.slice(0, slash + 1);
};
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

const files = walk(SRC);
const graph = new Map();
const problems = [];
for (const file of files) {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  const deps = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    const typeOnly = /^\s*(import|export)\s+type\s/.test(m[0].trimStart());
    if (spec.startsWith(".")) {
      const target = resolve(dirname(file), spec)
        .replace(/\.js$/, ".ts")
        .replace(/\.jsx$/, ".tsx");
      deps.push({ target, typeOnly });
    } else if (PURE.includes(partOf(file)) && IMPURE_BUILTINS.test(spec)) {
      problems.push(`${relative(SRC, file)}: a pure file imports ${spec}`);
    }
  }
  graph.set(file, deps);
}
for (const [file, deps] of graph) {
  const from = partOf(file);
  for (const { target } of deps) {
    const to = partOf(target);
    if (from === to) continue;
    const [a, b] = [LAYERS[from], LAYERS[to]];
    if (a === undefined || b === undefined) {
      problems.push(`${relative(SRC, file)}: ${from} or ${to} has no rank in scripts/check-imports.mjs`);
    } else if (b > a || (b === a && PEERS_APART.includes(from) && PEERS_APART.includes(to))) {
      problems.push(`${relative(SRC, file)} -> ${relative(SRC, target)}: ${from} may not import ${to}`);
    }
  }
}
// cycles (type-only imports included: they tie the files' meanings together too)
const state = new Map();
const stack = [];
function visit(f) {
  state.set(f, 1);
  stack.push(f);
  for (const { target } of graph.get(f) ?? []) {
    if (!graph.has(target)) continue;
    if (state.get(target) === 1) {
      const cycle = stack.slice(stack.indexOf(target)).concat(target);
      problems.push(`import cycle: ${cycle.map((c) => relative(SRC, c)).join(" -> ")}`);
    } else if (!state.has(target)) visit(target);
  }
  stack.pop();
  state.set(f, 2);
}
for (const f of graph.keys()) if (!state.has(f)) visit(f);

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`${problems.length} import rule(s) broken (scripts/check-imports.mjs)`);
  process.exit(1);
}
console.log(`imports: ${files.length} files, no cycle, every import points one way`);
