import { describe, expect, it } from "vitest";
import { toolChanges } from "../../../src/tools/frameworks/mcpDrift.js";

const weather = {
  name: "get_weather",
  title: "Weather",
  description: "Get the weather of a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
  outputSchema: { type: "object", properties: { celsius: { type: "number" } } },
  annotations: { readOnlyHint: true, openWorldHint: false },
};
const list = (...tools: object[]) => ({ tools });

describe("tool-definition drift (blackbox replay --mcp-live)", () => {
  it("the same definitions: nothing", () => {
    expect(toolChanges(list(weather), list(structuredClone(weather)))).toEqual([]);
  });

  it("an annotation that flips is said hint by hint (a read-only tool that now writes)", () => {
    const now = { ...weather, annotations: { readOnlyHint: false, openWorldHint: false, destructiveHint: true } };
    expect(toolChanges(list(weather), list(now))).toEqual([
      `"get_weather" annotation destructiveHint (none) is now true`,
      `"get_weather" annotation readOnlyHint true is now false`,
    ]);
    expect(toolChanges(list(weather), list({ ...weather, annotations: undefined }))).toEqual([
      `"get_weather" annotation openWorldHint false is now (none)`,
      `"get_weather" annotation readOnlyHint true is now (none)`,
    ]);
  });

  it("the title, the output schema and any other field are compared too, in the spec's order", () => {
    const now = { ...weather, title: "Forecast", outputSchema: { type: "object" }, _meta: { v: 2 } };
    expect(toolChanges(list(weather), list(now))).toEqual([
      `"get_weather" title "Weather" is now "Forecast"`,
      `"get_weather" output schema {"type":"object","properties":{"celsius":{"type":"number"}}} is now {"type":"object"}`,
      `"get_weather" _meta (none) is now {"v":2}`,
    ]);
  });

  it("a tool added and one removed", () => {
    expect(toolChanges(list(weather), list({ name: "get_rain", inputSchema: {} }))).toEqual([
      `"get_weather" removed`,
      `"get_rain" added`,
    ]);
  });
});
