import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseTrace } from "../../../src/trace/parse.js";
import { formatTimeline, timelineRows } from "../../../src/trace/timeline.js";

const load = (name: string) =>
  parseTrace(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8"), name);

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
    expect(
      timelineRows(load("fork-child.json"))
        .filter((r) => r.forkPoint)
        .map((r) => r.index),
    ).toEqual([3]);
  });

  it("failed runs end with the error; colour only when asked", () => {
    const plain = formatTimeline(load("failed-unknown-tool.json"), { color: false });
    expect(plain.trimEnd().split("\n").at(-1)).toBe(
      'outcome: error the model asked for an unknown tool "launch_rocket"',
    );
    expect(plain).not.toContain("\u001b[");
    expect(formatTimeline(load("failed-unknown-tool.json"), { color: true })).toContain(
      "\u001b[31;1moutcome: error\u001b[0m",
    );
  });

  it("long values are cut to the preview width", () => {
    const t = load("basic.json");
    (t.steps[3]!.payload as { result: unknown }).result = "x".repeat(500);
    const line = formatTimeline(t, { color: false, width: 30 })
      .split("\n")
      .find((l) => l.includes("tool_result"))!;
    expect(line).toContain(`-> "${"x".repeat(26)}...`);
  });
});

describe("formatTimeline on a terminal of `columns`", () => {
  // a CJK character or an emoji takes two columns: a line cut by UTF-16 units ran past the
  // terminal's width and wrapped, breaking the one-line-a-step timeline
  const columnsOf = (line: string): number => {
    let n = 0;
    for (const ch of line) {
      const cp = ch.codePointAt(0)!;
      if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) continue;
      n +=
        (cp >= 0x1100 && cp <= 0x115f) ||
        (cp >= 0x2e80 && cp <= 0xa4cf) ||
        (cp >= 0xac00 && cp <= 0xd7a3) ||
        (cp >= 0xf900 && cp <= 0xfaff) ||
        (cp >= 0xff00 && cp <= 0xff60) ||
        cp >= 0x1f300
          ? 2
          : 1;
    }
    return n;
  };

  it("cuts wide characters (CJK, emoji) by the columns they take", async () => {
    const { TraceBuilder } = await import("../../../src/trace/builder.js");
    const b = new TraceBuilder({ id: "東京の天気を調べる長い名前の実行記録です", createdAt: 1767225600000 });
    b.append(
      "model_input",
      { messages: [{ role: "user", content: "天気は？" }], tools: [], model: "m" },
      1767225600000,
    );
    b.append(
      "model_output",
      {
        type: "tool_calls",
        calls: [
          { toolCallId: "call-0", toolName: "天気予報を調べる", toolInput: { city: "東京都千代田区丸の内一丁目" } },
        ],
      },
      1767225600001,
    );
    b.append(
      "tool_call",
      { toolCallId: "call-0", toolName: "天気予報を調べる", toolInput: { city: "東京都千代田区丸の内一丁目" } },
      1767225600002,
    );
    b.append(
      "tool_result",
      {
        toolCallId: "call-0",
        toolName: "天気予報を調べる",
        result: { sky: "雨 🌧️🌂☔ 一日中ずっと雨が降り続くでしょう" },
      },
      1767225600003,
    );
    b.append(
      "model_input",
      { messages: [{ role: "user", content: "天気は？" }], tools: [], model: "m" },
      1767225600004,
    );
    b.append(
      "model_output",
      { type: "final_answer", text: "東京は一日中雨です 🌧️ 傘を持って出かけてください 👨‍👩‍👧 楽しい一日を" },
      1767225600005,
    );
    const lines = formatTimeline(b.trace, { color: false, columns: 60 }).trimEnd().split("\n");
    for (const line of lines) expect(columnsOf(line), line).toBeLessThanOrEqual(60);
    expect(lines.some((l) => l.endsWith("..."))).toBe(true);
    expect(lines[0]).toMatch(/^run 東京/);
  });
});
