import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/fixtures/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // after the run: no cassette the suite wrote may hold a key or a provider id
    globalSetup: ["test/reliability/secretScan.global.ts"],
  },
});
