/**
 * A configured tool file whose wrapper could not be made (toolWrapper.ts). Written with
 * writeSync: a hooks thread's asynchronous stderr writes can be lost when the process exits.
 */
import { writeSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function reportUnreadable(href: string, err: unknown): void {
  const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
  let file = href;
  try {
    file = fileURLToPath(href);
  } catch {
    // keep the URL
  }
  writeSync(
    2,
    `blackbox: ${file}: its exports could not be read (${why}), so calls of its configured tools are not recorded; it must be plain JavaScript by the time it loads: run it under a loader that compiles it (e.g. node --import tsx)\n`,
  );
}
