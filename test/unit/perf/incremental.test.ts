/**
 * Differential property test: IncrementalRequests (parse only the new messages, compare
 * only them) gives exactly what the full path gives (adapter.parseRequest on the whole
 * body, then compareModelInput): the same ModelInput, the same call-N ids, the same
 * divergence or none, the same refusal.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isBlackboxError } from "../../../src/errors.js";
import { compareModelInput } from "../../../src/providers/shared/compare.js";
import { MessageThreads } from "../../../src/providers/anthropic/threads.js";
import { ToolCallIds } from "../../../src/providers/shared/ids.js";
import { providers } from "../../../src/providers/index.js";
import type { ProviderName } from "../../../src/providers/types.js";
import { IncrementalRequests, parseRequestBody } from "../../../src/session/incremental.js";
import { shareRecordedHistory } from "../../../src/trace/share.js";
import type { JsonValue, ModelInput, TraceStep } from "../../../src/trace/types.js";
import { conversationArb, type Conversation } from "./conversations.js";

type Outcome =
  | { input: string; divergence: string | null; nextId: number; recorded?: unknown; actual?: unknown }
  | { error: string };

function run(
  what: () => { input: ModelInput; divergence: string | null; recorded?: unknown; actual?: unknown },
  ids: ToolCallIds,
): Outcome {
  try {
    const { input, ...rest } = what();
    return { input: JSON.stringify(input), ...rest, nextId: ids.nextIndex };
  } catch (err) {
    if (!isBlackboxError(err)) throw err;
    return { error: (err as Error).message };
  }
}

/** Records the unedited requests with the full path: the model_input steps a replay compares with. */
function record(c: Conversation): ModelInput[] {
  const ids = new ToolCallIds();
  return c.recorded.map((text) => {
    try {
      return providers[c.provider].parseRequest(JSON.parse(text), ids).input;
    } catch {
      return { messages: [], tools: [] }; // a refused request records nothing useful: any input will do
    }
  });
}

/** A copy of the recorded inputs with their repeated history shared, as strict replay loads them (src/trace/share.ts). */
function shared(recorded: ModelInput[]): ModelInput[] {
  const copy = structuredClone(recorded);
  const steps = copy.map(
    (input, index) => ({ index, type: "model_input", payload: input as unknown as JsonValue }) as TraceStep,
  );
  shareRecordedHistory(steps);
  return copy;
}

/** The incremental path (on recorded inputs shared as replay loads them, if `share`) against the full path on the unshared ones. */
function replayBoth(c: Conversation, totals: IncrementalRequests["stats"], share = false): void {
  const recorded = record(c);
  const incRecorded = share ? shared(recorded) : recorded;
  const inc = new IncrementalRequests();
  const idsInc = new ToolCallIds();
  const idsFull = new ToolCallIds();
  c.replayed.forEach((text, k) => {
    for (const [wire, call] of c.registers[k] ?? []) {
      idsInc.register(wire, call); // what buildResponse does between requests (wireIdFor), and remaps
      idsFull.register(wire, call);
    }
    const rec = recorded[k % recorded.length]!;
    const incRec = incRecorded[k % recorded.length]!;
    const a = run(() => {
      const input = inc.parse(c.provider, text, idsInc).input;
      const d = inc.compare(incRec, input);
      return { input, divergence: d?.path ?? null, ...(share && d ? { recorded: d.recorded, actual: d.actual } : {}) };
    }, idsInc);
    const b = run(() => {
      const input = providers[c.provider as ProviderName].parseRequest(parseRequestBody(text), idsFull).input;
      const d = compareModelInput(rec, input);
      return { input, divergence: d?.path ?? null, ...(share && d ? { recorded: d.recorded, actual: d.actual } : {}) };
    }, idsFull);
    expect(a, `request ${k}`).toEqual(b);
  });
  for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += inc.stats[key];
}

