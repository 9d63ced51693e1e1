/**
 * zod schemas for cassette format v2 (spec/trace-format.md). Objects are loose:
 * unknown keys are kept (never stripped, since a step's hash covers its payload)
 * and verify's neutrality check decides whether they are allowed.
 */
import * as z from "zod";
import { TRACE_STEP_TYPES } from "./types.js";

const json = z.json();
const str = z.string();

/** Issues one list reports before it stops looking (a list of a million wrong values gave a million, GBs). */
export const MAX_LIST_ISSUES = 100;

/**
 * z.array(item), with at most MAX_LIST_ISSUES issues and one saying the rest were not looked at
 * (and no copy of the list, which z.array makes).
 */
function list(item: z.ZodType) {
  return z.unknown().superRefine((items, ctx) => {
    if (!Array.isArray(items)) {
      ctx.addIssue({
        code: "invalid_type",
        expected: "array",
        input: items,
        message: "expected an array",
        continue: false,
      });
      return;
    }
    let issues = 0;
    for (let i = 0; i < items.length; i++) {
      const r = item.safeParse(items[i]);
      if (r.success) continue;
      for (const issue of r.error.issues) {
        if (issues++ === MAX_LIST_ISSUES) {
          ctx.addIssue({
            code: "custom",
            path: [],
            message: `more problems from item ${i} on (of ${items.length}) are not listed: the first ${MAX_LIST_ISSUES} are`,
          });
          return;
        }
        ctx.addIssue({ ...issue, path: [i, ...issue.path] } as Parameters<typeof ctx.addIssue>[0]);
      }
    }
  });
}

/** A tool result carries exactly one of `result` (any JSON) or `error` (a string). */
function oneOfResultOrError(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasResult === hasError) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: hasResult
        ? "expected either `result` or `error`, not both"
        : "expected a `result` (any JSON value) or an `error` (a string)",
    });
  }
}

export const TextPartSchema = z.looseObject({ type: z.literal("text"), text: str });
export const ToolUsePartSchema = z.looseObject({
  type: z.literal("tool_use"),
  toolCallId: str,
  toolName: str,
  toolInput: json,
});
export const ToolResultPartSchema = z
  .looseObject({
    type: z.literal("tool_result"),
    toolCallId: str,
    toolName: str,
    result: json.optional(),
    error: str.optional(),
  })
  .superRefine(oneOfResultOrError);
export const MessagePartSchema = z.discriminatedUnion("type", [
  TextPartSchema,
  ToolUsePartSchema,
  ToolResultPartSchema,
]);

export const MessageSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([str, list(MessagePartSchema)]),
});

export const ToolDefinitionSchema = z.looseObject({
  name: str,
  description: str.optional(),
  inputSchema: json,
});

export const ModelInputSchema = z.looseObject({
  messages: list(MessageSchema),
  tools: list(ToolDefinitionSchema),
  systemPrompt: str.optional(),
  model: str.optional(),
  params: z.record(str, json).optional(),
});

const stop = z.enum(["length", "refusal"]).optional();
export const ToolCallSchema = z.looseObject({ toolCallId: str, toolName: str, toolInput: json });
export const ModelOutputSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("tool_call"), toolCallId: str, toolName: str, toolInput: json }),
  z.looseObject({ type: z.literal("tool_calls"), calls: list(ToolCallSchema), text: str.optional(), stop }),
  z.looseObject({ type: z.literal("final_answer"), text: str, stop }),
]);

export const ToolCallPayloadSchema = ToolCallSchema;
export const ToolResultPayloadSchema = z
  .looseObject({ toolCallId: str, toolName: str, result: json.optional(), error: str.optional() })
  .superRefine(oneOfResultOrError);

const count = z.number().int();
export const RunCompletedSchema = z.looseObject({
  event: z.literal("run_completed"),
  status: z.literal("success"),
  result: json,
});
export const RunFailedSchema = z.discriminatedUnion("reason", [
  z.looseObject({
    event: z.literal("run_failed"),
    status: z.literal("error"),
    reason: z.literal("agent_error"),
    message: str,
  }),
  z.looseObject({
    event: z.literal("run_failed"),
    status: z.literal("error"),
    reason: z.literal("process_exit"),
    exitCode: count,
  }),
  z.looseObject({
    event: z.literal("run_failed"),
    status: z.literal("error"),
    reason: z.literal("calls_in_flight"),
    exitCode: count,
    inFlight: count.nonnegative(),
  }),
  z.looseObject({
    event: z.literal("run_failed"),
    status: z.literal("error"),
    reason: z.literal("max_steps_exceeded"),
    maxSteps: count.nonnegative(),
  }),
  z.looseObject({
    event: z.literal("run_failed"),
    status: z.literal("error"),
    reason: z.literal("unknown_tool"),
    toolName: str,
  }),
]);
/** Any other metadata step: a run-level marker, an object with an `event` string. */
export const MarkerSchema = z.looseObject({ event: str });

export const TraceStepSchema = z.looseObject({
  id: str,
  index: z.number().int().nonnegative(),
  type: z.enum(TRACE_STEP_TYPES as [string, ...string[]]),
  timestamp: z.number(),
  payload: json,
  prevHash: z.union([str, z.null()]),
  hash: str.regex(/^[0-9a-f]{64}$/, "expected a SHA-256 hash: 64 lowercase hex digits"),
});

export const TraceSchema = z.looseObject({
  version: z.literal(2),
  id: str,
  parentId: str.optional(),
  forkedFromStepId: str.optional(),
  createdAt: z.number(),
  steps: list(TraceStepSchema),
});

/** The schema a step's payload must satisfy, chosen by the step type (and the metadata event). */
export function payloadSchemaFor(type: string, payload: unknown): z.ZodType | undefined {
  switch (type) {
    case "model_input":
      return ModelInputSchema;
    case "model_output":
      return ModelOutputSchema;
    case "tool_call":
      return ToolCallPayloadSchema;
    case "tool_result":
      return ToolResultPayloadSchema;
    case "metadata": {
      const event =
        payload !== null && typeof payload === "object" ? (payload as Record<string, unknown>).event : undefined;
      if (event === "run_completed") return RunCompletedSchema;
      if (event === "run_failed") return RunFailedSchema;
      return MarkerSchema;
    }
    default:
      return undefined;
  }
}
