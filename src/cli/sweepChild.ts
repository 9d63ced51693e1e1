/**
 * A sweep child of a command: the command run under the hook as `blackbox fork` runs it
 * (the same BLACKBOX_* variables, a run token of its own so a process tree writes one
 * cassette), but with its output kept in `<child>.log` beside the cassette instead of on
 * the terminal, since several children run at once. And the --verify command, run per
 * child with the child's cassette and answer in its environment.
 */
import { spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { findConfig } from "../config/index.js";
import { endRunClaim, locksDir, runClaim, runToken } from "../process/claim.js";
import type { ChildRun, ChildSpec } from "../agent/sweep.js";
import type { SweepCell, SweepGrade } from "../agent/sweepMatrix.js";
import { hookedEnv } from "./spawnHooked.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `command` with `env`, its stdout and stderr together; 127 when it cannot start. */
function runCaptured(command: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const [file, ...args] = command;
    const child = spawn(file!, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.on("error", (err: NodeJS.ErrnoException) =>
      resolve({
        code: 127,
        output: `cannot run "${command.join(" ")}" (${err.code === "ENOENT" ? "command not found" : err.message})`,
      }),
    );
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output }));
  });
}

/** The last line of `output` that says why (a `blackbox:` line first), clipped. */
function why(output: string): string | undefined {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const last = (f: (l: string) => boolean) => [...lines].reverse().find(f);
  const line = last((l) => l.startsWith("blackbox:")) ?? last((l) => /^\w*Error\b/.test(l)) ?? lines.at(-1);
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

export interface CommandChildOptions {
  command: string[];
  cassette: string;
  script: string | undefined;
  match: "strict" | "sequence";
  /** --config, else BLACKBOX_CONFIG, resolved. */
  config: string | undefined;
}

/** Runs one child of the sweep under the hook; the cassette is at `spec.out` when it worked. */
export async function runCommandChild(o: CommandChildOptions, spec: ChildSpec): Promise<ChildRun> {
  rmSync(spec.out, { force: true }); // a child of an earlier sweep with other inputs must not pass for this one
  const token = runToken();
  const env = hookedEnv(
    {
      BLACKBOX_MODE: "fork",
      BLACKBOX_CASSETTE: o.cassette,
      BLACKBOX_OUT: spec.out,
      BLACKBOX_FORK_AT: String(spec.point.at),
      BLACKBOX_FORK_SET: JSON.stringify(spec.value),
      BLACKBOX_CONTINUE: o.script ? "script" : "live",
      BLACKBOX_SCRIPT: o.script,
      // a scripted child runs no tool: the fork round's calls come from the parent, any other is refused
      BLACKBOX_SCRIPTED_TOOLS: o.script ? "refuse" : undefined,
      BLACKBOX_MATCH: o.match,
      // the config is the one found from here, as for blackbox fork, even if the command changes folder
      ...(o.config ? { BLACKBOX_CONFIG: o.config } : { BLACKBOX_CONFIG_DEFAULT: findConfig(process.cwd(), undefined) }),
      BLACKBOX_RUN: token,
      BLACKBOX_LOCKS: locksDir(),
    },
    { placeholderKeys: o.script !== undefined },
  );
  let r: { code: number; output: string };
  try {
    r = await runCaptured(o.command, env);
    // a process of the tree still holding the claim is writing the cassette: wait for it
    while (runClaim(spec.out, token).holder !== undefined) await sleep(50);
  } finally {
    endRunClaim(spec.out, token);
  }
  writeFileSync(spec.out.replace(/\.json$/i, ".log"), r.output);
  if (existsSync(spec.out)) return {};
  const reason = why(r.output);
  return {
    error: `the command exited with code ${r.code} and wrote no cassette${reason ? `: ${reason}` : ""} (its output: ${spec.out.replace(/\.json$/i, ".log")})`,
  };
}

/** The --verify command's verdict on a child: exit 0 passes; its last output line is the detail. */
export async function verifyChild(verify: string, cell: SweepCell): Promise<SweepGrade> {
  const answer =
    cell.answer === undefined ? "" : typeof cell.answer === "string" ? cell.answer : JSON.stringify(cell.answer);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BLACKBOX_SWEEP_CASSETTE: cell.cassette ?? "",
    BLACKBOX_SWEEP_ANSWER: answer,
    BLACKBOX_SWEEP_STATUS: cell.status,
    BLACKBOX_SWEEP_FAILURE: cell.failure ?? "",
    BLACKBOX_SWEEP_AT: String(cell.at),
    BLACKBOX_SWEEP_VARIANT: cell.variant,
    BLACKBOX_SWEEP_VALUE: JSON.stringify(cell.value),
  };
  const r = await runCaptured(["sh", "-c", verify], env);
  const detail = why(r.output);
  return { pass: r.code === 0, ...(detail === undefined ? {} : { detail }) };
}
