/**
 * The sweep tests' model: a fake provider whose replies follow the tool results a request
 * carries, so a variant at a fork point changes what the run does next. The trip: the
 * weather in Lisbon and Porto, then a booking in the first city whose forecast is known
 * and not rain, then an answer that says how the booking went.
 */
import {
  anthropicMessage,
  openaiCompletion,
  startFakeProvider,
  toolResultsIn,
  type FakeContent,
  type FakeProvider,
  type FakeRequest,
} from "../helpers/fakeProvider.js";

export const TASK = "Find a city with good weather and book it.";
export const CITIES = ["Lisbon", "Porto"];

/** The recorded tools: Lisbon sunny, Porto cloudy, a booking confirmed. */
export function tripTools(counter: { runs: number } = { runs: 0 }) {
  return {
    get_weather: async ({ city }: { city: string }) => {
      counter.runs++;
      return { city, forecast: city === "Lisbon" ? "sunny" : "cloudy" };
    },
    book_hotel: async ({ city }: { city: string }) => {
      counter.runs++;
      return { confirmation: `HTL-${city.slice(0, 3).toUpperCase()}` };
    },
  };
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** What the trip's model says to a request carrying `results`. */
export function tripReply(results: string[]): FakeContent {
  if (results.length === 0) return { toolCalls: CITIES.map((city) => ({ name: "get_weather", input: { city } })) };
  if (results.length === CITIES.length) {
    const ok = results.findIndex((r) => {
      const f = (parse(r) as { forecast?: unknown } | null)?.forecast;
      return typeof f === "string" && f !== "rain";
    });
    if (ok < 0) return { text: "No city with a known forecast: not booking." };
    return { toolCalls: [{ name: "book_hotel", input: { city: CITIES[ok] } }] };
  }
  const booking = parse(results.at(-1)!) as { confirmation?: unknown } | null;
  return typeof booking?.confirmation === "string"
    ? { text: `Booked ${booking.confirmation}.` }
    : { text: `Booking failed: ${results.at(-1)}` };
}

export function tripResponder(request: FakeRequest) {
  const content = tripReply(toolResultsIn(request.body));
  return { json: request.path.includes("/chat/completions") ? openaiCompletion(content) : anthropicMessage(content) };
}

export const startTripProvider = (): Promise<FakeProvider> => startFakeProvider({ respond: tripResponder });
