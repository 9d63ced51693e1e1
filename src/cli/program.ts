/**
 * The commander program. Each command lives in its own file and exports
 * `register(program)`; adding a command is one line below.
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { register as registerCompletion } from "./completion.js";
import { register as registerDemo } from "./demo.js";
import { register as registerDiff } from "./diff.js";
import { register as registerFork } from "./fork.js";
import { register as registerHelp } from "./help.js";
import { register as registerRecord } from "./record.js";
import { register as registerRedact } from "./redact.js";
import { register as registerReplay } from "./replay.js";
import { register as registerShow } from "./show.js";
import { register as registerSweep } from "./sweep.js";
import { oneLineErrors, trackRunning, usageAfterErrors } from "./usage.js";
import { register as registerVerify } from "./verify.js";
import { register as registerView } from "./view.js";

/** The package's version (dist/cli/ and src/cli/ both sit two folders below package.json). */
function packageVersion(): string {
  try {
    return String(
      (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown })
        .version,
    );
  } catch {
    return "unknown";
  }
}

export function buildProgram(): Command {
  const program = new Command("blackbox")
    .description("Record, replay, fork, verify and diff LLM agent runs as hash-chained JSON cassettes.")
    .version(packageVersion(), "-V, --version", "print the version")
    .exitOverride();
  oneLineErrors(program);
  registerRecord(program);
  registerReplay(program);
  registerFork(program);
  registerVerify(program);
  registerDiff(program);
  registerShow(program);
  registerView(program);
  registerSweep(program);
  registerRedact(program);
  registerDemo(program);
  registerCompletion(program);
  registerHelp(program);
  usageAfterErrors(program);
  trackRunning(program);
  return program;
}
