/**
 * A Jest test's full name and the command that records its cassette again:
 * `npx jest <file> -t "<describe> <test>"` (Jest's -t, --testNamePattern, is a regular
 * expression over the same full name: jest-circus's getTestID). The cassette's path is
 * src/testing/names.ts's, shared with vitest.
 */
import { runnerCommand } from "../testing/names.js";

/** The parts of a jest-circus test read here: its name, its describe blocks (the root one has no parent). */
export interface JestTestLike {
  name: string;
  parent?: JestTestLike;
  errors?: unknown[];
}

/** The test's name with its describe blocks, as Jest's -t matches it: "trip books Lisbon". */
export function fullTestName(test: JestTestLike): string {
  const names: string[] = [];
  for (let t: JestTestLike | undefined = test; t?.parent; t = t.parent) names.unshift(t.name);
  return names.join(" ");
}

/** `npx jest <file> -t "<name>"`, the file relative to the folder Jest runs in. */
export function jestCommand(testFile: string, name: string, cwd: string = process.cwd()): string {
  return runnerCommand("npx jest", testFile, name, cwd);
}

/** A test's errors as jest-circus keeps them (an error, or [error, the error made where the test was declared]), as messages. */
export function errorMessages(errors: readonly unknown[] | undefined): string[] {
  return (errors ?? []).map((e) => {
    const err = Array.isArray(e) ? (e[0] as unknown) : e;
    return err instanceof Object && typeof (err as Error).message === "string" ? (err as Error).message : String(err);
  });
}
