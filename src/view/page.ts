/** Builds the page for inputs (buildPage) and writes it to a file (writeView). */
import { createWriteStream, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { loadUiBundle } from "./assets.js";
import { buildViewData } from "./data.js";
import { ViewError } from "./errors.js";
import { renderHtml } from "./html.js";
import { loadInputs } from "./inputs.js";
import type { ViewData } from "./model.js";

/** The package's version (src/view/ and dist/view/ both sit two folders below package.json). */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return String(pkg.version);
  } catch {
    return "unknown";
  }
}

export interface PageOptions {
  /** Where relative inputs are read from, and what the page's fork commands are relative to. */
  cwd: string;
  /** A served page: reloads on change, and an empty folder is a page saying so. */
  live?: boolean;
  now?: number;
}

export interface BuiltPage {
  chunks: string[];
  data: ViewData;
  bytes: number;
}

/** Loads the inputs and renders the page. */
export async function buildPage(inputs: readonly string[], o: PageOptions): Promise<BuiltPage> {
  const ui = loadUiBundle();
  const loaded = await loadInputs(inputs, o.cwd, o.live === true);
  const { data, payloads } = buildViewData(loaded.runs, {
    groups: loaded.groups,
    cwd: o.cwd,
    version: packageVersion(),
    live: o.live ?? false,
    watching: o.live ? inputs.join(", ") : null,
    skipped: loaded.skipped,
    sweeps: loaded.sweeps,
    ...(o.now === undefined ? {} : { now: o.now }),
  });
  const chunks = renderHtml(data, payloads, ui);
  return { chunks, data, bytes: chunks.reduce((n, c) => n + Buffer.byteLength(c, "utf8"), 0) };
}

/** Writes the page for `inputs` to `out`. */
export async function writeView(inputs: readonly string[], out: string, o: PageOptions): Promise<BuiltPage> {
  if (inputs.length === 0) {
    throw new ViewError(
      "blackbox view needs a cassette or a folder of cassettes, e.g. blackbox view runs/trip.json, or blackbox view --serve runs/ to watch a folder",
    );
  }
  const page = await buildPage(inputs, o);
  try {
    await mkdir(dirname(out), { recursive: true });
    await new Promise<void>((resolve, reject) => {
      const stream = createWriteStream(out);
      stream.once("error", reject);
      stream.once("finish", resolve);
      for (const chunk of page.chunks) stream.write(chunk, "utf8");
      stream.end();
    });
  } catch (error) {
    throw new ViewError(
      `cannot write ${out} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Pass another file with -o, in a folder you can write to.`,
    );
  }
  return page;
}
