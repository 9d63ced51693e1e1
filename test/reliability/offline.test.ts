/**
 * Offline proof. The replaying children of the integration tests run under
 * `unshare -n` (test/helpers/child.ts `offline: true`); this shows that such a child
 * really has no network (not even loopback to the fake provider, not even DNS), with
 * the same child online as the control, and runs the in-process replay and scripted
 * fork test files (and the examples' replay tests) again under `unshare -n`, so an
 * accidental network call in replay fails CI. docs/reliability.md lists every test
 * that runs offline.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { runProcess } from "../helpers/child.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());

const probe = `
const net = require("node:net");
const dns = require("node:dns");
const port = Number(process.argv[1]);
const result = {};
const connect = new Promise((resolve) => {
  const s = net.connect({ host: "127.0.0.1", port, timeout: 3000 });
  s.on("connect", () => { result.connect = "connected"; s.destroy(); resolve(); });
  s.on("error", (e) => { result.connect = e.code; resolve(); });
  s.on("timeout", () => { result.connect = "timeout"; s.destroy(); resolve(); });
});
const lookup = new Promise((resolve) => dns.lookup("registry.npmjs.org", (e) => { result.dns = e ? e.code : "resolved"; resolve(); }));
const fetched = fetch("http://127.0.0.1:" + port + "/v1/messages", { method: "POST", body: "{}" })
  .then((r) => { result.fetch = r.status; }, (e) => { result.fetch = (e.cause && e.cause.code) || e.message; });
Promise.all([connect, lookup, fetched]).then(() => console.log(JSON.stringify(result)));
`;

test("a child under unshare -n cannot reach the fake provider on loopback, nor resolve a name; the same child online can", async () => {
  const port = String(new URL(fake.url).port);
  const online = await runProcess(process.execPath, ["-e", probe, port]);
  expect(JSON.parse(online.stdout)).toMatchObject({ connect: "connected", fetch: 500 }); // 500: no reply queued, but it arrived
  const before = fake.requests.length;
  const offline = await runProcess(process.execPath, ["-e", probe, port], { offline: true });
  expect(offline.code, offline.stderr).toBe(0);
  const r = JSON.parse(offline.stdout) as Record<string, string>;
  expect(["ENETUNREACH", "ECONNREFUSED", "EADDRNOTAVAIL"]).toContain(r.connect);
  expect(["ENETUNREACH", "ECONNREFUSED", "EADDRNOTAVAIL"]).toContain(r.fetch);
  expect(r.dns).not.toBe("resolved");
  expect(fake.requests.length).toBe(before);
});

/** The in-process replay and scripted-fork tests: they must pass with no network at all. */
export const OFFLINE_FILES = [
  "test/unit/agent/replayTrace.test.ts",
  "test/unit/agent/assertCassette.test.ts",
  "test/unit/agent/forkRun.test.ts",
  "test/unit/agent/builtin.test.ts",
  "test/unit/agent/loop.test.ts",
  "examples/anthropic-agent/agent.test.ts",
  "examples/openai-agent/agent.test.ts",
];

test(
  "the in-process replay and scripted-fork test files pass again under unshare -n",
  { timeout: 120_000 },
  async () => {
    const r = await runProcess(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...OFFLINE_FILES], {
      offline: true,
      timeoutMs: 110_000,
    });
    const out = r.stdout + r.stderr;
    expect(r.code, out.slice(-3000)).toBe(0);
    expect(out).toMatch(new RegExp(`Test Files\\s+${OFFLINE_FILES.length} passed`));
  },
);
