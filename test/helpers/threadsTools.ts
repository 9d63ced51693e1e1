/**
 * The weather tool of test/helpers/threadsChild.ts as a module of its own, for `direct`:
 * given to the tool runner as its `run` as it is, so the runner calls it with its context
 * after the input; the register hook wraps it when a config names it.
 */
export const runs = { count: 0 };

export async function get_weather({ city }: { city: string }): Promise<string> {
  runs.count++;
  return JSON.stringify({ city, forecast: city === "Lisbon" ? "sunny" : "rain" });
}
