import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SessionError } from "../errors.js";
import { sha256Hex } from "../trace/canonical.js";
import { pidAlive } from "./pid.js";


/**
 * Claims a cassette for this process, so that two processes of one process tree
 * (say npm and the agent it starts, both loading the hook) never both write it.
 * A lock file in the temp folder, keyed by the cassette's absolute path, holds the
 * owner's pid; a lock whose owner is gone is taken over. Returns the release.
 *
 * Under the CLI (`run`: BLACKBOX_RUN, one token per `blackbox record|replay|fork`), a
 * released lock stays, marked done for that run, so a later process of the same run
 * is refused instead of clobbering the cassette; the CLI removes it (`lockPathFor`).
 */
export function lockPathFor(path: string): string {
  const abs = resolve(path);
  return join(tmpdir(), "blackbox-locks", `${sha256Hex(abs).slice(0, 32)}.lock`);
}

export function claimCassette(path: string, run: string | undefined = process.env.BLACKBOX_RUN): () => void {
  const abs = resolve(path);
  const lock = lockPathFor(abs);
  mkdirSync(join(tmpdir(), "blackbox-locks"), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, run ? `${process.pid} ${run}` : String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (run) writeFileSync(lock, `0 ${run}`);
        else rmSync(lock, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const [ownerText = "", ownerRun] = readFileSync(lock, "utf8").trim().split(" ");
      const owner = Number(ownerText);
      if (run && ownerRun === run && owner !== process.pid && !(owner && pidAlive(owner))) {
        throw new SessionError(
          `another process of this run already made model or tool calls under one cassette (${abs}) and wrote it; now process ${process.pid} makes calls too. ` +
            "Blackbox records one process per cassette: run the agent process alone under blackbox, or record each process separately.",
        );
      }
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
