/**
 * An app that bundles the library (esbuild, as users do for lambdas and CLIs) and runs
 * where no node_modules exist: everything the library needs at run time is in the bundle.
 * (The register hook's own bundle loads canonicalize lazily; the library must not.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, expect, test } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import { requireBuild } from "./zeroCodeHelpers.js";

const dir = mkdtempSync(join(tmpdir(), "bbx-bundled-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a bundled app loads, verifies and diffs cassettes, and records a run, with no node_modules", async () => {
  requireBuild();
  const entry = join(dir, "app.mjs");
  writeFileSync(
    entry,
    `import { blackbox, diffTraces, loadTrace, verifyTrace } from ${JSON.stringify(join(ROOT, "dist", "index.js"))};
const out = ${JSON.stringify(join(dir, "run.json"))};
const bb = blackbox({ mode: "record", out });
const tools = bb.tools({ add: async (a, b) => a + b });
await tools.add(2, 3);
await bb.finish({ result: "done" });
const trace = await loadTrace(out);
const fixture = await loadTrace(${JSON.stringify(join(ROOT, "test", "fixtures", "basic.json"))});
console.log(JSON.stringify({ mine: verifyTrace(trace).ok, fixture: verifyTrace(fixture).ok, differs: diffTraces(trace, fixture) !== null, steps: trace.steps.map((s) => s.type) }));
`,
  );
  const bundle = join(dir, "app.bundle.mjs");
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "silent",
    banner: { js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);' },
  });
  const r = await runProcess(process.execPath, [bundle], { cwd: dir });
  expect(r.stderr).toBe("");
  expect(JSON.parse(r.stdout)).toEqual({
    mine: true,
    fixture: true,
    differs: true,
    steps: ["tool_call", "tool_result", "metadata"],
  });
});
