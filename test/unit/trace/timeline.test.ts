import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseTrace } from "../../../src/trace/parse.js";
import { formatTimeline, timelineRows } from "../../../src/trace/timeline.js";

const load = (name: string) => parseTrace(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8"), name);

describe("formatTimeline", () => {
  it("one line a step, tool rounds indented, outcome last", () => {
    const text = formatTimeline(load("parallel.json"), { color: false });
    expect(text).toBe(
      [
        "run parallel  10 steps, created 2026-01-01T00:00:00.000Z",
        "  0     +0ms  metadata       session_started",
        "  1   +250ms  model_input    1 message, 2 tools, model claude-sonnet-4-5",
        '  2   +500ms  model_output   2 tool calls: get_weather, get_time "Checking both."',
        '  3   +750ms    tool_call    call-0 get_weather({"city":"Tokyo"})',
        '  4    +1.0s    tool_result  call-0 get_weather -> {"tempC":12,"usage":42}',
        '  5    +1.3s    tool_call    call-1 get_time({"tz":"Asia/Tokyo"})',
        '  6    +1.5s    tool_result  call-1 get_time failed: "clock service unavailable"',
        "  7    +1.8s  model_input    3 messages, 2 tools, model claude-sonnet-4-5",
        '  8    +2.0s  model_output   final answer "Tokyo is 12°C; the time is" [stop: length]',
        "  9    +2.3s  metadata       run_completed",
        'outcome: success "Tokyo is 12°C; the time is"',
        "",
      ].join("\n"),
    );
  });

  it("marks the parent and the fork point", () => {
    const text = formatTimeline(load("fork-child.json"), { color: false });
    expect(text.split("\n")[1]).toBe("forked from basic at basic:3");
    expect(text).toContain('tool_result  call-0 get_weather -> {"tempC":-5,"sky":"snow"}  <- fork point');
    expect(timelineRows(load("fork-child.json")).filter((r) => r.forkPoint).map((r) => r.index)).toEqual([3]);
  });

  it("failed runs end with the error; colour only when asked", () => {
    const plain = formatTimeline(load("failed-unknown-tool.json"), { color: false });
    expect(plain.trimEnd().split("\n").at(-1)).toBe('outcome: error the model asked for an unknown tool "launch_rocket"');
    expect(plain).not.toContain("\u001b[");
    expect(formatTimeline(load("failed-unknown-tool.json"), { color: true })).toContain("\u001b[31;1moutcome: error\u001b[0m");
  });

  it("long values are cut to the preview width", () => {
    const t = load("basic.json");
    (t.steps[3]!.payload as { result: unknown }).result = "x".repeat(500);
    const line = formatTimeline(t, { color: false, width: 30 }).split("\n").find((l) => l.includes("tool_result"))!;
    expect(line).toContain(`-> "${"x".repeat(26)}...`);
  });
});
