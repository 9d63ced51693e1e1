/**
 * The variants of a sweep (docs/sweep.md): what each child gets at its fork point instead
 * of the recorded tool result. A preset (`error:"timeout"`, `error:"500"`, `empty`, `null`,
 * `truncated`), a fixed value, or a function of the recorded result.
 */
import { ForkError } from "../errors.js";
import { plainJsonProblem } from "../trace/plainJson.js";
import type { JsonValue } from "../trace/types.js";

/** The fork point a variant is applied to: a tool_result step of the parent. */
export interface ForkPointInfo {
  /** The step index. */
  at: number;
  toolName: string;
  toolInput: JsonValue;
  /** The recorded result (null when the recorded tool failed: `recordedError` says how). */
  recorded: JsonValue;
  recordedError?: string;
}

/** A variant as a caller names it. A string is always a preset. */
export type VariantSpec =
  | string
  | { name: string; value: JsonValue }
  | { name: string; result: (recorded: JsonValue, at: ForkPointInfo) => unknown };

/** A variant ready to apply: its column name, its file-name part, and the value it gives a fork point. */
export interface Variant {
  name: string;
  slug: string;
  kind: "preset" | "value" | "function";
  valueAt(point: ForkPointInfo): JsonValue;
}

export const PRESETS = ['error:"timeout"', 'error:"500"', "empty", "null", "truncated"] as const;

/** A preset's name as the CLI and the code take it, else undefined: `error:"text"` takes any text. */
export function presetName(text: string): string | undefined {
  const error = /^error:(?:"([^"]*)"|([^"\s][^"]*))$/.exec(text.trim());
  if (error) return `error:${JSON.stringify(error[1] ?? error[2])}`;
  return ["empty", "null", "truncated"].includes(text.trim()) ? text.trim() : undefined;
}

/** The recorded result emptied, keeping its type where it has an empty form. */
function emptied(v: JsonValue): JsonValue {
  if (typeof v === "string") return "";
  if (Array.isArray(v)) return [];
  if (v !== null && typeof v === "object") return {};
  return null;
}

/** The recorded result cut off halfway, as a response cut short reads: a string's first half, else its JSON text's. */
function truncated(v: JsonValue): JsonValue {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.slice(0, Math.floor(text.length / 2));
}

function presetVariant(name: string): Variant {
  const slug = slugOf(name);
  if (name.startsWith("error:")) {
    const error = JSON.parse(name.slice(6)) as string;
    return { name, slug, kind: "preset", valueAt: () => ({ error }) };
  }
  const make = name === "empty" ? emptied : name === "truncated" ? truncated : () => null;
  return { name, slug, kind: "preset", valueAt: (p) => make(p.recorded) };
}

/** A file-name part: lower case letters, digits and dashes. */
export function slugOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "variant"
  );
}

/** A value checked as a cassette value (a result must be plain JSON). */
function checked(value: unknown, what: string): JsonValue {
  const bad = plainJsonProblem(what, value);
  if (bad) throw new ForkError(bad);
  return structuredClone(value) as JsonValue;
}

/** The variants, named uniquely (a second `empty` is an error; two slugs alike get -2, -3). */
export function resolveVariants(specs: readonly VariantSpec[]): Variant[] {
  if (specs.length === 0) {
    throw new ForkError(
      `a sweep needs at least one variant: pass a preset (${PRESETS.join(", ")}), { name, value } or { name, result: (recorded) => ... }`,
    );
  }
  const out: Variant[] = [];
  for (const spec of specs) {
    let v: Variant;
    if (typeof spec === "string") {
      const name = presetName(spec);
      if (!name)
        throw new ForkError(
          `unknown sweep variant preset ${JSON.stringify(spec)}: the presets are ${PRESETS.join(", ")} (error:"<any text>" too); pass a value as { name, value }`,
        );
      v = presetVariant(name);
    } else if (spec && typeof spec === "object" && typeof spec.name === "string" && "value" in spec) {
      const value = checked(spec.value, `the value of variant "${spec.name}"`);
      v = { name: spec.name, slug: slugOf(spec.name), kind: "value", valueAt: () => structuredClone(value) };
    } else if (
      spec &&
      typeof spec === "object" &&
      typeof spec.name === "string" &&
      "result" in spec &&
      typeof spec.result === "function"
    ) {
      const fn = spec.result;
      const name = spec.name;
      v = {
        name,
        slug: slugOf(name),
        kind: "function",
        valueAt: (p) => checked(fn(structuredClone(p.recorded), p), `what variant "${name}" returned for step ${p.at}`),
      };
    } else {
      throw new ForkError(
        `a sweep variant must be a preset name, { name, value } or { name, result: (recorded) => value }; got ${JSON.stringify(spec)}`,
      );
    }
    if (out.some((o) => o.name === v.name))
      throw new ForkError(`the sweep variant "${v.name}" is given twice; give each variant once, or another name`);
    let slug = v.slug;
    for (let n = 2; out.some((o) => o.slug === slug); n++) slug = `${v.slug}-${n}`;
    out.push({ ...v, slug });
  }
  return out;
}

/** A JSON file's variants: an array of values, each named by its JSON text (clipped). */
export function valueVariants(values: unknown, file: string): VariantSpec[] {
  if (!Array.isArray(values) || values.length === 0) {
    throw new ForkError(
      `the variants file ${file} must hold a JSON array of values (each a tool result to try), e.g. [{"forecast":"rain"}, null, "n/a"]`,
    );
  }
  return values.map((value: unknown) => {
    const text = JSON.stringify(value) ?? String(value);
    return { name: text.length > 48 ? `${text.slice(0, 45)}...` : text, value: value as JsonValue };
  });
}

/** A module's variants: each exported function (its export name), or a default export that is a function, an array or an object of them. */
export function moduleVariants(mod: Record<string, unknown>, file: string): VariantSpec[] {
  const out: VariantSpec[] = [];
  const add = (name: string, fn: unknown) => {
    if (typeof fn === "function") out.push({ name, result: fn as (recorded: JsonValue, at: ForkPointInfo) => unknown });
  };
  for (const [name, value] of Object.entries(mod)) {
    if (name !== "default") add(name, value);
  }
  const d = mod.default;
  if (typeof d === "function") add(d.name && d.name !== "default" ? d.name : "default", d);
  else if (Array.isArray(d))
    d.forEach((fn: unknown, i) => add((fn as { name?: string }).name || `variant ${i + 1}`, fn));
  else if (d && typeof d === "object") for (const [name, fn] of Object.entries(d)) add(name, fn);
  if (out.length === 0) {
    throw new ForkError(
      `the variants module ${file} exports no function: export one per variant, e.g. export const rain = (recorded) => ({ ...recorded, forecast: "rain" })`,
    );
  }
  return out;
}
