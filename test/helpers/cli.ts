/**
 * Runs the built CLI as a child process exactly as a user types it:
 * `node bin/blackbox.mjs ...args`. Build first (`npm run build`).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(ROOT, "bin", "blackbox.mjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Extra environment; NO_COLOR and FORCE_COLOR are cleared unless given here. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
  /** Text piped into the CLI's stdin (default: no stdin at all). */
  input?: string | Buffer;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (!existsSync(join(ROOT, "dist", "cli", "main.js"))) {
    throw new Error("dist/cli/main.js is missing: run `npm run build` before the CLI tests");
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
