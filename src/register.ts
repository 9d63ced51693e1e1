/**
 * The preload behind `node --import @ardaulas/blackbox/register`: a session from the
 * environment, its doors (src/interception/) and the tool module hooks (src/tools/). The
 * session itself finishes at process exit and claims the cassette at its first call. Start-up loads only what
 * the mode needs: record
 * without a config loads no zod, cassette parser or verify (bench/startup.mjs). Any
 * problem is one `blackbox: ...` line on stderr and exit code 2 before the agent runs
 * (marked for the run, so `blackbox` adds no guess of its own). Started without
 * BLACKBOX_RUN (the bare hook, no CLI), this process is the root of a run its
 * descendants join, checked at its end (process/run.ts).
 */
import { dirname, isAbsolute, join } from "node:path";
import { dropPlaceholderKeys, optionsFromEnv, sendsNothing, setPlaceholderKeys } from "./config/env.js";
import { loadConfig } from "./config/index.js";
import { REGISTER_INSTALLED } from "./globals.js";
import { installInterception } from "./interception/index.js";
import { assertClaimHeld, claimCassette } from "./process/claim.js";
import { markReported } from "./process/reported.js";
import { onProcessExit } from "./process/exit.js";
import { startRootRun } from "./process/run.js";
import { setProcessSession } from "./process/session.js";
import { publicSession } from "./publicSession.js";
import { SessionEngine } from "./session/engine.js";
import { RunSession, type RunPorts } from "./session/run.js";
import type { SessionOptions, SessionPorts } from "./session/types.js";
import { namesFolder, readText, sameFile } from "./store/files.js";
import { lazyWriter } from "./store/lazy.js";
import { installToolHooks } from "./tools/index.js";

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
  if (globals[REGISTER_INSTALLED]) return;
  globals[REGISTER_INSTALLED] = true;
  const options = optionsFromEnv(env, cwd);
  if (!options) return;
  if (sendsNothing(options))
    setPlaceholderKeys(env); // as the CLI does: a replay by hand needs no key
  else dropPlaceholderKeys(env); // nothing is ever sent with them
  const config = await loadConfig(cwd, env.BLACKBOX_CONFIG, env.BLACKBOX_CONFIG_DEFAULT);
  const ports = { ...(await hookPorts(options, env)), toolsConfig: { file: config.file, cwd }, ...warnPort(env) };
  const engine = await sessionOf({ ...options, providers: config.providers, redact: config.redact }, ports);
  engine.adopt(await installInterception(engine, [cwd, ...scriptFolder()]));
  // blackbox() without a mode, in the agent's own code, returns this session.
  setProcessSession(publicSession(engine));
  engine.adopt(await installToolHooks(config.tools, engine, undefined, [cwd, ...scriptFolder()]));
  const runs = namesFolder(options.cassette) ? await import("./store/run.js") : undefined;
  startRootRun(env, options, (file) => (runs ? runs.loadRunSync(file).traces[0]! : ports.loadCassette(file)));
}

/**
 * The process session: a run (src/session/run.ts) when recording, so that conversations made at once
 * (sub-agents, a server's) are each recorded, one file while there is one; when replaying a run's folder;
 * else one engine.
 */
async function sessionOf(options: SessionOptions, ports: SessionPorts): Promise<SessionEngine | RunSession> {
  const replaysRun = options.mode === "replay" && namesFolder(options.cassette);
  if (options.mode !== "record" && !replaysRun) return new SessionEngine(options, ports);
  let store = replaysRun ? await import("./store/run.js") : undefined;
  const runPorts: RunPorts = {
    ...ports,
    join,
    loadRun: (folder) => store!.loadRunSync(folder),
    writeRunIndex: (folder, index) => store!.writeRunIndexSync(folder, index),
    writerReady: () => {
      const writer = ports.writerReady?.();
      if (store) return writer;
      return Promise.all([writer, import("./store/run.js").then((m) => void (store = m))]).then(() => undefined);
    },
  };
  return new RunSession(options, runPorts, options.mode === "record" && !namesFolder(options.out) ? "file" : "folder");
}

/**
 * The bare hook's root process says what the run should know (tools that ran unrecorded) on stderr; under
 * `blackbox` (BLACKBOX_RUN set) the CLI says it once for the run, and a descendant leaves it to the root.
 */
function warnPort(env: NodeJS.ProcessEnv): Pick<SessionPorts, "warn"> {
  if (env.BLACKBOX_RUN) return {};
  return { warn: (m) => void process.stderr.write(`blackbox: warning: ${m}\n`) };
}

/**
 * The hook's side effects: the session claims its cassette at its first call and finishes
 * at process end. Replay and fork load the cassette now; record loads its writer (zod,
 * verify) at the first call, and the reader of the cassette it writes over with it.
 */
async function hookPorts(options: SessionOptions, env: NodeJS.ProcessEnv): Promise<SessionPorts> {
  const ports = {
    readText,
    sameFile,
    env,
    onProcessExit,
    finishReplayAtExit: true,
    claim: { take: claimCassette, assertHeld: assertClaimHeld },
  };
  // a recording reads only the cassette it writes over, with its writer (src/store/lazy.ts)
  if (options.mode === "record") return { ...ports, ...lazyWriter() };
  const [{ loadVerifiedTraceSync }, { writeCassetteSync }] = await Promise.all([
    import("./store/loadVerified.js"),
    import("./store/write.js"),
  ]);
  return { ...ports, loadCassette: loadVerifiedTraceSync, writeCassette: writeCassetteSync };
}

try {
  await start();
} catch (err) {
  process.stderr.write(`blackbox: ${message(err)}\n`);
  markReported(undefined, err);
  process.exit(2);
}
