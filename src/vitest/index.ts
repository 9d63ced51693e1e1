/**
 * `@ardaulas/blackbox/vitest`: `useCassette()`, a session per test. The cassette is named
 * after the test (src/vitest/names.ts); the session (src/testing/session.ts) ends with the
 * test: a replay checks that every recorded call was used, a recording is written only when
 * the test passed. vitest is a peer: this file is never on the preload's
 * path, and it reads the test from the context vitest hands the test (test.concurrent) or
 * from vitest's current test.
 */
import { onTestFinished, TestRunner, type TestContext } from "vitest";
import { SessionError } from "../errors.js";
import type { RecordMode } from "../session/modes/resolve.js";
import { testSession } from "../testing/session.js";
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
  const used = (cassettesOf.get(test) ?? cassettesOf.set(test, new Set()).get(test))!;
  // with the plugin, the calls of clients made without bb.fetch are this test's; without it, refused in a replay
  const session = testSession({
    cassette,
    command,
    record: options.record,
    match: options.match,
    capture: process.env[CAPTURE_ENV] === "1",
    used,
  });
  const end = (task: TaskLike): Promise<void> =>
    session.end(
      task.result?.state === "pass",
      (task.result?.errors ?? []).map((e) => e.message ?? ""),
    );
  if (context) context.onTestFinished(({ task }) => end(task as unknown as TaskLike));
  else onTestFinished(({ task }) => end(task as unknown as TaskLike));
  return session.bb;
}

export type { RecordMode };
