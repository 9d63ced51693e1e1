/** What a run is told to redact: from `redact:` in blackbox.config.*, blackbox({ redact }) and the CLI's flags. */
import type { TraceStepType } from "../trace/types.js";
import type { OptInDetector } from "./detectors.js";

export interface RedactPathRule {
  /** A JSON path in a step's payload, matched wherever its first key appears: `toolInput.customer.email`, `result.*.ssn`. */
  path: string;
  /** Only inside the calls and results of this tool. */
  tool?: string;
  /** Only in steps of this type. */
  step?: TraceStepType;
}

export interface RedactPattern {
  pattern: string | RegExp;
  /** The placeholder's kind (default SECRET): `<SECRET_1>`. */
  kind?: string;
}

export interface RedactRules {
  /** The built-in credential detectors (API keys, tokens, private keys, URL secrets): on unless false. */
  defaults?: boolean;
  /** Opt-in detectors of personal data. */
  detect?: OptInDetector[];
  /** Literal values never written (each at least 3 characters). */
  values?: string[];
  /** Regular expressions whose matches are never written. */
  patterns?: (string | RegExp | RedactPattern)[];
  /** Environment variables whose values are never written (placeholders named after the variable). */
  env?: string[];
  /** JSON paths whose values are never written. */
  paths?: (string | RedactPathRule)[];
}

const RULE_KEYS = ["defaults", "detect", "values", "patterns", "env", "paths"];
const STEP_TYPES = ["model_input", "model_output", "tool_call", "tool_result", "metadata"];

/** What is wrong with a `redact` value, in words that say what to write instead; undefined when it is right. */
export function redactRulesProblem(value: unknown, detectors: readonly string[]): string | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return `redact must be an object of rules or false, not ${value === null ? "null" : Array.isArray(value) ? "an array" : JSON.stringify(value)}: e.g. redact: { detect: ["email"], paths: ["toolInput.customer.email"] }`;
  }
  const r = value as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!RULE_KEYS.includes(key)) return `redact.${key} is not a rule; the rules are ${RULE_KEYS.join(", ")}`;
  }
  if (r.defaults !== undefined && typeof r.defaults !== "boolean") return "redact.defaults must be true or false";
  const list = (key: string): unknown[] | string | undefined => {
    const v = r[key];
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v : `redact.${key} must be a list`;
  };
  for (const key of ["detect", "values", "patterns", "env", "paths"]) {
    const v = list(key);
    if (typeof v === "string") return v;
  }
  for (const [i, d] of ((r.detect as unknown[]) ?? []).entries()) {
    if (typeof d !== "string" || !detectors.includes(d))
      return `redact.detect[${i}] ${JSON.stringify(d)} is not a detector; the opt-in detectors are ${detectors.join(", ")}`;
  }
  for (const [i, v] of ((r.values as unknown[]) ?? []).entries()) {
    if (typeof v !== "string" || v.length < 3)
      return `redact.values[${i}] must be a string of at least 3 characters (a shorter one would rewrite ordinary words)`;
  }
  for (const [i, v] of ((r.env as unknown[]) ?? []).entries()) {
    if (typeof v !== "string" || v === "") return `redact.env[${i}] must be the name of an environment variable`;
  }
  for (const [i, p] of ((r.patterns as unknown[]) ?? []).entries()) {
    const pattern = p !== null && typeof p === "object" && !(p instanceof RegExp) ? (p as RedactPattern).pattern : p;
    if (typeof pattern === "string") {
      try {
        new RegExp(pattern);
      } catch (err) {
        return `redact.patterns[${i}] is not a regular expression: ${(err as Error).message}`;
      }
    } else if (!(pattern instanceof RegExp)) {
      return `redact.patterns[${i}] must be a regular expression, a string, or { pattern, kind }`;
    }
  }
  for (const [i, p] of ((r.paths as unknown[]) ?? []).entries()) {
    const rule = typeof p === "string" ? { path: p } : (p as RedactPathRule);
    if (rule === null || typeof rule !== "object" || typeof rule.path !== "string" || rule.path === "")
      return `redact.paths[${i}] must be a JSON path ("toolInput.customer.email") or { path, tool?, step? }`;
    if (/^\*|^\[/.test(rule.path))
      return `redact.paths[${i}] must start with a key name, not ${JSON.stringify(rule.path)}`;
    if (rule.step !== undefined && !STEP_TYPES.includes(rule.step))
      return `redact.paths[${i}].step must be one of ${STEP_TYPES.join(", ")}`;
  }
  return undefined;
}
