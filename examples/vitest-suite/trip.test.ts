// The trip agent of examples/anthropic-agent under test, one cassette per test with
// useCassette(): recorded the first time (BLACKBOX_RECORD=missing, the default outside CI),
// replayed after, offline, with no key and no booking. Here the committed cassettes replay.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, test } from "vitest";
import { useCassette } from "@ardaulas/blackbox/vitest";
import { runAgent, TRIP_TASK } from "../anthropic-agent/agent.js";
import { bookings, tools } from "../anthropic-agent/tools.js";

describe("trip agent", () => {
  test("books the sunny city", async () => {
    const bb = useCassette(); // __cassettes__/trip.test.ts/trip agent books the sunny city.json
    const answer = await runAgent(new Anthropic({ fetch: bb.fetch }), bb.tools(tools), TRIP_TASK);
    expect(answer).toContain("Booked 2 nights in Lisbon");
    if (bb.mode === "replay") expect(bookings).toEqual([]); // a replay never runs a tool
  });

  test("books nothing when it rains", async () => {
    const bb = useCassette();
    const answer = await runAgent(
      new Anthropic({ fetch: bb.fetch }),
      bb.tools(tools),
      "Is it sunny in Porto this weekend? Book 2 nights only if it is.",
    );
    expect(answer).toContain("rain");
  });
});
