/**
 * The preload behind `node --import @ardaulas/blackbox/register`: a session from the
 * environment, the global dispatcher door, the old SDKs' web shims and the tool module
 * hooks. The session itself finishes at process exit (autoFinish) and claims the
 * cassette at its first call (claim). Start-up loads only what the mode needs: record
 * without a config loads no zod, cassette parser or verify (bench/startup.mjs). Any
 * problem is one `blackbox: ...` line on stderr and exit code 2 before the agent runs
 * (marked for the run, so `blackbox` adds no guess of its own). Started without
 * BLACKBOX_RUN (the bare hook, no CLI), this process is the root of a run its
 * descendants join, checked at its end (edges/run.ts).
 */
import { markReported } from "./edges/claim.js";
import { loadConfig } from "./edges/config.js";
import { installDispatcher } from "./edges/dispatcher.js";
import { dropPlaceholderKeys, optionsFromEnv, sendsNothing, setPlaceholderKeys } from "./edges/env.js";
import { dirname, isAbsolute } from "node:path";
import { guardHttpClients } from "./edges/httpGuard.js";
import { routeSdksThroughFetch } from "./edges/sdkShims.js";
import { startRootRun } from "./edges/run.js";
import { installToolHooks } from "./edges/toolHooks.js";
import { setProcessSession } from "./processSession.js";
import { createSession } from "./session/session.js";

const INSTALLED = Symbol.for("ardaulas.blackbox.register.v1");

/** The main script's folder (`node agent.mjs`), where its SDKs may be installed; none for `-e` or a REPL. */
function scriptFolder(): string[] {
  const main = process.argv[1];
  return main && isAbsolute(main) ? [dirname(main)] : [];
}

function message(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/^(\[blackbox\]|blackbox:)\s*/, "");
}

export async function start(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Promise<void> {
  const globals = globalThis as unknown as Record<symbol, boolean>;
  if (globals[INSTALLED]) return;
  globals[INSTALLED] = true;
  const options = optionsFromEnv(env, cwd);
  if (!options) return;
  if (sendsNothing(options)) setPlaceholderKeys(env); // as the CLI does: a replay by hand needs no key
  else dropPlaceholderKeys(env); // nothing is ever sent with them
  const config = await loadConfig(cwd, env.BLACKBOX_CONFIG, env.BLACKBOX_CONFIG_DEFAULT);
  // Replay and fork load a cassette now; record loads its writer (zod, verify) at the first call.
  if (options.mode !== "record") await import("./session/index.js");
  await routeSdksThroughFetch(cwd, ...scriptFolder());
  const session = createSession({ ...options, providers: config.providers, autoFinish: true, claim: true });
  guardHttpClients(session); // a model call sent with node-fetch or http.request is stopped and named
  // blackbox() without a mode, in the agent's own code, returns this session.
  setProcessSession(session);
  await installDispatcher(session);
  await installToolHooks(config.tools, session);
  startRootRun(env, options);
}

try {
  await start();
} catch (err) {
  process.stderr.write(`blackbox: ${message(err)}\n`);
  markReported();
  process.exit(2);
}
