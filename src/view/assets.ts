/**
 * The viewer's script and style, bundled at build time (`npm run build` runs
 * src/view/bundle.mjs) into dist/view/ui-bundle.json. Read only by `blackbox view`.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ViewError } from "./errors.js";
import type { UiBundle } from "./html.js";

/** Both src/view/ and dist/view/ sit two folders below the package root. */
const BUNDLE = new URL("../../dist/view/ui-bundle.json", import.meta.url);

let cached: UiBundle | undefined;

export function loadUiBundle(): UiBundle {
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(BUNDLE, "utf8");
  } catch (error) {
    throw new ViewError(
      `the viewer's page bundle ${fileURLToPath(BUNDLE)} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Build the package first: npm run build`,
    );
  }
  const parsed = JSON.parse(text) as Partial<UiBundle>;
  if (typeof parsed.js !== "string" || typeof parsed.css !== "string") {
    throw new ViewError(`${fileURLToPath(BUNDLE)} is not the viewer's bundle. Rebuild: npm run build`);
  }
  cached = { js: parsed.js, css: parsed.css };
  return cached;
}
