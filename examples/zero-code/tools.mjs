// The agent's tools, in their own module so that blackbox.config.ts can name them.
import { appendFileSync } from "node:fs";

export async function get_weather({ city }) {
  return { city, forecast: city === "Lisbon" ? "sunny" : "rain", celsius: 24 };
}

// A side effect: replaying must not book twice, so this file stays absent in replay.
export async function book_hotel({ city, nights }) {
  const file = process.env.BOOKINGS_FILE ?? "bookings.log";
  appendFileSync(file, `${city} ${nights}\n`);
  return { confirmation: `HTL-${city.slice(0, 3).toUpperCase()}-${nights}` };
}
