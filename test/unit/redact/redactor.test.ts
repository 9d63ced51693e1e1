import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, kindOf } from "../../../src/redact/index.js";
import { luhn } from "../../../src/redact/detectors.js";
import type { JsonValue } from "../../../src/trace/types.js";

/** One example of each default detector's kind, each made so no scanner mistakes this file for a leak. */
const join = (...parts: string[]) => parts.join("");
export const PLANTED: Record<string, string> = {
  ANTHROPIC_KEY: join("sk-ant-", "api03-", "A".repeat(24)),
  OPENAI_KEY: join("sk-proj-", "B".repeat(24)),
  STRIPE_KEY: join("sk_", "live_", "C".repeat(20)),
  GOOGLE_KEY: join("AIza", "D".repeat(35)),
  AWS_KEY: join("AKIA", "EXAMPLE0EXAMPLE0"),
  GITHUB_TOKEN: join("ghp_", "F".repeat(36)),
  SLACK_TOKEN: join("xoxb-", "1234567890-abcdef"),
  JWT: join("eyJ", "hbGciOiJIUzI1NiJ9", ".eyJ", "zdWIiOiIxMjM0In0", ".", "sig_nature_0123"),
  PRIVATE_KEY: join("-----BEGIN ", "RSA PRIVATE KEY-----\nMIIB\n-----END ", "RSA PRIVATE KEY-----"),
};

describe("the default detectors", () => {
  it.each(Object.entries(PLANTED))("replace a %s with a placeholder of its kind", (kind, secret) => {
    const r = createRedactor(undefined);
    const out = r.payload("tool_result", { result: `value: ${secret} (end)` }) as { result: string };
    expect(out.result).toBe(`value: <${kind}_1> (end)`);
    expect(r.counts()).toEqual({ [kind]: 1 });
  });

  it("take a bearer token and a URL's secret parameter, keeping the words around them", () => {
    const r = createRedactor(undefined);
    const text = "Authorization: Bearer abcdefghijklmnop0123 and https://x.test/a?sig=s3cr3tvalue&page=2";
    expect(r.payload("model_input", text)).toBe(
      "Authorization: Bearer <BEARER_1> and https://x.test/a?sig=<URL_SECRET_1>&page=2",
    );
  });

  it("leave ordinary text, ids and short numbers alone, and the same object back", () => {
    const r = createRedactor(undefined);
    const v = { messages: [{ role: "user", content: "Book 2 nights in Lisbon, order 12345, call-0" }] };
    expect(r.payload("model_input", v)).toBe(v);
  });

  it("are off with defaults: false, and nothing is touched with redact: false", () => {
    const key = PLANTED.ANTHROPIC_KEY!;
    expect(createRedactor({ defaults: false }).payload("tool_result", key)).toBe(key);
    expect(createRedactor(false).payload("tool_result", key)).toBe(key);
    expect(createRedactor(false).active).toBe(false);
  });
});

describe("placeholders", () => {
  it("are stable: the same value the same placeholder in every step, another value the next number", () => {
    const r = createRedactor({ detect: ["email"] });
    expect(r.payload("model_input", "write to ann@example.com")).toBe("write to <EMAIL_1>");
    expect(r.payload("tool_call", { toolInput: { to: "bob@example.org", cc: "ann@example.com" } })).toEqual({
      toolInput: { to: "<EMAIL_2>", cc: "<EMAIL_1>" },
    });
    expect(r.counts()).toEqual({ EMAIL: 2 });
  });

  it("continue after the ones a replay serves, so the agent's next new value takes the recorded number", () => {
    const record = createRedactor({ detect: ["email"] });
    record.payload("model_output", "I will write to ann@example.com");
    const recorded = record.payload("model_input", "cc carl@example.com too");
    const replay = createRedactor({ detect: ["email"] });
    replay.observe("I will write to <EMAIL_1>");
    expect(replay.payload("model_input", "cc carl@example.com too")).toBe(recorded);
  });

  it("are never rewritten by a rule", () => {
    const r = createRedactor({ values: ["EMAIL"], patterns: ["\\d+"] });
    expect(r.payload("model_input", "<EMAIL_1> and 42")).toBe("<EMAIL_1> and <SECRET_1>");
  });
});

