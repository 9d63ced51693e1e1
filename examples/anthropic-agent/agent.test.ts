// Replay as a plain unit test: the committed cassette answers every model call and every
// wrapped tool, so this runs offline, with no API key, and books nothing.
import Anthropic from "@anthropic-ai/sdk";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { blackbox, ReplayDivergenceError } from "@ardaulas/blackbox";
import { runAgent, TRIP_TASK } from "./agent.js";
import { book_hotel, bookings, get_weather } from "./tools.js";

const cassette = fileURLToPath(new URL("./runs/trip.json", import.meta.url));

// The real tools, counting their runs.
const ran: string[] = [];
const counted = {
  get_weather: (input: { city: string }) => (ran.push("get_weather"), get_weather(input)),
  book_hotel: (input: { city: string; nights: number }) => (ran.push("book_hotel"), book_hotel(input)),
};

test("the agent still books Lisbon, without running a tool", async () => {
  const bb = blackbox({ mode: "replay", cassette });
  const answer = await runAgent(new Anthropic({ apiKey: "unused", fetch: bb.fetch }), bb.tools(counted), TRIP_TASK);
  await bb.finish({ result: answer });
  expect(answer).toContain("Booked 2 nights in Lisbon");
  expect(ran).toEqual([]);
  expect(bookings).toEqual([]);
});

test("a changed task fails the replay at the first model call, saying where", async () => {
  const bb = blackbox({ mode: "replay", cassette });
  const client = new Anthropic({ apiKey: "unused", fetch: bb.fetch, maxRetries: 0 });
  await expect(runAgent(client, bb.tools(counted), "Find me a sunny weekend: Faro? Book 3 nights.")).rejects.toThrow(
    "[blackbox] Replay diverged at step 0 (model_input)",
  );
  const err = await bb.finish().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ReplayDivergenceError);
  expect((err as ReplayDivergenceError).path).toBe("messages[0].content");
  expect(ran).toEqual([]);
});
