/**
 * `blackboxPlugin()` for vitest.config.ts: the SDK calls of a test that uses a cassette are
 * captured without bb.fetch (an agent that builds its own client needs no change). It sets
 * one variable in the test workers (`test.env`), which useCassette() reads: while its test
 * is the only one holding a cassette, a client made without bb.fetch records into it or
 * replays from it (src/interception/lockdown.ts) instead of failing the test. Loads nothing
 * of vitest or vite: the config file imports it.
 */

/** The variable the plugin sets in the workers, and useCassette() reads. */
export const CAPTURE_ENV = "BLACKBOX_VITEST_CAPTURE";

/** The part of a vite/vitest plugin this one is (no type import: vite stays a peer of vitest). */
export interface BlackboxVitestPlugin {
  name: string;
  config(): { test: { env: Record<string, string> } };
}

export function blackboxPlugin(): BlackboxVitestPlugin {
  return {
    name: "ardaulas-blackbox",
    config: () => ({ test: { env: { [CAPTURE_ENV]: "1" } } }),
  };
}
