/**
 * The demo agent: a trip planner with two deterministic tools and a rule-based
 * model that reads the tool results it is given. No key, no network. Because its
 * next move depends on what the weather tool said, a fork that hands it another
 * forecast makes it plan a different day: that is what the demo shows.
 */
import type { JsonValue, ModelInput, ModelOutput, ToolDefinition, Trace } from "../trace/types.js";
import { runAgent, type ToolMap } from "./loop.js";
import type { ModelClient } from "./modelClient.js";

export const DEMO_TASK = "Plan a Saturday in Lisbon";
export const DEMO_MODEL = "blackbox-demo-planner";

const FORECASTS: Record<string, { forecast: string; tempC: number }> = {
  Lisbon: { forecast: "sunny", tempC: 24 },
  Porto: { forecast: "rain", tempC: 15 },
};

const ACTIVITIES: Record<string, Record<"outdoor" | "indoor", string[]>> = {
  Lisbon: {
    outdoor: ["Tram 28 through Alfama", "Belém Tower and pastéis de nata", "sunset at Miradouro da Senhora do Monte"],
    indoor: ["the Gulbenkian Museum", "the Oceanário", "a fado dinner in Alfama"],
  },
  Porto: {
    outdoor: ["a walk along the Ribeira", "the Dom Luís I bridge", "sunset at Jardim do Morro"],
    indoor: ["Livraria Lello", "a port cellar tour", "the Serralves museum"],
  },
};

/** The result the demo's fork puts in place of the sunny forecast. */
export const DEMO_RAIN: JsonValue = { city: "Lisbon", forecast: "rain", tempC: 14 };

export const demoToolDefinitions: ToolDefinition[] = [
  {
    name: "get_weather",
    description: "Saturday's forecast for a city.",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    name: "find_activities",
    description: "Things to do in a city, outdoors or indoors.",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" }, setting: { type: "string", enum: ["outdoor", "indoor"] } },
      required: ["city", "setting"],
    },
  },
];

function field(value: JsonValue | undefined, key: string): JsonValue | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? value[key] : undefined;
}

export const demoTools: ToolMap = {
  get_weather(input) {
    const city = String(field(input, "city"));
    const f = FORECASTS[city];
    if (!f) throw new Error(`no forecast for "${city}" (the demo knows ${Object.keys(FORECASTS).join(", ")})`);
    return { city, ...f };
  },
  find_activities(input) {
    const city = String(field(input, "city"));
    const setting = field(input, "setting") === "indoor" ? "indoor" : "outdoor";
    const list = ACTIVITIES[city];
    if (!list) throw new Error(`no activities known for "${city}"`);
    return { city, setting, activities: list[setting] };
  },
};

/** The latest tool result (or error) per tool name in the conversation so far. */
function latestResults(input: ModelInput): Map<string, { result?: JsonValue; error?: string }> {
  const seen = new Map<string, { result?: JsonValue; error?: string }>();
  for (const m of input.messages) {
    if (typeof m.content === "string") continue;
    for (const p of m.content) {
      if (p.type === "tool_result") seen.set(p.toolName, "error" in p ? { error: p.error } : { result: p.result });
    }
  }
  return seen;
}

/** A rule-based "model": weather first, then activities that suit it, then the plan. */
export class DemoModelClient implements ModelClient {
  async generate(input: ModelInput): Promise<ModelOutput> {
    const first = input.messages[0]?.content;
    const task = typeof first === "string" ? first : DEMO_TASK;
    const city = /\bin ([A-Z][\p{L} ]*)/u.exec(task)?.[1]?.trim() ?? "Lisbon";
    const seen = latestResults(input);
    const weather = seen.get("get_weather");
    if (!weather) return { type: "tool_call", toolCallId: "", toolName: "get_weather", toolInput: { city } };
    if (weather.error !== undefined) {
      return {
        type: "final_answer",
        text: `I could not get a forecast for ${city} (${weather.error}), so I cannot plan the day yet.`,
      };
    }
    const forecast = String(field(weather.result, "forecast") ?? "unknown");
    const temp = field(weather.result, "tempC");
    const setting = forecast === "sunny" ? "outdoor" : "indoor";
    const found = seen.get("find_activities");
    if (!found) return { type: "tool_call", toolCallId: "", toolName: "find_activities", toolInput: { city, setting } };
    if (found.error !== undefined) {
      return {
        type: "final_answer",
        text: `Saturday in ${city}: ${forecast}, but I found nothing to do (${found.error}).`,
      };
    }
    const list = field(found.result, "activities");
    const items = Array.isArray(list) ? list.map(String) : [];
    const sky = forecast === "rain" ? "rainy" : forecast;
    const weatherText = typeof temp === "number" ? `${sky}, ${temp}°C` : sky;
    const plan = items.length > 0 ? items.join(", then ") : "a slow day at the hotel";
    const advice = setting === "outdoor" ? "so stay outdoors" : "so plan indoors and take an umbrella";
    return { type: "final_answer", text: `Saturday in ${city} will be ${weatherText}, ${advice}: ${plan}.` };
  }
}

/** Records one run of the demo agent. */
export function runDemoAgent(options: { traceId: string; now: () => number; task?: string }): Promise<Trace> {
  return runAgent({
    traceId: options.traceId,
    task: options.task ?? DEMO_TASK,
    toolDefinitions: demoToolDefinitions,
    model: DEMO_MODEL,
    client: new DemoModelClient(),
    tools: demoTools,
    now: options.now,
  });
}
