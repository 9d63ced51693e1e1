import { basename } from "node:path";
import { ForkError, SessionError } from "../errors.js";
import { findProviderId } from "../trace/neutrality.js";
import { plainJsonProblem } from "../trace/plainJson.js";
import type { Trace } from "../trace/types.js";
import type { SessionOptions } from "./types.js";

/** The output path record and fork need. */
export function requireOut(opts: SessionOptions): string {
  if (!opts.out) {
    throw new SessionError(`mode "${opts.mode}" needs an output path: pass blackbox({ out: "runs/name.json" }) or set BLACKBOX_OUT`);
  }
  return opts.out;
}

/** The cassette replay and fork read. */
export function requireCassette(opts: SessionOptions): string {
  if (!opts.cassette) {
    throw new SessionError(`mode "${opts.mode}" needs a cassette to read: pass blackbox({ cassette: "runs/name.json" }) or set BLACKBOX_CASSETTE`);
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

/** The id stored in the cassette: the option, else the out file's name with provider-like prefixes defused (resp_x -> resp-x). */
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
    throw new ForkError("a fork needs the step index to fork at: pass forkAt (--at N), the index of a tool_result step");
  }
  const step = parent.steps[n];
  if (!step) throw new ForkError(`cannot fork at step ${n}: the cassette has steps 0 to ${parent.steps.length - 1}`);
  if (step.type !== "tool_result") {
    const results = parent.steps.filter((s) => s.type === "tool_result").map((s) => s.index);
    throw new ForkError(
      `cannot fork a recorded agent at step ${n}: it is a ${step.type}, and the fork point must be a tool_result` +
        (results.length ? ` (tool_result steps: ${results.join(", ")})` : " (this cassette has none: wrap the tools with bb.tools or the config)"),
    );
  }
  if (opts.forkSet === undefined) {
    throw new ForkError("a fork needs the replacement result: pass forkSet (--set <json|@file>)");
  }
  const bad = plainJsonProblem("forkSet", opts.forkSet);
  if (bad) throw new ForkError(bad);
  return n;
}
