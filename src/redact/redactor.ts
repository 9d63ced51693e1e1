/**
 * The redactor a run writes through: every step's payload passes it before its hash is
 * computed (so a cassette verifies as written), and a replay passes what the agent sends
 * through the same rules before comparing (so a request holding the real value equals the
 * recorded placeholder, and any other change still diverges). Payloads come back as the same
 * object where nothing changed. Pure: the environment's values are given.
 */
import type { JsonValue, TraceStepType } from "../trace/types.js";
import { DEFAULT_DETECTORS, OPT_IN_DETECTORS, type Detector } from "./detectors.js";
import { isPlaceholder, outsidePlaceholders, Placeholders } from "./placeholders.js";
import type { RedactPathRule, RedactRules } from "./rules.js";

export interface Redactor {
  /** False when no rule is on (redact: false): payloads pass untouched. */
  readonly active: boolean;
  /** A step's payload as it may be written (or compared). */
  payload(type: TraceStepType, value: JsonValue): JsonValue;
  /** A step the cassette already holds (a replay serves it): numbering continues after its placeholders. */
  observe(value: JsonValue): void;
  /** Distinct values replaced, by kind. */
  counts(): Record<string, number>;
}

interface PathRule {
  segs: string[];
  kind: string;
  tool?: string;
  step?: TraceStepType;
}

/** Shortest literal value a rule may name: shorter ones would rewrite ordinary words. */
export const MIN_LITERAL = 3;

/**
 * `reused`: the model inputs it is given share their earlier messages' objects from call to
 * call (a replay's incremental parse), so messages found clean are remembered and skipped; a
 * recording parses each request afresh, where remembering would only cost.
 */
export function createRedactor(
  rules: RedactRules | false | undefined,
  env: Record<string, string | undefined> = {},
  reused = false,
): Redactor {
  if (rules === false) return PASS_THROUGH;
  return new RuleRedactor(rules ?? {}, env, reused);
}

const PASS_THROUGH: Redactor = {
  active: false,
  payload: (_type, value) => value,
  observe: () => undefined,
  counts: () => ({}),
};

class RuleRedactor implements Redactor {
  readonly active = true;
  private readonly placeholders = new Placeholders();
  private readonly detectors: Detector[];
  private readonly patterns: { re: RegExp; kind: string }[];
  private readonly paths: PathRule[];
  /** Literal values and the kind each stands for: the rules', the environment's and what path rules found. */
  private readonly literals = new Map<string, string>();
  private combined: RegExp | undefined;
  /** Messages found to hold nothing to redact (objects: a replay's parse reuses them). */
  private clean = new WeakSet<object>();
  /** What a string must contain for the combined pattern to match in it (the detectors' hints, the literals). */
  private hint: RegExp | undefined;
  private readonly cache = new Map<string, string>();

  constructor(
    rules: RedactRules,
    env: Record<string, string | undefined>,
    private readonly reused: boolean,
  ) {
    this.detectors = [
      ...(rules.defaults === false ? [] : DEFAULT_DETECTORS),
      ...(rules.detect ?? []).map((name) => OPT_IN_DETECTORS[name]!),
    ];
    this.patterns = (rules.patterns ?? []).map((p) => {
      const spec = typeof p === "string" || p instanceof RegExp ? { pattern: p } : p;
      const re = spec.pattern instanceof RegExp ? spec.pattern : new RegExp(spec.pattern);
      const flags = re.flags.includes("g") ? re.flags : `${re.flags}g`;
      return { re: new RegExp(re.source, flags), kind: kindOf(spec.kind ?? "SECRET") };
    });
    this.paths = (rules.paths ?? []).map((p) => pathRule(typeof p === "string" ? { path: p } : p));
    for (const v of rules.values ?? []) this.addLiteral(v, "SECRET");
    for (const name of rules.env ?? []) {
      const v = env[name];
      if (v !== undefined && v.length >= MIN_LITERAL) this.addLiteral(v, kindOf(name));
    }
  }

  payload(type: TraceStepType, value: JsonValue): JsonValue {
    const pathed = this.paths.length ? this.byPath(value, type, undefined, []) : value;
    if (this.reused && type === "model_input" && pathed === value) return this.modelInput(value);
    return this.strings(pathed);
  }