describe("incremental replay equals the full path", () => {
  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: growing tool loops with random edits give the same input, ids, divergence and refusals`, () => {
      const totals = { incrementalParses: 0, fullParses: 0, incrementalCompares: 0, fullCompares: 0 };
      fc.assert(
        fc.property(conversationArb(provider), (c) => replayBoth(c, totals)),
        { numRuns: 400 },
      );
      // the shortcuts did run (a test of the full path against itself would prove nothing)
      expect(totals.incrementalParses).toBeGreaterThan(totals.fullParses / 2);
      expect(totals.incrementalCompares).toBeGreaterThan(100);
      expect(totals.fullCompares).toBeGreaterThan(100);
    });
    it(`${provider}: the same with the recorded history shared as strict replay loads it (same divergence path and values)`, () => {
      const totals = { incrementalParses: 0, fullParses: 0, incrementalCompares: 0, fullCompares: 0 };
      fc.assert(
        fc.property(conversationArb(provider), (c) => replayBoth(c, totals, true)),
        { numRuns: 400 },
      );
      expect(totals.incrementalCompares).toBeGreaterThan(100);
      expect(totals.fullCompares).toBeGreaterThan(100);
    });
  }
});

describe("a recorded input that does not extend the previous one is compared in full", () => {
  const req = (n: number) =>
    JSON.stringify({
      model: "m",
      messages: Array.from({ length: n }, (_, i) =>
        i % 2 ? { role: "assistant", content: `a${i}` } : { role: "user", content: `u${i}` },
      ),
    });
  const input = (n: number) => providers.anthropic.parseRequest(JSON.parse(req(n)), new ToolCallIds()).input;
  const edits: [string, (m: Record<string, unknown>) => void][] = [
    ["an extra key", (m) => (m.extra = 1)],
    ["an own __proto__ key", (m) => Object.defineProperty(m, "__proto__", { value: {}, enumerable: true })],
    ["another text", (m) => (m.content = "changed")],
  ];
  for (const [name, edit] of edits) {
    it(`${name} in an earlier message: the divergence the full path finds`, () => {
      const recorded = [input(1), input(3)];
      edit(recorded[1]!.messages[0] as unknown as Record<string, unknown>);
      const inc = new IncrementalRequests();
      const ids = new ToolCallIds();
      expect(inc.compare(recorded[0]!, inc.parse("anthropic", req(1), ids).input)).toBeUndefined();
      const second = inc.parse("anthropic", req(3), ids).input;
      expect(inc.stats.incrementalParses).toBe(1);
      const full = compareModelInput(recorded[1]!, second);
      expect(inc.compare(recorded[1]!, second)).toEqual(full);
      expect(inc.stats.fullCompares).toBe(2);
    });
  }
});

describe("a message thread's turns, expanded, extend the last request as objects", () => {
  // A tool loop as the Anthropic tool runner threads it: the first turn whole (thread
  // create), each later one only its tool_result (thread continue from the last reply).
  const TURNS = 6;
  const head = { model: "m", max_tokens: 100, system: "s", tools: [{ name: "t", input_schema: { type: "object" } }] };
  const reply = (k: number) => ({
    id: `msg_${k}`,
    content: [
      { type: "text", text: `t${k}` },
      { type: "tool_use", id: `toolu_${k}`, name: "t", input: { k } },
    ],
  });
  const result = (k: number) => ({
    role: "user",
    content: [{ type: "tool_result", tool_use_id: `toolu_${k}`, content: `r${k}` }],
  });
  /** Turn k: threaded (what the SDK sends) and whole (what it stands for). `edit` changes turn k's max_tokens. */
  function turn(k: number, edit?: number) {
    const max_tokens = edit === k ? 200 : 100;
    const history: unknown[] = [{ role: "user", content: "go" }];
    for (let i = 0; i < k; i++) history.push({ role: "assistant", content: reply(i).content }, result(i));
    const whole = { ...head, max_tokens, messages: history };
    const threaded =
      k === 0
        ? { ...head, max_tokens, messages: history, thread: { type: "create" } }
        : {
            model: "m",
            max_tokens,
            messages: [result(k - 1)],
            thread: { type: "continue", previous_message_id: `msg_${k - 1}` },
          };
    return { whole: JSON.stringify(whole), threaded: JSON.stringify(threaded) };
  }

  for (const edit of [undefined, 3]) {
    it(
      edit === undefined
        ? "a plain loop: only the first turn is parsed whole"
        : "a turn whose other members differ (max_tokens) is parsed whole, then extension goes on",
      () => {
        const threads = new MessageThreads();
        const inc = new IncrementalRequests();
        const ids = new ToolCallIds();
        const idsFull = new ToolCallIds();
        let pending: ReturnType<MessageThreads["expand"]>;
        const expand = (_p: ProviderName, body: unknown) => {
          pending = threads.expand(body as Record<string, unknown>);
          return pending?.full ?? body;
        };
        for (let k = 0; k < TURNS; k++) {
          const { whole, threaded } = turn(k, edit);
          const input = inc.parse("anthropic", threaded, ids, expand).input;
          const full = providers.anthropic.parseRequest(JSON.parse(whole), idsFull).input;
          expect(JSON.stringify(input), `turn ${k}`).toBe(JSON.stringify(full));
          expect(ids.nextIndex).toBe(idsFull.nextIndex);
          expect(inc.compare(full, input), `turn ${k}`).toBeUndefined();
          threads.remember(pending!, reply(k), true);
        }
        expect(inc.stats).toEqual(
          edit === undefined
            ? { incrementalParses: TURNS - 1, fullParses: 1, incrementalCompares: TURNS - 1, fullCompares: 1 }
            : { incrementalParses: TURNS - 3, fullParses: 3, incrementalCompares: TURNS - 3, fullCompares: 3 },
        );
      },
    );
  }
});
