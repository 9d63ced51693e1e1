import { basename } from "node:path";
import { ForkError, SessionError } from "../errors.js";
import { OPT_IN_DETECTORS, redactRulesProblem } from "../redact/index.js";
import { findProviderId } from "../trace/neutrality.js";
import { plainJsonProblem } from "../trace/plainJson.js";
import type { Trace } from "../trace/types.js";
import type { SessionOptions } from "./types.js";

const CHOICES = {
  mode: ["off", "record", "replay", "fork", "auto"],
  record: ["missing", "none", "all"],
  match: ["strict", "sequence"],
  continueWith: ["live", "script"],
  scriptedTools: ["run", "refuse"],
} as const;

const KINDS: Record<keyof SessionOptions, string> = {
  mode: "choice",
  out: "string",
  cassette: "string",
  forkAt: "number",
  forkSet: "any",
  continueWith: "choice",
  script: "any",
  scriptedTools: "choice",
  match: "choice",
  traceId: "string",
  providers: "object",
  strictTools: "boolean",
  mcpLive: "boolean",
  now: "function",
  redact: "any",
  record: "choice",
  updateCommand: "string",
};

/**
 * The options object blackbox() was given, checked as the environment's are
 * (src/config/env.ts): an unknown name or a value outside its choices is an error that
 * says what to pass, never a silent default (a mistyped `match` must not turn strict
 * replay into sequence replay, nor a mistyped `continueWith` send a fork to the provider).
 */
export function checkOptions(options: unknown): asserts options is SessionOptions {
  if (options === undefined) return;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new SessionError(
      `blackbox() takes an options object, not ${options === null ? "null" : Array.isArray(options) ? "an array" : `a ${typeof options}`}: pass e.g. blackbox({ mode: "record", out: "runs/name.json" })`,
    );
  }
  const o = options as Record<string, unknown>;
  for (const [key, value] of Object.entries(o)) {
    const kind = (KINDS as Record<string, string>)[key];
    if (kind === undefined) {
      throw new SessionError(
        `blackbox(): unknown option "${key}"; the options are ${Object.keys(KINDS)

          .join(", ")}`,
      );
    }
    if (value === undefined || kind === "any") continue;
    if (kind === "choice") {
      const allowed: readonly string[] = CHOICES[key as keyof typeof CHOICES];
      if (!allowed.includes(value as string)) {
        throw new SessionError(
          `blackbox(): ${key} ${JSON.stringify(value)} is not valid; pass one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`,
        );
      }
    } else if (typeof value !== kind || value === null) {
      throw new SessionError(
        `blackbox(): ${key} must be ${kind === "object" ? "an" : "a"} ${kind}, not ${value === null ? "null" : typeof value}${key === "out" || key === "cassette" ? ` (for example "runs/name.json")` : ""}`,
      );
    }
  }
}

/** A session's mode: "auto" is resolved into record or replay before a session is made (modes/resolve.ts). */
export function sessionModeOf(options: SessionOptions): Exclude<SessionOptions["mode"], "auto" | undefined> {
  if (options.mode === "auto") {
    throw new SessionError(
      'mode "auto" is resolved into record or replay before the session is made (src/session/modes/resolve.ts). This is a bug in Blackbox, please report it',
    );
  }
  return options.mode ?? "off";
}

/** The session's redaction rules, checked: a mistyped rule is an error, never a rule silently off. */
export function checkRedactRules(rules: SessionOptions["redact"]): SessionOptions["redact"] {
  const problem = redactRulesProblem(rules, Object.keys(OPT_IN_DETECTORS));
  if (problem) throw new SessionError(`blackbox(): ${problem}`);
  return rules;
}

/**
 * A fork given a script continues from it unless told otherwise (as BLACKBOX_SCRIPT does without
 * BLACKBOX_CONTINUE).
 */
export function continueWithOf(opts: SessionOptions): "live" | "script" {
  return opts.continueWith ?? (opts.script !== undefined ? "script" : "live");
}

