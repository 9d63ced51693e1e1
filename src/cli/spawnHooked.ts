/**
 * Running `<command...>` under the register hook: NODE_OPTIONS gains
 * `--import <register.mjs>`, the BLACKBOX_* variables are set, stdio is inherited,
 * SIGINT/SIGTERM/SIGHUP are passed on, and the child's exit code comes back
 * (128 + signal number when a signal ended it).
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

/** Absolute path of the package's register.mjs (dist/cli -> package root). */
export const REGISTER_PATH = fileURLToPath(new URL("../../register.mjs", import.meta.url));

const PLACEHOLDER_KEY = "blackbox-placeholder-key-never-sent";
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export function withPreload(nodeOptions: string | undefined): string {
  const flag = `--import ${JSON.stringify(REGISTER_PATH)}`;
  return nodeOptions && nodeOptions.trim() ? `${nodeOptions} ${flag}` : flag;
}

/** The child's environment: the caller's, the hook's variables, and placeholder keys when asked. */
export function hookedEnv(
  vars: Record<string, string | undefined>,
  options: { placeholderKeys?: boolean } = {},
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const key of Object.keys(env)) if (key.startsWith("BLACKBOX_")) delete env[key];
  if (base.BLACKBOX_CONFIG) env.BLACKBOX_CONFIG = base.BLACKBOX_CONFIG;
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
  env.NODE_OPTIONS = withPreload(base.NODE_OPTIONS);
  if (options.placeholderKeys) {
    env.ANTHROPIC_API_KEY ||= PLACEHOLDER_KEY;
    env.OPENAI_API_KEY ||= PLACEHOLDER_KEY;
  }
  return env;
}

/** Spawn the command and resolve to its exit code. A command that cannot start is 127 with a message. */
export function runHooked(command: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const [file, ...args] = command;
    const child = spawn(file!, args, { stdio: "inherit", env });
    const forward = (signal: NodeJS.Signals) => () => {
      if (child.exitCode === null) child.kill(signal);
    };
    const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = (code: number) => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      resolve(code);
    };
    child.on("error", (err: NodeJS.ErrnoException) => {
      const why = err.code === "ENOENT" ? "command not found" : err.message;
      process.stderr.write(`blackbox: cannot run "${command.join(" ")}" (${why}); check the command after --\n`);
      done(127);
    });
    child.on("exit", (code, signal) => {
      if (signal) done(128 + (constants.signals[signal] ?? 0));
      else done(code ?? 1);
    });
  });
}
