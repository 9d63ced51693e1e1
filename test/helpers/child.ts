/**
 * Runs a Node process as a user would, optionally with no network at all
 * (`unshare -n`: even loopback is down), and collects its output.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ChildOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Run with no network namespace (root only, as here and in CI). */
  offline?: boolean;
  timeoutMs?: number;
  input?: string;
}

export function runProcess(command: string, args: string[], o: ChildOptions = {}): Promise<ChildResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: "1", ...o.env })) if (v !== undefined) env[k] = v;
  const [cmd, argv] = o.offline ? ["unshare", ["-n", command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: o.cwd ?? ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(o.input ?? "");
  });
}

/** `node --import tsx <script> ...args`: a TypeScript test script in a child process. */
export function runTs(script: string, args: string[], o: ChildOptions = {}): Promise<ChildResult> {
  return runProcess(process.execPath, ["--import", "tsx", script, ...args], o);
}
