import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SessionError } from "../errors.js";
import { pidAlive } from "./pid.js";


/**
 * Claims a cassette for this process, so that two processes of one process tree
 * (say npm and the agent it starts, both loading the hook) never both write it.
 * A lock file in the temp folder, keyed by the cassette's absolute path, holds the
 * owner's pid; a lock whose owner is gone is taken over. Returns the release.
 */
export function claimCassette(path: string): () => void {
  const abs = resolve(path);
  const dir = join(tmpdir(), "blackbox-locks");
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, `${createHash("sha256").update(abs).digest("hex").slice(0, 32)}.lock`);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(lock, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = Number(readFileSync(lock, "utf8").trim());
      if (owner && owner !== process.pid && pidAlive(owner)) {
        throw new SessionError(
          `two processes are making model or tool calls under one cassette (${abs}): process ${owner} already did, and now process ${process.pid}. ` +
            "Blackbox records one process per cassette: run the agent process alone under blackbox, or give each process its own cassette (blackbox({ out })).",
        );
      }
      rmSync(lock, { force: true });
    }
  }
  throw new SessionError(`could not claim the cassette ${abs}: its lock file kept changing; try again`);
}
