// The trip agent's tools: plain async functions, plus the JSON schemas the model sees.
// book_hotel has a side effect (it appends to `bookings`), so a test can prove that a
// replay never books again.

export interface Booking {
  city: string;
  nights: number;
  confirmation: string;
}

/** Every booking this process made. Replays must leave it empty. */
export const bookings: Booking[] = [];

const FORECASTS: Record<string, { forecast: string; celsius: number }> = {
  Lisbon: { forecast: "sunny", celsius: 24 },
  Porto: { forecast: "rain", celsius: 16 },
  Faro: { forecast: "cloudy", celsius: 21 },
};

export async function get_weather({
  city,
}: {
  city: string;
}): Promise<{ city: string; forecast: string; celsius: number }> {
  const f = FORECASTS[city];
  if (!f) throw new Error(`no forecast for "${city}": try Lisbon, Porto or Faro`);
  return { city, ...f };
}

export async function book_hotel({ city, nights }: { city: string; nights: number }): Promise<Booking> {
  const booking = { city, nights, confirmation: `HTL-${city.slice(0, 3).toUpperCase()}-${nights}` };
  bookings.push(booking);
  return booking;
}

export const tools = { get_weather, book_hotel };
export type TripTools = { [K in keyof typeof tools]: (input: Parameters<(typeof tools)[K]>[0]) => Promise<unknown> };

export const toolDefinitions = [
  {
    name: "get_weather",
    description: "Today's forecast for a city.",
    input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    name: "book_hotel",
    description: "Book a hotel room in a city for a number of nights.",
    input_schema: {
      type: "object" as const,
      properties: { city: { type: "string" }, nights: { type: "integer", minimum: 1 } },
      required: ["city", "nights"],
    },
  },
];
