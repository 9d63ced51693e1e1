/**
 * `@ardaulas/blackbox/jest`: `useCassette()`, a session per test (src/testing/session.ts),
 * as `@ardaulas/blackbox/vitest` gives. The test is the one Jest's expect names
 * (`expect.getState().currentTestIdentity()`, jest-circus's test in whose execution the call
 * is: the right one in test.concurrent too) in the file `expect.getState().testPath`; its
 * end is jest-circus's `test_done` event, after its afterEach hooks and Jest's own
 * end-of-test checks (expect.assertions), with the errors that decide whether it passed. An
 * error said there (an unused recorded call) is pushed onto the test's errors, which fails
 * it. Nothing of Jest is imported: the file runs in the test file's globals, where Jest put
 * `expect` and jest-circus its event handlers. Jest's CommonJS runtime loads this file's
 * CommonJS build (dist/jest/index.cjs, scripts/bundle-jest.mjs); its ESM mode the ES module.
 */
import { SessionError } from "../errors.js";
import type { RecordMode } from "../session/modes/resolve.js";
import type { MatchMode, Session } from "../session/types.js";
import { cassetteOf } from "../testing/names.js";
import { testSession, type TestSession } from "../testing/session.js";
import { errorMessages, fullTestName, jestCommand, type JestTestLike } from "./names.js";

export interface UseCassetteOptions {
  /** The folder of the cassettes, relative to the test file's folder or absolute (default: `__cassettes__`). */
  folder?: string;
  /** The record mode when BLACKBOX_RECORD is not set (default: "none" when CI is set, else "missing"). */
  record?: RecordMode;
  /** "strict" (default) compares every request with the recording; "sequence" serves it in order. */
  match?: MatchMode;
}

interface ExpectState {
  testPath?: string;
  currentTestIdentity?: () => JestTestLike | undefined;
}
interface CircusEvent {
  name: string;
  test?: JestTestLike;
}
type EventHandler = (event: CircusEvent) => unknown;

/** Where jest-circus keeps its event handlers, in the test file's globals (its Symbol.for). */
const EVENT_HANDLERS = Symbol.for("EVENT_HANDLERS");

/** The sessions each running test has, and the cassettes they hold. */
const ofTest = new WeakMap<JestTestLike, { used: Set<string>; sessions: TestSession[] }>();
let listening = false;

/** At a test's end (test_done), its sessions end, with its errors; what they say fails the test. */
const onEvent: EventHandler = async (event) => {
  if (event.name !== "test_done" || !event.test) return;
  const test = event.test;
  const entry = ofTest.get(test);
  if (!entry) return;
  ofTest.delete(test);
  test.errors ??= [];
  for (const session of entry.sessions) {
    const errors = errorMessages(test.errors);
    try {
      await session.end(errors.length === 0, errors);
    } catch (err) {
      test.errors.push(err);
    }
  }
};

function listen(): void {
  if (listening) return;
  const handlers = (globalThis as unknown as Record<symbol, unknown>)[EVENT_HANDLERS];
  if (!Array.isArray(handlers)) {
    throw new SessionError(
      'useCassette() from @ardaulas/blackbox/jest ends its session with the test through jest-circus, Jest\'s default runner, and it is not running this test: remove testRunner: "jest-jasmine2" from the Jest config (or use blackbox({ mode: "auto", cassette }) and bb.finish(): docs/testing.md#without-the-test-helpers)',
    );
  }
  (handlers as EventHandler[]).push(onEvent);
  listening = true;
}

/** Whether jest-circus is running a test (its state, under a symbol of its own in the test file's globals). */
function circusRunning(): boolean {
  const key = Object.getOwnPropertySymbols(globalThis).find((k) => k.description === "JEST_STATE_SYMBOL");
  const circus = key && (globalThis as unknown as Record<symbol, { currentlyRunningTest?: unknown }>)[key];
  return !!circus?.currentlyRunningTest;
}

/** The running test useCassette() was called in, and its file. */
function currentTest(): { test: JestTestLike; testPath: string } {
  const expect = (globalThis as { expect?: { getState?: () => ExpectState } }).expect;
  const state = typeof expect?.getState === "function" ? expect.getState() : undefined;
  if (!state) {
    throw new SessionError(
      "useCassette() from @ardaulas/blackbox/jest names its cassette after the Jest test it is called in, which it reads from Jest's expect, and there is no expect in this file's globals: call it in a test run by Jest, with the globals Jest injects (injectGlobals: true, the default)",
    );
  }
  // set by jest-circus when the tests start to run: absent while the file is loaded, and in a Jest before 30
  if (typeof state.currentTestIdentity !== "function" && circusRunning()) {
    throw new SessionError(
      "useCassette() from @ardaulas/blackbox/jest needs Jest 30 or later (it reads the running test from expect.getState().currentTestIdentity, which older versions lack): npm install --save-dev jest@30",
    );
  }
  const test = state.currentTestIdentity?.();
  if (!test || !state.testPath) {
    throw new SessionError(
      "useCassette() names its cassette after the test it is called in and ends with it: call it inside a test (test('...', () => { const bb = useCassette(); ... })), not at the top of the file or in beforeAll",
    );
  }
  return { test, testPath: state.testPath };
}

/**
 * A session for this test: `bb.fetch` for the SDK clients, `bb.tools()` for the tools.
 * `name`: the cassette's name in the folder (default: the test's full name).
 */
export function useCassette(name?: string, options: UseCassetteOptions = {}): Session {
  const { test, testPath } = currentTest();
  listen();
  const testName = fullTestName(test);
  const cassette = cassetteOf(testPath, name ?? testName, options.folder);
  const entry = ofTest.get(test) ?? ofTest.set(test, { used: new Set(), sessions: [] }).get(test)!;
  const session = testSession({
    cassette,
    command: jestCommand(testPath, testName),
    record: options.record,
    match: options.match,
    used: entry.used,
  });
  entry.sessions.push(session);
  return session.bb;
}

export type { RecordMode };
