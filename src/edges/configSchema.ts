/** The zod schema of blackbox.config (its own module: zod costs ~60 ms to import, paid only when a config exists). */
import { z } from "zod";

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
  providers: z
    .strictObject({ anthropic: z.array(z.url()).optional(), openai: z.array(z.url()).optional() })
    .optional(),
});


export function formatIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length ? issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "") : "(top level)";
  return `${path}: ${issue.message}`;
}

