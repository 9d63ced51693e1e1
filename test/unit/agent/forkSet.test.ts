/** A fork's replacement result must be plain JSON: refused up front through every door. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DemoModelClient, demoTools, runDemoAgent } from "../../../src/agent/demo.js";
import { forkRun } from "../../../src/agent/forkRun.js";
import { optionsFromEnv } from "../../../src/config/env.js";
import { BlackboxConfigError, ForkError } from "../../../src/errors.js";
import { createSession } from "../../../src/blackbox.js";
import { notPlainJson } from "../../../src/trace/plainJson.js";

const PARALLEL = new URL("../../fixtures/parallel.json", import.meta.url).pathname;
const env = (set: string) => ({
  BLACKBOX_MODE: "fork",
  BLACKBOX_OUT: "out.json",
  BLACKBOX_CASSETTE: "in.json",
  BLACKBOX_FORK_AT: "4",
  BLACKBOX_FORK_SET: set,
});

describe("a fork's replacement result", () => {
  it("notPlainJson names what and where", () => {
    expect(notPlainJson({ a: [1, { b: "x" }], c: null, d: true })).toBeUndefined();
    expect(notPlainJson(JSON.parse('{"a":1e999}'))).toEqual({
      path: "a",
      what: expect.stringMatching(/^the number Infinity/),
    });
    expect(notPlainJson([NaN])?.path).toBe("[0]");
    expect(notPlainJson({ when: new Date(0) })).toEqual({ path: "when", what: "a Date object" });
    expect(notPlainJson({ a: undefined })).toEqual({ path: "a", what: "undefined" });
    expect(notPlainJson(10n)?.what).toBe("a bigint");
    expect(notPlainJson([1, , 2])).toEqual({ path: "[1]", what: "a hole in an array" }); // eslint-disable-line no-sparse-arrays
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(notPlainJson(cycle)?.what).toBe("a cycle (a value that contains itself)");
  });

  it("BLACKBOX_FORK_SET: 1e999 is a config error naming the variable", () => {
    expect(() => optionsFromEnv(env('{"a":1e999}'), "/")).toThrow(BlackboxConfigError);
    expect(() => optionsFromEnv(env('{"a":1e999}'), "/")).toThrow(
      /^BLACKBOX_FORK_SET is not plain JSON: it holds the number Infinity .* at a, which a cassette cannot store\. Use strings, finite numbers/,
    );
    expect(optionsFromEnv(env('{"a":1e300}'), "/")?.forkSet).toEqual({ a: 1e300 });
  });

  it("programmatic forkSet: the session refuses it when created, before the agent runs", () => {
    const opts = { mode: "fork" as const, cassette: PARALLEL, out: join("/tmp", "never-written.json"), forkAt: 4 };
    expect(() => createSession({ ...opts, forkSet: { a: Infinity } })).toThrow(ForkError);
    expect(() => createSession({ ...opts, forkSet: { a: Infinity } })).toThrow(
      /^forkSet is not plain JSON: it holds the number Infinity .* at a/,
    );
    expect(() => createSession({ ...opts, forkSet: new Map() as never })).toThrow(
      /^forkSet is not plain JSON: it holds a Map object, which/,
    );
  });

  it("forkRun: replacement and toolResultMutations, a ForkError instead of a crash in the hash", async () => {
    let t = 1000;
    const parent = await runDemoAgent({ traceId: "demo", now: () => t++ });
    const base = { client: new DemoModelClient(), tools: demoTools };
    await expect(forkRun(parent, { ...base, forkIndex: 3, replacement: { forecast: Infinity } })).rejects.toThrow(
      /^the replacement result is not plain JSON: it holds the number Infinity .* at forecast/,
    );
    await expect(forkRun(parent, { ...base, forkIndex: 4, toolResultMutations: { 3: [-Infinity] } })).rejects.toThrow(
      ForkError,
    );
    await expect(forkRun(parent, { ...base, forkIndex: 4, toolResultMutations: { 3: [-Infinity] } })).rejects.toThrow(
      /^toolResultMutations\[3\] is not plain JSON/,
    );
  });
});