  /**
   * A model input's messages one by one, skipping those already found clean: a replay's
   * incremental parse hands back the earlier messages' objects, so each call pays for its new
   * messages only (a recording parses afresh and finds none).
   */
  private modelInput(value: JsonValue): JsonValue {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !Array.isArray(value.messages))
      return this.strings(value);
    // in key order, as the one-shot walk goes, so values are numbered as a recording numbered them
    let out: Record<string, JsonValue> | undefined;
    for (const key of Object.keys(value)) {
      const v = value[key]!;
      const r = key === "messages" ? this.messages(v as JsonValue[]) : this.strings(v);
      if (r !== v) (out ??= { ...value })[key] = r;
    }
    return out ?? value;
  }

  private messages(messages: JsonValue[]): JsonValue[] {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m !== null && typeof m === "object" && this.clean.has(m)) continue;
      const r = this.strings(m);
      if (r !== m) (out ??= messages.slice())[i] = r;
      else if (m !== null && typeof m === "object") this.clean.add(m);
    }
    return out ?? messages;
  }

  observe(value: JsonValue): void {
    if (typeof value === "string") return this.placeholders.observe(value);
    if (value === null || typeof value !== "object") return;
    for (const v of Array.isArray(value) ? value : Object.values(value)) this.observe(v);
  }

  counts(): Record<string, number> {
    return this.placeholders.counts();
  }

  private addLiteral(value: string, kind: string): void {
    if (value.length < MIN_LITERAL || this.literals.has(value)) return;
    this.literals.set(value, kind);
    this.combined = undefined;
    this.hint = undefined;
    this.cache.clear();
    this.clean = new WeakSet();
  }

  /** Every string in `value`, redacted; the same object back where none changed. */
  private strings(value: JsonValue): JsonValue {
    if (typeof value === "string") return this.text(value);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      let out: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const v = this.strings(value[i]!);
        if (v !== value[i]) (out ??= value.slice())[i] = v;
      }
      return out ?? value;
    }
    let out: Record<string, JsonValue> | undefined;
    for (const key of Object.keys(value)) {
      const v = this.strings(value[key]!);
      if (v !== value[key]) (out ??= { ...value })[key] = v;
    }
    return out ?? value;
  }

  private text(text: string): string {
    const cached = this.cache.get(text);
    if (cached !== undefined) return cached;
    const combined = this.combinedPattern();
    const maybe = combined !== undefined && this.hint!.test(text);
    let out = text;
    for (const { re, kind } of this.patterns) {
      out = outsidePlaceholders(out, (part) => part.replace(re, (m) => (m ? this.placeholders.of(kind, m) : m)));
    }
    if (maybe) out = outsidePlaceholders(out, (part) => part.replace(combined, (...args) => this.replace(args)));
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(text, out);
    return out;
  }

  /** One pattern for the literals (longest first) and every detector, each a named group. */
  private combinedPattern(): RegExp | undefined {
    if (this.combined) return this.combined;
    const alternatives: string[] = [];
    if (this.literals.size) {
      const sorted = [...this.literals.keys()].sort((a, b) => b.length - a.length);
      alternatives.push(`(?<lit>${sorted.map(escapeRegExp).join("|")})`);
    }
    this.detectors.forEach((d, i) => alternatives.push(`(?<d${i}>${d.pattern})`));
    if (!alternatives.length) return undefined;
    this.combined = new RegExp(alternatives.join("|"), "g");
    const literals = [...this.literals.keys()].map(escapeRegExp);
    this.hint = new RegExp([...literals, ...this.detectors.map((d) => d.hint)].join("|"));
    return this.combined;
  }

  private replace(args: unknown[]): string {
    const match = args[0] as string;
    const groups = args[args.length - 1] as Record<string, string | undefined>;
    if (groups.lit !== undefined) return this.placeholders.of(this.literals.get(match)!, match);
    const i = this.detectors.findIndex((_d, i) => groups[`d${i}`] !== undefined);
    const d = this.detectors[i]!;
    if (d.check && !d.check(match)) return match;
    return this.placeholders.of(d.kind, match);
  }

  /**
   * Path rules: `pending` holds the rules part-way matched down to `value`. A rule starts at any
   * key equal to its first segment; a whole match replaces the value with its placeholder.
   */
  private byPath(
    value: JsonValue,
    type: TraceStepType,
    tool: string | undefined,
    pending: [PathRule, number][],
  ): JsonValue {
    if (value === null || typeof value !== "object") return value;
    const isArray = Array.isArray(value);
    const here = !isArray && typeof (value as Record<string, JsonValue>).toolName === "string";
    const toolHere = here ? ((value as Record<string, JsonValue>).toolName as string) : tool;
    const keys = isArray ? value.map((_v, i) => String(i)) : Object.keys(value);
    let out: JsonValue[] | Record<string, JsonValue> | undefined;
    for (const key of keys) {
      const child = (value as Record<string, JsonValue>)[key]!;
      const next: [PathRule, number][] = [];
      let whole: PathRule | undefined;
      const step = (rule: PathRule, at: number): void => {
        const seg = rule.segs[at]!;
        if (seg !== "*" && seg !== key) return;
        if (at + 1 < rule.segs.length) next.push([rule, at + 1]);
        else if ((!rule.tool || rule.tool === toolHere) && (!rule.step || rule.step === type)) whole ??= rule;
      };
      for (const [rule, at] of pending) step(rule, at);
      if (!isArray) for (const rule of this.paths) step(rule, 0);
      const replaced = whole
        ? this.whole(whole.kind, child)
        : next.length || this.paths.length
          ? this.byPath(child, type, toolHere, next)
          : child;
      if (replaced !== child) {
        out ??= isArray ? (value as JsonValue[]).slice() : { ...(value as Record<string, JsonValue>) };
        (out as Record<string, JsonValue>)[key] = replaced;
      }
    }
    return (out as JsonValue) ?? value;
  }

  /** A value a path names, as one placeholder; a string is also a literal from now on, wherever it appears. */
  private whole(kind: string, value: JsonValue): JsonValue {
    if (typeof value === "string" && isPlaceholder(value)) return value;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (typeof value === "string") this.addLiteral(value, kind);
    return this.placeholders.of(kind, text);
  }
}

function pathRule(rule: RedactPathRule): PathRule {
  const segs = rule.path
    .replace(/\[(\d+|\*)\]/g, ".$1")
    .split(".")
    .filter((s) => s !== "");
  const named = [...segs].reverse().find((s) => s !== "*" && !/^\d+$/.test(s)) ?? "VALUE";
  return { segs, kind: kindOf(named), tool: rule.tool, step: rule.step };
}

/** A placeholder kind from a name: `customer.email` -> EMAIL, `dbPassword` -> DB_PASSWORD. */
export function kindOf(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
  return /^[A-Z]/.test(snake) ? snake : `V${snake || "ALUE"}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
