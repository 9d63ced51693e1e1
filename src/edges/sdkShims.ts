/**
 * openai 4.x does not use the global fetch on Node: its runtime shim picks node-fetch
 * (`http.request`), which the global dispatcher never sees. Loading the app's own
 * `openai/shims/web` before the app loads openai makes v4 use the global fetch. The
 * CommonJS and ESM builds keep separate shim state, so both are loaded. openai 3.x
 * (axios) cannot be captured at all and is refused, naming the version.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BlackboxUnsupportedError } from "../errors.js";

/** The app's installed openai version as seen from `cwd`, if any. */
export function appOpenAIVersion(cwd: string): { version: string; require: NodeJS.Require } | undefined {
  const req = createRequire(join(cwd, "__blackbox__.js"));
  // Not req.resolve("openai/package.json"): openai 4's `exports` does not list it.
  const pkgFile = (req.resolve.paths("openai") ?? []).map((dir) => join(dir, "openai", "package.json")).find((f) => existsSync(f));
  if (!pkgFile) return undefined;
  const version = String((JSON.parse(readFileSync(pkgFile, "utf8")) as { version?: unknown }).version ?? "");
  return { version, require: req };
}

/** Make the app's openai SDK use the global fetch, or refuse a version that cannot be captured. */
export async function routeOpenAIThroughFetch(cwd: string): Promise<string | undefined> {
  const found = appOpenAIVersion(cwd);
  if (!found) return undefined;
  const major = Number(found.version.split(".")[0]);
  if (major >= 5) return found.version;
  if (major < 4) {
    throw new BlackboxUnsupportedError(
      `openai ${found.version} sends requests with axios, which Blackbox cannot see; upgrade to openai >= 4 (5 or later recommended)`,
    );
  }
  try {
    const cjs = found.require.resolve("openai/shims/web");
    found.require(cjs);
    const esm = cjs.replace(/\.js$/, ".mjs");
    if (existsSync(esm)) await import(pathToFileURL(esm).href);
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    throw new BlackboxUnsupportedError(
      `openai ${found.version} uses node-fetch, and switching it to the global fetch failed (${why}); upgrade to openai >= 5, or import "openai/shims/web" before openai yourself`,
    );
  }
  return found.version;
}
