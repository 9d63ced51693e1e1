/**
 * Anthropic managed agent sessions (client.beta.sessions) run the model on Anthropic's
 * side: passed through as "another SDK call", a recording would hold only the tool steps
 * and no replay could serve the session. They are refused by name, before anything is
 * sent, in record as in replay.
 */
import Anthropic from "@anthropic-ai/sdk";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { blackbox, loadTrace } from "../../src/index.js";
import { useFakeProvider } from "../helpers/fakeProvider.js";

const fx = useFakeProvider("bb-managed-");

describe("managed agent sessions", () => {
  test.each(["record", "replay"] as const)(
    "%s: a session call is refused by name, nothing sent, the run fails",
    async (mode) => {
      const file = join(fx.dir, `${mode}.json`);
      if (mode === "replay") {
        const rec = blackbox({ mode: "record", out: file });
        await rec.finish({ result: "nothing" });
      }
      const bb = blackbox(
        mode === "record"
          ? { mode, out: file, providers: { anthropic: [fx.fake.url] } }
          : { mode, cassette: file, providers: { anthropic: [fx.fake.url] } },
      );
      const client = new Anthropic({
        apiKey: "sk-ant-managed-0000",
        baseURL: fx.fake.anthropicUrl,
        maxRetries: 0,
        fetch: bb.fetch,
      });
      const before = fx.fake.requests.length;
      const err = await client.beta.sessions.events.list("sesn_01abc").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(err)).toContain(
        "400 [blackbox] Anthropic managed agent sessions (client.beta.sessions, its events, SessionToolRunner) run the agent's model on Anthropic's side",
      );
      expect(fx.fake.requests.length).toBe(before);
      await expect(bb.finish()).rejects.toThrow("managed agent sessions");
      if (mode === "record") await expect(loadTrace(file)).rejects.toThrow("does not exist");
    },
  );
});
