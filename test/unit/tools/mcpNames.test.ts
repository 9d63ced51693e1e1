import { describe, expect, it } from "vitest";
import { listedTools, modelName, stepInput } from "../../../src/tools/frameworks/mcpNames.js";

const call = (toolName: string, toolInput: unknown) => ({
  toolCallId: "call-0",
  toolName,
  toolInput: toolInput as never,
});

describe("an MCP callTool's step name: the model's name for the tool", () => {
  it("is the MCP name when the model called it so, or before any model call", () => {
    expect(modelName([call("get_weather", { city: "Lisbon" })], "get_weather", "weather", { city: "Lisbon" })).toBe(
      "get_weather",
    );
    expect(modelName([], "get_weather", "weather", { city: "Lisbon" })).toBe("get_weather");
  });

  it("is the model's renamed call (a server prefix after a separator), whatever its arguments", () => {
    for (const renamed of ["weather__get_weather", "mcp__weather__get_weather", "weather.get_weather", "w-get_weather"])
      expect(modelName([call(renamed, { city: "Lisbon" })], "get_weather", "weather", { city: "Lisbon" })).toBe(
        renamed,
      );
    // a replay's model output holds the recording's placeholders where the agent passes the real values
    expect(
      modelName([call("weather__get_weather", { city: "[REDACTED:1]" })], "get_weather", "w", { city: "Lisbon" }),
    ).toBe("weather__get_weather");
  });

  it("is not a name that only ends alike", () => {
    expect(modelName([call("forget_weather", { city: "Lisbon" })], "get_weather", "w", { city: "Lisbon" })).toBe(
      "get_weather",
    );
  });

  it("between two servers' renamed calls, is the one called with these arguments", () => {
    const asked = [call("eu__get_weather", { city: "Lisbon" }), call("us__get_weather", { city: "Porto" })];
    expect(modelName(asked, "get_weather", "weather", { city: "Porto" })).toBe("us__get_weather");
    expect(modelName(asked, "get_weather", "weather", { city: "Faro" })).toBe("get_weather");
  });

  it("between two servers' renamed calls alike, is the one whose prefix names this server", () => {
    const asked = [call("eu__get_weather", { city: "Lisbon" }), call("us__get_weather", { city: "Lisbon" })];
    expect(modelName(asked, "get_weather", "us", { city: "Lisbon" })).toBe("us__get_weather");
    expect(modelName(asked, "get_weather", "EU", { city: "Lisbon" })).toBe("eu__get_weather");
    expect(modelName(asked, "get_weather", "asia", { city: "Lisbon" })).toBe("get_weather");
  });
});

describe("an MCP callTool's step input", () => {
  it("is the arguments, or { server, arguments } where another connected client listed the tool", () => {
    const [a, b] = [{ transport: {} }, { transport: {} }];
    listedTools(a, "eu", { tools: [{ name: "get_weather" }, { name: "get_rain" }] }, false);
    expect(stepInput(a, "eu", "get_weather", { city: "Lisbon" })).toEqual({ city: "Lisbon" });
    listedTools(b, "us", { tools: [{ name: "get_weather" }] }, false);
    expect(stepInput(a, "eu", "get_weather", { city: "Lisbon" })).toEqual({
      server: "eu",
      arguments: { city: "Lisbon" },
    });
    expect(stepInput(a, "eu", "get_rain", undefined)).toEqual({});
    // a closed client (the SDK unsets its transport) no longer shares its tools
    (b as { transport?: unknown }).transport = undefined;
    expect(stepInput(a, "eu", "get_weather", { city: "Lisbon" })).toEqual({ city: "Lisbon" });
  });
});