describe("the user's rules", () => {
  it("literal values, regular expressions with a kind, and environment variables by name", () => {
    const r = createRedactor(
      { values: ["hunter22"], patterns: [{ pattern: /cust-\d{4}/i, kind: "customer" }], env: ["DB_PASSWORD", "SHORT"] },
      { DB_PASSWORD: "pa55w0rd!", SHORT: "1" },
    );
    expect(r.payload("tool_result", "hunter22 CUST-0042 pa55w0rd! 1")).toBe(
      "<SECRET_1> <CUSTOMER_1> <DB_PASSWORD_1> 1",
    );
  });

  it("JSON paths, wherever their first key appears, by tool and by step type; the value is then a literal everywhere", () => {
    const r = createRedactor({
      paths: [
        "toolInput.customer.email",
        { path: "result.*.ssn", tool: "lookup" },
        { path: "text", step: "model_output" },
      ],
    });
    const call = { toolCallId: "call-0", toolName: "lookup", toolInput: { customer: { email: "x@y.z", name: "Ann" } } };
    expect(r.payload("tool_call", call)).toEqual({
      ...call,
      toolInput: { customer: { email: "<EMAIL_1>", name: "Ann" } },
    });
    const result = { toolCallId: "call-0", toolName: "lookup", result: [{ ssn: 123456789 }, { ssn: "987-65-4321" }] };
    expect(r.payload("tool_result", result)).toEqual({ ...result, result: [{ ssn: "<SSN_1>" }, { ssn: "<SSN_2>" }] });
    const other = { toolCallId: "call-1", toolName: "other", result: [{ ssn: "111" }] };
    expect(r.payload("tool_result", other)).toBe(other);
    expect(r.payload("model_input", { text: "mail x@y.z" })).toEqual({ text: "mail <EMAIL_1>" });
    expect(r.payload("model_output", { type: "final_answer", text: "done" })).toEqual({
      type: "final_answer",
      text: "<TEXT_1>",
    });
  });

  it("names kinds after what they stand for", () => {
    expect(kindOf("customer.email")).toBe("CUSTOMER_EMAIL");
    expect(kindOf("dbPassword")).toBe("DB_PASSWORD");
    expect(kindOf("2fa")).toBe("V2FA");
  });
});

describe("opt-in detectors of personal data", () => {
  it("cards only when they pass Luhn, phone numbers, IP addresses", () => {
    expect(luhn("4111 1111 1111 1111")).toBe(true);
    expect(luhn("4111 1111 1111 1112")).toBe(false);
    const r = createRedactor({ detect: ["card", "phone", "ip"] });
    expect(r.payload("tool_result", "card 4111 1111 1111 1111, order 4111 1111 1111 1112")).toBe(
      "card <CARD_1>, order 4111 1111 1111 1112",
    );
    expect(r.payload("tool_result", "call +44 20 7946 0958 from 10.0.12.7")).toBe("call <PHONE_1> from <IP_1>");
  });
});

describe("a write never keeps a planted secret (property)", () => {
  const secret = fc.constantFrom(...Object.values(PLANTED));
  const filler = fc.string({ unit: fc.constantFrom(..."abc xyz-_.,:;/\n\"'{}0123456789".split("")), maxLength: 30 });
  const planted = fc.tuple(filler, secret, filler).map(([a, s, b]) => ({ text: `${a} ${s} ${b}`, s }));

  it("in any string, at any depth", () => {
    fc.assert(
      fc.property(fc.array(planted, { minLength: 1, maxLength: 5 }), fc.boolean(), (items, nest) => {
        const r = createRedactor(undefined);
        const value: JsonValue = nest
          ? { messages: items.map((i) => ({ role: "user", content: [{ type: "text", text: i.text }] })) }
          : items.map((i) => i.text);
        const written = JSON.stringify(r.payload("model_input", value));
        for (const i of items) expect(written).not.toContain(i.s);
      }),
      { numRuns: 300 },
    );
  });
});

describe("a cassette already written", () => {
  const step = (index: number, payload: JsonValue) => ({ index, type: "tool_result" as const, payload });
  it("counts the placeholders it holds by kind, and says so in one phrase", async () => {
    const { placeholdersIn, redactedSummary } = await import("../../../src/redact/index.js");
    const counts = placeholdersIn([
      step(0, { a: "<EMAIL_1> <EMAIL_2>" }),
      step(1, ["<EMAIL_1>", "<AWS_KEY_1>"]),
    ] as never);
    expect(counts).toEqual({ EMAIL: 2, AWS_KEY: 1 });
    expect(redactedSummary(counts)).toBe("3 values redacted (2 EMAIL, 1 AWS_KEY)");
    expect(redactedSummary({})).toBeUndefined();
  });
});

describe("a replay's model inputs, whose earlier messages are the same objects call after call", () => {
  it("redacts what the new messages hold, as the one-shot redactor does, and hands the input back where nothing changed", () => {
    const reused = createRedactor({ detect: ["email"] }, {}, true);
    const once = createRedactor({ detect: ["email"] });
    const first = { role: "user", content: "plan a weekend" };
    const input1 = { model: "m", messages: [first] };
    expect(reused.payload("model_input", input1)).toBe(input1);
    const second = { role: "assistant", content: "I will write to ann@example.com" };
    const input2 = { model: "m", systemPrompt: "cc bob@example.com", messages: [first, second] };
    const out = reused.payload("model_input", input2);
    once.payload("model_input", input1);
    expect(out).toEqual(once.payload("model_input", input2));
    expect(out).toEqual({
      model: "m",
      systemPrompt: "cc <EMAIL_1>",
      messages: [first, { ...second, content: "I will write to <EMAIL_2>" }],
    });
  });
});
