/**
 * `sweep()` in code: the children are fork sessions in this process, each handed to the
 * caller's `run` (docs/sweep.md). The plan, reuse, concurrency and the matrix are
 * src/agent/sweep.ts's; this file wires a child to a session and the library's files.
 */
import { resolve } from "node:path";
import { createSession, libraryPorts, publicSession } from "./blackbox.js";
import { SessionError } from "./errors.js";
import { defaultSweepDir, runSweep, type ChildRun, type ChildSpec } from "./agent/sweep.js";
import type { SweepCell, SweepGrade, SweepResult } from "./agent/sweepMatrix.js";
import { roundAfter } from "./agent/sweepRound.js";
import { resolveVariants, type VariantSpec } from "./agent/sweepVariants.js";
import { errorMessageOf } from "./session/json.js";
import type { MatchMode, Session } from "./session/types.js";
import { loadVerifiedTraceSync } from "./store/loadVerified.js";
import type { JsonValue, ModelOutput, Trace } from "./trace/types.js";

export interface SweepOptions {
  /** The recorded run to sweep. */
  cassette: string;
  /** Tool result step indexes (default: every tool_result). */
  at?: number[] | "all";
  variants: VariantSpec[];
  /** Runs the agent on a child's session; what it returns is the child's answer (else the last reply's text). */
  run: (session: Session, cell: { at: number; variant: string; value: JsonValue }) => unknown;
  /** After the fork point: the provider ("live", the default without a script) or `script`. */
  continueWith?: "live" | "script";
  /** Scripted model outputs every child continues with (or a path to a JSON list of them). */
  script?: ModelOutput[] | string;
  match?: MatchMode;
  /** Children running at once (default 1). */
  jobs?: number;
  /** No new child starts once the children have made this many model calls past their fork points. */
  maxCalls?: number;
  /** The folder for the children and sweep.json (default `<cassette>.sweep/` beside it). */
  out?: string;
  /** Judges a finished child: true / false or { pass, detail }. */
  grade?: (cell: SweepCell, child: Trace) => boolean | SweepGrade | Promise<boolean | SweepGrade>;
  /**
   * Names the agent's version: with it, a child of an earlier sweep in `out` with the same parent, fork point,
   * value, script and key is reused instead of run again. Without it, every child runs.
   */
  key?: string;
  /** Called as each child ends. */
  onProgress?: (done: number, total: number, cell: SweepCell) => void;
}

/** The session a child's `run` gets: the fork session, with its finish() seen. */
function childSession(session: Session, state: { finished: boolean }): Session {
  return Object.freeze({
    get mode() {
      return session.mode;
    },
    fetch: session.fetch,
    tools: session.tools,
    tool: session.tool,
    finish: (options?: Parameters<Session["finish"]>[0]) => {
      state.finished = true;
      return session.finish(options);
    },
    dispose: () => session.dispose(),
  } as Session);
}

export async function sweep(options: SweepOptions): Promise<SweepResult> {
  if (!options || typeof options.cassette !== "string" || typeof options.run !== "function") {
    throw new SessionError(
      "sweep() needs { cassette, variants, run }: the recorded run, what to try at each tool result, and run: (session) => yourAgent(session)",
    );
  }
  const cassette = resolve(options.cassette);
  const parent = loadVerifiedTraceSync(cassette);
  const variants = resolveVariants(options.variants ?? []);
  const continueWith = options.continueWith ?? (options.script !== undefined ? "script" : "live");
  const ports = libraryPorts();
  const script = typeof options.script === "string" ? ports.readText(resolve(options.script)) : options.script;

  const runChild = async (spec: ChildSpec): Promise<ChildRun> => {
    const engine = createSession(
      {
        mode: "fork",
        cassette,
        out: spec.out,
        forkAt: spec.point.at,
        forkSet: spec.value,
        continueWith,
        ...(options.script === undefined ? {} : { script: options.script }),
        ...(options.match === undefined ? {} : { match: options.match }),
        // a scripted child runs no tool: the fork round's calls come from the parent, any other is refused
        ...(continueWith === "script" ? { scriptedTools: "refuse" as const } : {}),
      },
      ports,
    );
    const state = { finished: false };
    const session = childSession(publicSession(engine), state);
    try {
      let result: unknown;
      let error: unknown;
      try {
        result = await options.run(session, { at: spec.point.at, variant: spec.variant.name, value: spec.value });
      } catch (err) {
        error = err ?? new Error("the agent threw nothing");
      }
      if (!state.finished)
        await session.finish(error !== undefined ? { error } : result === undefined ? undefined : { result });
    } catch (err) {
      return { error: errorMessageOf(err) };
    } finally {
      session.dispose();
    }
    return { answered: continueWith === "script" ? roundAfter(parent, spec.point.at) : [] };
  };

  const grade = options.grade;
  return runSweep(
    {
      parentPath: cassette,
      parent,
      at: options.at ?? "all",
      variants,
      outDir: resolve(options.out ?? defaultSweepDir(cassette)),
      continueWith,
      inputs: { key: options.key ?? null, script: (script ?? null) as JsonValue, match: options.match ?? "strict" },
      command: null,
      fresh: options.key === undefined,
      ...(options.jobs === undefined ? {} : { jobs: options.jobs }),
      ...(options.maxCalls === undefined ? {} : { maxCalls: options.maxCalls }),
    },
    {
      runChild,
      loadChild: (file) => {
        try {
          return loadVerifiedTraceSync(file);
        } catch {
          return undefined;
        }
      },
      ...(grade
        ? {
            grade: async (cell: SweepCell) => {
              try {
                const verdict = await grade(cell, loadVerifiedTraceSync(cell.cassette!));
                return typeof verdict === "boolean" ? { pass: verdict } : verdict;
              } catch (err) {
                return { pass: false, detail: `the grader threw: ${errorMessageOf(err)}` };
              }
            },
          }
        : {}),
      ...(options.onProgress ? { progress: options.onProgress } : {}),
    },
  );
}
