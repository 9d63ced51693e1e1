import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseParser, formatSse, parseSse, type SseEvent } from "../../../src/providers/shared/sse.js";
import { MULTIBYTE, chunksOf, encode, splitInsideUtf8 } from "./streamFixtures.js";

function feed(chunks: Uint8Array[]): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

describe("SseParser", () => {
  const text = `event: a\ndata: {"t":"${MULTIBYTE}"}\n\n: a comment\ndata: one\ndata: two\n\nid: 7\nretry: 10\nevent: b\ndata:no-space\n\n`;
  const expected: SseEvent[] = [
    { event: "a", data: `{"t":"${MULTIBYTE}"}` },
    { data: "one\ntwo" },
    { event: "b", data: "no-space" },
  ];

  it("parses named events, multi-line data, comments and unknown fields", () => {
    expect(parseSse(text)).toEqual(expected);
  });

  it("gives the same events for 1-byte, 7-byte and inside-UTF-8 chunks", () => {
    const bytes = encode(text);
    expect(feed(chunksOf(bytes, 1))).toEqual(expected);
    expect(feed(chunksOf(bytes, 7))).toEqual(expected);
    expect(feed(splitInsideUtf8(bytes))).toEqual(expected);
  });

  it("accepts CRLF and lone CR line ends, even with the CRLF pair split across chunks", () => {
    for (const eol of ["\r\n", "\r"]) {
      const t = text.replace(/\n/g, eol);
      expect(parseSse(t)).toEqual(expected);
      expect(feed(chunksOf(encode(t), 1))).toEqual(expected);
    }
  });

  it("drops an event the stream ended before its blank line, as the SDKs do", () => {
    expect(parseSse("data: complete\n\ndata: cut off")).toEqual([{ data: "complete" }]);
    expect(parseSse("data: cut off\n")).toEqual([]);
  });

  it("strips a leading byte-order mark", () => {
    expect(parseSse("\ufeffdata: x\n\n")).toEqual([{ data: "x" }]);
  });

  it("any cut of any formatted events parses back to those events", () => {
    const ev = fc.record(
      {
        event: fc.option(fc.stringMatching(/^[a-z_]{1,12}$/), { nil: undefined }),
        data: fc.string({ unit: "grapheme" }),
      },
      { requiredKeys: ["data"] },
    );
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 10 }), (events, cutsRaw) => {
        const clean = events
          .map((e) => ({ ...e, data: e.data.replace(/\r\n?|\n/g, "\n") }))
          .map((e) => (e.event === undefined ? { data: e.data } : { event: e.event, data: e.data }));
        const bytes = encode(clean.map(formatSse).join(""));
        const cuts = [...new Set(cutsRaw.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let start = 0;
        for (const c of cuts) {
          chunks.push(bytes.subarray(start, c));
          start = c;
        }
        chunks.push(bytes.subarray(start));
        expect(feed(chunks)).toEqual(clean);
      }),
    );
  });
});
