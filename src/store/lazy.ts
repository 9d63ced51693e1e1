/**
 * The cassette writer, loaded at the session's first call in the register hook's record
 * mode: it pulls in zod and verify (start-up a recording pays otherwise: bench/startup.mjs) that a
 * recording does not need before then. The library loads it with the session. With it comes
 * the reader of the cassette a recording writes over, whose unchanged steps it keeps
 * (src/trace/rerecord.ts).
 */
import type { SessionPorts } from "../session/types.js";
import type { Trace } from "../trace/types.js";

type Write = (path: string, trace: Trace, secrets: string[]) => void;
type Load = (path: string) => Trace;

/** writeCassette and writerReady for a session whose writer loads when first needed; loadCassette with it. */
export function lazyWriter(): Pick<SessionPorts, "writeCassette" | "writerReady" | "loadCassette" | "readsPrevious"> {
  let write: Write | undefined;
  let load: Load | undefined;
  let loading: Promise<void> | undefined;
  return {
    readsPrevious: true,
    writerReady() {
      if (write) return undefined;
      loading ??= Promise.all([import("./write.js"), import("./loadVerified.js")]).then(([w, l]) => {
        write = w.writeCassetteSync;
        load = l.loadVerifiedTraceSync;
      });
      return loading;
    },
    loadCassette(path) {
      if (!load) {
        throw new Error(
          "blackbox: the cassette reader was not loaded (it loads with the writer, at the first model or tool call). This is a bug in Blackbox, please report it",
        );
      }
      return load(path);
    },
    writeCassette(path, trace, secrets) {
      if (!write) {
        throw new Error(
          "blackbox: the cassette writer was not loaded (it loads at the first model or tool call). This is a bug in Blackbox, please report it",
        );
      }
      write(path, trace, secrets);
    },
  };
}
