/**
 * `@ardaulas/blackbox/vitest`: `useCassette()`, a session per test. The cassette is named
 * after the test (src/vitest/names.ts); record or replay is chosen by the record modes
 * (src/session/modes/resolve.ts); the session ends with the test: a replay checks that every
 * recorded call was used, a recording is written only when the test passed. While it
 * replays, a model call that does not go through its bb.fetch fails the test
 * (src/interception/lockdown.ts). vitest is a peer: this file is never on the preload's
 * path, and it reads the test from the context vitest hands the test (test.concurrent) or
 * from vitest's current test.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { onTestFinished, TestRunner, type TestContext } from "vitest";
import { createSession, libraryPorts } from "../blackbox.js";
import { setPlaceholderKeys } from "../config/env.js";
import { lockDown } from "../interception/lockdown.js";
import { publicSession } from "../publicSession.js";
import { SessionError } from "../errors.js";
import { resolveAuto, type RecordMode } from "../session/modes/resolve.js";
import type { MatchMode, Session } from "../session/types.js";
import { cassetteOf, fullTestName, vitestCommand, type TaskLike } from "./names.js";
import { CAPTURE_ENV } from "./plugin.js";

export { blackboxPlugin } from "./plugin.js";

export interface UseCassetteOptions {
  /** The folder of the cassettes, relative to the test file's folder or absolute (default: `__cassettes__`). */
  folder?: string;
  /** The record mode when BLACKBOX_RECORD is not set (default: "none" when CI is set, else "missing"). */
  record?: RecordMode;
  /** "strict" (default) compares every request with the recording; "sequence" serves it in order. */
  match?: MatchMode;
  /** The test's context, as vitest passes it to the test function: needed in test.concurrent. */
  context?: TestContext;
}

/** The cassettes each test has a session for (a second useCassette() of one cassette is refused). */
const cassettesOf = new WeakMap<object, Set<string>>();

function isContext(value: unknown): value is TestContext {
  // vitest 4's context is a function with the context's members
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const c = value as { task?: unknown; onTestFinished?: unknown };
  return typeof c.task === "object" && typeof c.onTestFinished === "function";
}

/** The test useCassette() was called in, and the context to end with. */
function currentTest(context: TestContext | undefined): TaskLike {
  if (context) return context.task as unknown as TaskLike;
  const test = TestRunner.getCurrentTest() as unknown as TaskLike | undefined;
  if (!test) {
    throw new SessionError(
      "useCassette() names its cassette after the test it is called in and ends with it: call it inside a test (test('...', () => { const bb = useCassette(); ... }))",
    );
  }
  if (test.concurrent) {
    throw new SessionError(
      `useCassette() in test.concurrent needs the test's context (several tests run at once, so the current one is not known): test.concurrent(${JSON.stringify(test.name)}, async (context) => { const bb = useCassette(context); ... })`,
    );
  }
  return test;
}

/**
 * A session for this test: `bb.fetch` for the SDK clients, `bb.tools()` for the tools.
 * `name`: the cassette's name in the folder (default: the test's full name); pass the test's
 * context (as `name` or `options.context`) in test.concurrent.
 */
export function useCassette(name?: string | TestContext, options: UseCassetteOptions = {}): Session {
  const context = options.context ?? (isContext(name) ? name : undefined);
  const test = currentTest(context);
  const testFile = test.file?.filepath;
  if (!testFile) throw new SessionError("useCassette(): the test's file is not known; call it inside a test");
  const testName = fullTestName(test);
  const cassette = cassetteOf(testFile, typeof name === "string" ? name : testName, options.folder);
  const command = vitestCommand(testFile, testName);
  const existed = existsSync(cassette);
  const resolved = resolveAuto(
    { mode: "auto", cassette, record: options.record, match: options.match },
    process.env,
    () => existed,
    { command },
  );
  const used = (cassettesOf.get(test) ?? cassettesOf.set(test, new Set()).get(test))!;
  if (used.has(cassette)) {
    throw new SessionError(
      `useCassette() was called twice for ${cassette} in one test: give each session of the test a name of its own (useCassette("first"), useCassette("second"))`,
    );
  }
  used.add(cassette);
  // the test ends the session (onTestFinished), never the process's end: a test cut short writes nothing
  const engine = createSession(resolved, { ...libraryPorts(), onProcessExit: undefined });
  const replaying = engine.mode === "replay";
  // as the CLI does for the command it replays: the SDKs want a key to build a request, and a replay sends none
  if (replaying) setPlaceholderKeys(process.env);
  // with the plugin, the calls of clients made without bb.fetch are this test's; without it, refused in a replay
  const capture = process.env[CAPTURE_ENV] === "1";
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

  const end = async (task: TaskLike): Promise<void> => {
    const passed = task.result?.state === "pass";
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
      if (err && first && !task.result?.errors?.some((e) => e.message?.includes(first))) throw err;
    } finally {
      engine.dispose();
      release();
    }
  };
  if (context) context.onTestFinished(({ task }) => end(task as unknown as TaskLike));
  else onTestFinished(({ task }) => end(task as unknown as TaskLike));
  return bb;
}

export type { RecordMode };