/** A fork writes a new cassette: over its parent, the run it forks would be lost (and its child names it as parent). */
export function checkForkOut(opts: SessionOptions, sameFile: (a: string, b: string) => boolean): void {
  const out = requireOut(opts);
  const cassette = requireCassette(opts);
  if (sameFile(out, cassette)) {
    throw new SessionError(
      `the fork would write its cassette over the one it forks (${cassette}); give it another out file, e.g. ${cassette.replace(/(\.json)?$/i, ".fork.json")}`,
    );
  }
}

/** The output path record and fork need. */
export function requireOut(opts: SessionOptions): string {
  if (!opts.out) {
    throw new SessionError(
      `mode "${opts.mode}" needs an output path: pass blackbox({ out: "runs/name.json" }) or set BLACKBOX_OUT`,
    );
  }
  return opts.out;
}

/** The cassette replay and fork read. */
export function requireCassette(opts: SessionOptions): string {
  if (!opts.cassette) {
    throw new SessionError(
      `mode "${opts.mode}" needs a cassette to read: pass blackbox({ cassette: "runs/name.json" }) or set BLACKBOX_CASSETTE`,
    );
  }
  return opts.cassette;
}

/** An explicit trace id must not look like a provider id (verify would refuse the cassette). */
export function checkTraceId(opts: SessionOptions): void {
  const looksProvider = opts.traceId !== undefined ? findProviderId(opts.traceId) : undefined;
  if (looksProvider) {
    throw new SessionError(
      `traceId ${JSON.stringify(opts.traceId)} looks like a provider id (${looksProvider}), which a cassette must not contain; choose another id`,
    );
  }
}

/**
 * A tool's name is stored in each of its steps, so one that looks like a provider id
 * (toolu_01, call_9) would make the cassette fail verify at finish(), after the whole run:
 * refused when the tool is wrapped (in a mode that records: mode off stores nothing). `where`
 * prefixes the message: bb.tool() or bb.tools(), what the agent called.
 */
export function checkToolName(name: string, where = "bb.tool()"): void {
  const looksProvider = findProviderId(name);
  if (looksProvider) {
    throw new SessionError(
      `${where}: tool name ${JSON.stringify(name)} looks like a provider id (${looksProvider}), which a cassette must not contain; give the tool another name`,
    );
  }
}

/**
 * The id stored in the cassette: the option, else the out file's name with provider-like prefixes defused
 * (resp_x -> resp-x).
 */
export function traceIdOf(opts: SessionOptions): string {
  if (opts.traceId !== undefined) return opts.traceId;
  const id = basename(opts.out ?? "run.json").replace(/\.json$/i, "");
  if (!findProviderId(id)) return id;
  return id.replace(/(srvtoolu|toolu|msg|call|resp)_/g, "$1-").replace(/chatcmpl-/g, "chatcmpl_");
}

/** The fork point of a recorded agent: a tool_result step, with a replacement result. */
export function forkPointOf(parent: Trace, opts: SessionOptions): number {
  requireOut(opts);
  const n = opts.forkAt;
  if (n === undefined || !Number.isInteger(n)) {
    throw new ForkError(
      "a fork needs the step index to fork at: pass forkAt (--at N), the index of a tool_result step",
    );
  }
  const step = parent.steps[n];
  if (!step) throw new ForkError(`cannot fork at step ${n}: the cassette has steps 0 to ${parent.steps.length - 1}`);
  if (step.type !== "tool_result") {
    const results = parent.steps.filter((s) => s.type === "tool_result").map((s) => s.index);
    throw new ForkError(
      `cannot fork a recorded agent at step ${n}: it is a ${step.type}, and the fork point must be a tool_result` +
        (results.length
          ? ` (tool_result steps: ${results.join(", ")})`
          : " (this cassette has none: wrap the tools with bb.tools or the config)"),
    );
  }
  if (opts.forkSet === undefined) {
    throw new ForkError("a fork needs the replacement result: pass forkSet (--set <json|@file>)");
  }
  const bad = plainJsonProblem("forkSet", opts.forkSet);
  if (bad) throw new ForkError(bad);
  return n;
}
