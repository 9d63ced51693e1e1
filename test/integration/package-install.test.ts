/**
 * The package as a user gets it: packed, installed from its tarball (no build, no install
 * script), then required from CommonJS and imported from ESM, its bin and its preload run.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import { requireBuild } from "./zeroCodeHelpers.js";

const dir = mkdtempSync(join(tmpdir(), "bbx-package-"));
const app = join(dir, "app");
let install: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  requireBuild();
  const pack = await runProcess("npm", ["pack", "--pack-destination", dir, "--silent"], { timeoutMs: 60_000 });
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"))!;
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "user-app", private: true }));
  // --prefer-offline: the dependencies from the npm cache where `npm ci` filled it, their metadata from the
  // registry when the cache has none (a fresh machine holds only the tarballs); nothing is built
  install = await runProcess(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn", join(dir, tarball)],
    { cwd: app, timeoutMs: 120_000 },
  );
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("installs from its tarball with no install script to approve and nothing built", () => {
  expect(install.code, install.stderr).toBe(0);
  expect(install.stderr).not.toMatch(/install-scripts|prepare/);
});

test("require() from CommonJS gets the library and the config helper (Node 20.19+: require of ES modules)", async () => {
  writeFileSync(
    join(app, "use.cjs"),
    `const bb = require("@ardaulas/blackbox");
const { defineConfig } = require("@ardaulas/blackbox/config");
const session = bb.blackbox();
console.log(JSON.stringify({
  blackbox: typeof bb.blackbox, loadTrace: typeof bb.loadTrace, verifyTrace: typeof bb.verifyTrace,
  isError: bb.isBlackboxError(new bb.ReplayDivergenceError("x")), mode: session.mode,
  config: defineConfig({ tools: [] }),
}));
`,
  );
  const r = await runProcess(process.execPath, ["use.cjs"], { cwd: app });
  expect(r.stderr).toBe("");
  expect(JSON.parse(r.stdout)).toEqual({
    blackbox: "function",
    loadTrace: "function",
    verifyTrace: "function",
    isError: true,
    mode: "off",
    config: { tools: [] },
  });
});

test("import from ESM, the bin and the preload work from the installed package", async () => {
  writeFileSync(
    join(app, "use.mjs"),
    `import { verifyTrace, loadTrace } from "@ardaulas/blackbox";
const trace = await loadTrace(${JSON.stringify(join(ROOT, "test", "fixtures", "basic.json"))});
console.log(verifyTrace(trace).ok);
`,
  );
  const esm = await runProcess(process.execPath, ["use.mjs"], { cwd: app });
  expect(esm.stderr).toBe("");
  expect(esm.stdout).toBe("true\n");
  const bin = await runProcess(join(app, "node_modules", ".bin", "blackbox"), ["--version"], { cwd: app });
  expect(bin.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  const hooked = await runProcess(
    process.execPath,
    ["--import", "@ardaulas/blackbox/register", "-e", "console.log('ran')"],
    { cwd: app, env: { BLACKBOX_MODE: "off" } },
  );
  expect(hooked.stderr).toBe("");
  expect(hooked.stdout).toBe("ran\n");
});
