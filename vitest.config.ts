import { defineConfig } from "vitest/config";

const shared = {
  exclude: ["**/node_modules/**", "test/fixtures/**"],
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
};

/**
 * Three projects, by what a test costs: `unit` is pure and in-process (seconds:
 * `npx vitest run --project unit`), `integration` drives the real SDKs, frameworks, CLI and
 * browser against the fake provider (most of it in child processes, as a user runs them),
 * `reliability` kills, fills disks and feeds hostile input.
 */
export default defineConfig({
  test: {
    ...shared,
    // most of a test's time is its child processes, which run beside the worker: on 2 cores
    // three workers finish the suite sooner than the one vitest would pick
    maxWorkers: 3,
    // once, after the whole run: no cassette the suite wrote may hold a key or a provider id
    globalSetup: ["test/reliability/secretScan.global.ts"],
    projects: [
      { test: { ...shared, name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        test: { ...shared, name: "integration", include: ["test/integration/**/*.test.ts", "examples/**/*.test.ts"] },
      },
      { test: { ...shared, name: "reliability", include: ["test/reliability/**/*.test.ts"] } },
    ],
  },
});
