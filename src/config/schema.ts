/**
 * The zod schema of blackbox.config (its own module: zod is slow to import, paid only for a config the fast
 * check does not accept; bench/startup.mjs).
 */
import { z } from "zod";
import { SERVICE_NAMES } from "../providers/index.js";

const identifier = z.string().min(1);
export const configSchema = z.strictObject({
  tools: z
    .array(
      z.union([
        z.strictObject({ module: identifier, exports: z.array(identifier).min(1) }),
        z.strictObject({ module: identifier, export: identifier, name: identifier.optional() }),
      ]),
    )
    .optional(),
  // checked by redactRulesProblem (src/redact/rules.ts), whose messages name the rule
  redact: z.unknown().optional(),
  providers: z.strictObject(Object.fromEntries(SERVICE_NAMES.map((p) => [p, z.array(z.url()).optional()]))).optional(),
});

export function formatIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length
    ? issue.path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "")
    : "(top level)";
  return `${path}: ${issue.message}`;
}
