/**
 * The register hook's environment contract (spec: cli-and-register.md) read into
 * SessionOptions. Every bad value is a BlackboxConfigError naming the variable.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { BlackboxConfigError } from "../errors.js";
import { PROVIDER_NAMES, providers } from "../providers/index.js";
import { plainJsonProblem } from "../trace/plainJson.js";
import type { JsonValue } from "../trace/types.js";
import { commandOf } from "../process/command.js";
import { PLACEHOLDER_KEY, resolveAuto } from "../session/modes/resolve.js";
import type { SessionOptions } from "../session/types.js";

type Env = Record<string, string | undefined>;

const API_KEY_ENVS = [
  ...new Set(PROVIDER_NAMES.flatMap((p) => [providers[p].apiKeyEnv, ...(providers[p].moreKeyEnvs ?? [])])),
];

/**
 * Replay and a scripted fork send nothing upstream, but the SDKs refuse to build a request
 * without an API key: each key that is missing is set to a placeholder never sent (the
 * CLI for the command it starts, the bare hook for its own process and those it starts).
 */
export function setPlaceholderKeys(env: Env): void {
  for (const name of API_KEY_ENVS) env[name] ||= PLACEHOLDER_KEY;
}

/**
 * A process that sends (record, a live fork) drops a placeholder it inherited (a replay's
 * child that records): sent upstream it would fail as a wrong key, while without it the
 * SDK says that no key is set.
 */
export function dropPlaceholderKeys(env: Env): void {
  for (const name of API_KEY_ENVS) if (env[name] === PLACEHOLDER_KEY) delete env[name];
}

/** Whether a run with these options answers every model call itself (replay, fork --script). */
export function sendsNothing(options: Pick<SessionOptions, "mode" | "continueWith">): boolean {
  return options.mode === "replay" || (options.mode === "fork" && options.continueWith === "script");
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = env[name];
  if (value === undefined || value.trim() === "") return fallback;
  const word = value.trim().toLowerCase(); // OFF, Replay: what a shell user types
  if ((allowed as readonly string[]).includes(word)) return word as T;
  throw new BlackboxConfigError(`${name}="${value}" is not valid; set it to one of: ${allowed.join(", ")}`);
}

function required(env: Env, name: string, mode: string, what: string): string {
  const value = env[name];
  if (!value) throw new BlackboxConfigError(`BLACKBOX_MODE=${mode} needs ${name}; set it to ${what}`);
  return value;
}

/**
 * The session options the environment asks for, or undefined when BLACKBOX_MODE is unset/off.
 * BLACKBOX_MODE=auto replays BLACKBOX_CASSETTE or records it, by BLACKBOX_RECORD (src/session/modes/resolve.ts).
 */
export function optionsFromEnv(env: Env, cwd: string): SessionOptions | undefined {
  const mode = oneOf(env, "BLACKBOX_MODE", ["off", "record", "replay", "fork", "auto"] as const, "off");
  if (mode === "off") return undefined;
  const options: SessionOptions = {
    mode,
    match: oneOf(env, "BLACKBOX_MATCH", ["strict", "sequence"] as const, "strict"),
    ...(env.BLACKBOX_TRACE_ID ? { traceId: env.BLACKBOX_TRACE_ID } : {}),
  };
  if (mode === "auto") {
    options.cassette = resolve(
      cwd,
      required(env, "BLACKBOX_CASSETTE", mode, "the cassette file to replay, or to record when it is missing"),
    );
    return resolveAuto(options, env, existsSync, { command: commandOf(env, process.argv, cwd) });
  }
  if (mode === "record" || mode === "fork")
    options.out = resolve(cwd, required(env, "BLACKBOX_OUT", mode, "the cassette file to write"));
  if (mode === "replay" || mode === "fork") {
    options.cassette = resolve(cwd, required(env, "BLACKBOX_CASSETTE", mode, "the cassette file to read"));
  }
  if (mode === "replay" && env.BLACKBOX_MCP_LIVE === "1") options.mcpLive = true;
  if (mode === "fork") {
    const at = required(env, "BLACKBOX_FORK_AT", mode, "the index of the tool_result step to fork at");
    if (!/^\d+$/.test(at))
      throw new BlackboxConfigError(`BLACKBOX_FORK_AT="${at}" is not a step index; set it to a whole number such as 3`);
    options.forkAt = Number(at);
    const set = required(env, "BLACKBOX_FORK_SET", mode, "the replacement tool result as JSON");
    try {
      options.forkSet = JSON.parse(set) as JsonValue;
    } catch {
      throw new BlackboxConfigError(
        `BLACKBOX_FORK_SET is not valid JSON (${set.slice(0, 60)}); quote strings, e.g. '"sunny"' or '{"temp": 30}'`,
      );
    }
    const bad = plainJsonProblem("BLACKBOX_FORK_SET", options.forkSet);
    if (bad) throw new BlackboxConfigError(bad);
    options.continueWith = oneOf(
      env,
      "BLACKBOX_CONTINUE",
      ["live", "script"] as const,
      env.BLACKBOX_SCRIPT ? "script" : "live",
    );
    if (options.continueWith === "script") {
      options.script = resolve(
        cwd,
        required(env, "BLACKBOX_SCRIPT", mode, "a JSON file listing the model outputs to continue with"),
      );
      options.scriptedTools = oneOf(env, "BLACKBOX_SCRIPTED_TOOLS", ["run", "refuse"] as const, "run");
    }
  }
  return options;
}
