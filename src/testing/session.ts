/**
 * A session per test, for the test runners' helpers (src/vitest, src/jest): the record mode
 * chosen by the record modes (src/session/modes/resolve.ts) from whether the cassette exists,
 * and the end the runner calls when the test is over: a replay checks that every recorded
 * call was used, a recording is written only when the test passed. While it replays (or
 * captures), a model call that does not go through its bb.fetch is the lockdown's
 * (src/interception/lockdown.ts). The runner's helper knows the test; this file knows none.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRun, createSession, libraryPorts } from "../blackbox.js";
import { RUN_INDEX, runFolderOf } from "../trace/runIndex.js";
import { setPlaceholderKeys } from "../config/env.js";
import { lockDown } from "../interception/lockdown.js";
import { publicSession } from "../publicSession.js";
import { SessionError } from "../errors.js";
import { resolveAuto, type RecordMode } from "../session/modes/resolve.js";
import type { MatchMode, Session } from "../session/types.js";

export interface TestSessionInput {
  cassette: string;
  /** The command that runs this test alone, BLACKBOX_RECORD=... put in front of it in the errors. */
  command: string;
  record?: RecordMode;
  match?: MatchMode;
  /** Calls of clients made without bb.fetch are this test's (the vitest plugin), else refused in a replay. */
  capture?: boolean;
  /** The cassettes this test already has a session for (a second session of one cassette is refused). */
  used: Set<string>;
}

export interface TestSession {
  bb: Session;
  /**
   * Ends the session with its test: writes the recording when the test passed, checks the replay. `errors`: the
   * test's error messages (a divergence the agent caught is thrown unless one of them says it already).
   */
  end(passed: boolean, errors: readonly string[]): Promise<void>;
}

export function testSession(input: TestSessionInput): TestSession {
  const { cassette, command, used } = input;
  // a test whose agent held several conversations at once was recorded as the folder of the cassette's name
  const folder = runFolderOf(cassette);
  const asRun = !existsSync(cassette) && existsSync(join(folder, RUN_INDEX));
  const existed = existsSync(cassette) || asRun;
  const resolved = resolveAuto(
    { mode: "auto", cassette, record: input.record, match: input.match },
    process.env,
    () => existed,
    { command },
  );
  if (used.has(cassette)) {
    throw new SessionError(
      `useCassette() was called twice for ${cassette} in one test: give each session of the test a name of its own (useCassette("first"), useCassette("second"))`,
    );
  }
  used.add(cassette);
  // the test ends the session, never the process's end: a test cut short writes nothing
  const ports = { ...libraryPorts(), onProcessExit: undefined };
  // a recording is a run (several conversations at once: the folder of the cassette's name), as under the hook
  const engine =
    resolved.mode === "record"
      ? createRun(resolved, ports, "file")
      : resolved.mode === "replay" && asRun
        ? createRun({ ...resolved, cassette: `${folder}/` }, ports)
        : createSession(resolved, ports);
  const replaying = engine.mode === "replay";
  // as the CLI does for the command it replays: the SDKs want a key to build a request, and a replay sends none
  if (replaying) setPlaceholderKeys(process.env);
  const capture = input.capture === true;
  const release = replaying || capture ? lockDown({ engine, cassette, capture }) : () => {};

  let finishedByTest = false;
  const base = publicSession(engine);
  const bb: Session = Object.freeze({
    get mode() {
      return engine.mode;
    },
    fetch: base.fetch,
    tools: base.tools,
    tool: base.tool,
    finish: (o?: Parameters<Session["finish"]>[0]) => {
      finishedByTest = true;
      return engine.finish(o);
    },
    dispose: base.dispose,
  });

  let ended = false;
  const end = async (passed: boolean, errors: readonly string[]): Promise<void> => {
    if (ended) return;
    ended = true;
    try {
      if (finishedByTest) return;
      if (!replaying) {
        if (!passed) {
          console.warn(
            `blackbox: the test failed, so its recording was not written: ${existed ? `${cassette} is left as it was` : `there is still no cassette at ${cassette}`}.`,
          );
          return;
        }
        mkdirSync(dirname(cassette), { recursive: true });
        await engine.finish();
        return;
      }
      if (passed) {
        await engine.finish(); // every recorded call used, the run ended as recorded
        return;
      }
      // a divergence the agent caught (its SDK error swallowed) is said once, as the test's own error
      const err = engine.firstError;
      const first = err?.message.split("\n")[0];
      if (err && first && !errors.some((m) => m.includes(first))) throw err;
    } finally {
      engine.dispose();
      release();
    }
  };
  return { bb, end };
}
