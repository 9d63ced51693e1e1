/**
 * Older Stainless-generated SDKs (openai 4.x, @anthropic-ai/sdk before the fetch-only
 * rewrite) do not use the global fetch on Node: their runtime shim picks node-fetch
 * (`http.request`), which the global dispatcher never sees. Loading the app's own
 * `<sdk>/shims/web` before the app loads the SDK makes it use the global fetch. The
 * CommonJS and ESM builds keep separate shim state, so both are loaded. openai 3.x
 * (axios) cannot be captured at all and is refused, naming the version.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { BlackboxUnsupportedError } from "../errors.js";
import { PROVIDER_NAMES, providers } from "../providers/index.js";

/** The official SDKs, in the order they are switched. */
const SDKS = [...new Set(PROVIDER_NAMES.map((p) => providers[p].sdkPackage))].reverse(); // openai first, as before

export interface InstalledSdk {
  name: string;
  version: string;
  /** The package folder. */
  dir: string;
}

/** The app's installed copy of `name` as Node would find it from `cwd`, if any. */
export function appSdk(cwd: string, name: string): InstalledSdk | undefined {
  const req = createRequire(join(cwd, "__blackbox__.js"));
  // Not req.resolve(`${name}/package.json`): openai 4's `exports` does not list it.
  const pkgFile = (req.resolve.paths(name) ?? [])
    .map((dir) => join(dir, name, "package.json"))
    .find((f) => existsSync(f));
  if (!pkgFile) return undefined;
  const version = String((JSON.parse(readFileSync(pkgFile, "utf8")) as { version?: unknown }).version ?? "");
  return { name, version, dir: dirname(pkgFile) };
}

async function loadWebShim(sdk: InstalledSdk): Promise<void> {
  const cjs = join(sdk.dir, "shims", "web.js");
  const esm = join(sdk.dir, "shims", "web.mjs");
  try {
    createRequire(cjs)(cjs);
    if (existsSync(esm)) await import(pathToFileURL(esm).href);
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    throw new BlackboxUnsupportedError(
      `${sdk.name} ${sdk.version} uses node-fetch, and switching it to the global fetch failed (${why}); upgrade ${sdk.name}, or import "${sdk.name}/shims/web" before ${sdk.name} yourself`,
    );
  }
}

/**
 * Make the app's SDKs use the global fetch, or refuse a version that cannot be captured.
 * The app's copies are looked for from each of `from` (the working folder, and the main
 * script's folder: in a monorepo the agent's package may be the only one installing its
 * SDK); a copy found from neither is stopped at its first model call (httpGuard.ts).
 * Returns what was switched.
 */
export async function routeSdksThroughFetch(...from: string[]): Promise<string[]> {
  const switched: string[] = [];
  const seen = new Set<string>();
  for (const name of SDKS)
    for (const [k, dir] of [...new Set(from)].entries()) {
      const sdk = appSdk(dir, name);
      if (!sdk || seen.has(sdk.dir)) continue;
      seen.add(sdk.dir);
      if (name === "openai" && Number(sdk.version.split(".")[0]) < 4) {
        // only the working folder's app is refused up front: a script's own copy (a helper
        // tool run in the tree) may never call a model, and its calls would be stopped anyway
        if (k > 0) continue;
        throw new BlackboxUnsupportedError(
          `openai ${sdk.version} sends requests with axios, which Blackbox cannot see; upgrade to openai >= 4 (5 or later recommended)`,
        );
      }
      // Only the shim-based versions ship shims/web.js; fetch-only versions need nothing.
      if (!existsSync(join(sdk.dir, "shims", "web.js"))) continue;
      await loadWebShim(sdk);
      switched.push(`${name}@${sdk.version}`);
    }
  return switched;
}
