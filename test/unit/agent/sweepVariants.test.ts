import { describe, expect, test } from "vitest";
import {
  moduleVariants,
  presetName,
  resolveVariants,
  valueVariants,
  type ForkPointInfo,
} from "../../../src/agent/sweepVariants.js";
import { cellText, formatMatrix, summarize } from "../../../src/agent/sweepMatrix.js";

const at = (recorded: unknown): ForkPointInfo => ({
  at: 3,
  toolName: "t",
  toolInput: null,
  recorded: recorded as never,
});
const values = (name: string, recorded: unknown[]) => {
  const [v] = resolveVariants([name]);
  return recorded.map((r) => v!.valueAt(at(r)));
};

describe("presets", () => {
  test("error:<text>, quoted or not, is a result { error }", () => {
    expect(presetName('error:"timeout"')).toBe('error:"timeout"');
    expect(presetName("error:500")).toBe('error:"500"');
    expect(values('error:"rate limited"', [{ a: 1 }])).toEqual([{ error: "rate limited" }]);
  });
  test("empty keeps the type where it has an empty form; null is null", () => {
    expect(values("empty", ["abc", [1, 2], { a: 1 }, 5, true, null])).toEqual(["", [], {}, null, null, null]);
    expect(values("null", [{ a: 1 }, "x"])).toEqual([null, null]);
  });
  test("truncated cuts a string, else the JSON text, in half", () => {
    expect(values("truncated", ["abcdef", [1, 2, 3], { a: 1 }])).toEqual(["abc", "[1,", '{"a']);
  });
  test("an unknown preset, a second variant of one name and no variant are refused, saying what to pass", () => {
    expect(() => resolveVariants(["timeout"])).toThrow(/unknown sweep variant preset "timeout": the presets are/);
    expect(() => resolveVariants(["empty", "empty"])).toThrow('the sweep variant "empty" is given twice');
    expect(() => resolveVariants([])).toThrow("a sweep needs at least one variant");
  });
});

describe("values and functions", () => {
  test("a values file's entries are named by their JSON text; slugs stay unique", () => {
    const specs = valueVariants([{ forecast: "rain" }, "rain", null], "v.json");
    const vs = resolveVariants(specs);
    expect(vs.map((v) => [v.name, v.slug])).toEqual([
      ['{"forecast":"rain"}', "forecast-rain"],
      ['"rain"', "rain"],
      ["null", "null"],
    ]);
    expect(vs[0]!.valueAt(at(1))).toEqual({ forecast: "rain" });
    expect(() => valueVariants({}, "v.json")).toThrow("must hold a JSON array of values");
  });
  test("a module's functions get the recorded result (a copy) and the fork point", () => {
    const mod = { rain: (r: { city: string }) => ({ ...r, forecast: "rain" }), note: "not a function" };
    const [v] = resolveVariants(moduleVariants(mod, "v.mjs"));
    const recorded = { city: "Lisbon" };
    expect(v!.name).toBe("rain");
    expect(v!.valueAt(at(recorded))).toEqual({ city: "Lisbon", forecast: "rain" });
    expect(() => moduleVariants({}, "v.mjs")).toThrow("exports no function");
    const [bad] = resolveVariants([{ name: "inf", result: () => Infinity }]);
    expect(() => bad!.valueAt(at(1))).toThrow(/variant "inf" returned for step 3/);
  });
});

test("the matrix as text: a row per tool result, a column per variant, grades marked", () => {
  const cell = (variant: string, answer: string, pass: boolean) => ({
    at: 3,
    variant,
    value: null,
    status: "answered" as const,
    answer,
    steps: 8,
    modelCalls: 1,
    toolCalls: [],
    cassette: null,
    divergesAt: 3,
    reused: false,
    key: "k",
    grade: { pass },
  });
  const cells = [cell("empty", "Booked.", true), cell("null", "Not booked.", false)];
  expect(cellText(cells[1]!)).toBe("FAIL Not booked.");
  const text = formatMatrix({
    rows: [{ at: 3, toolName: "get_weather", toolInput: { city: "Lisbon" }, recorded: null }],
    variants: [
      { name: "empty", kind: "preset" },
      { name: "null", kind: "preset" },
    ],
    cells,
    summary: summarize(cells),
  } as never);
  expect(text).toBe(
    "step                             empty                     null\n" +
      '3 get_weather {"city":"Lisbon"}  pass Booked.              FAIL Not booked.\n',
  );
});

test("answers that share a long start: the matrix says it once and the cells show the rest", () => {
  const cell = (at: number, answer: string) => ({
    at,
    variant: "null",
    value: null,
    status: "answered" as const,
    answer,
    steps: 8,
    modelCalls: 1,
    toolCalls: [],
    cassette: null,
    divergesAt: at,
    reused: false,
    key: "k",
  });
  const cells = [cell(3, "Saturday in Lisbon will be rainy."), cell(7, "Saturday in Lisbon will be sunny.")];
  const text = formatMatrix({
    rows: [3, 7].map((at) => ({ at, toolName: "t", toolInput: null, recorded: null })),
    variants: [{ name: "null", kind: "preset" }],
    cells,
    summary: summarize(cells),
  } as never);
  expect(text.split("\n").slice(0, 5)).toEqual([
    'every answer starts "Saturday in Lisbon will be"; the cells show the rest',
    "",
    "step      null",
    "3 t null  ...rainy.",
    "7 t null  ...sunny.",
  ]);
});
