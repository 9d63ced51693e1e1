/**
 * vitest globalSetup: after the whole suite, scan every cassette the suite wrote during
 * this run (os.tmpdir()/bb-* and bbx-*, the repo's .blackbox-tmp-*) for API keys,
 * authorization / x-api-key values and provider ids, and fail the run on any.
 * A future leak anywhere in recording fails CI here, whichever test made it.
 */
import { fileURLToPath } from "node:url";
import { scanCassettes, suiteRoots } from "./secretScan.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export default function setup(): () => void {
  const since = Date.now() - 1000;
  return () => {
    const { files, findings } = scanCassettes(suiteRoots(ROOT), since);
    if (findings.length > 0) {
      const lines = findings.slice(0, 20).map((f) => `  ${f.file}: ${f.what}`);
      // vitest logs an error thrown here but still exits 0: set the exit code ourselves
      process.exitCode = 1;
      process.stderr.write(
        `\nsecret scan: ${findings.length} secret(s) or provider id(s) in ${files} cassette(s) the suite wrote:\n${lines.join("\n")}\n` +
          "A recording leaked what it must not store: find the test that wrote the file and fix the recorder (or the test's data).\n",
      );
      return;
    }
    if (process.env.BLACKBOX_SCAN_VERBOSE === "1")
      process.stdout.write(`secret scan: ${files} cassette(s), 0 secrets\n`);
  };
}
