/**
 * Text -> Trace, with a clear TraceLoadError for every way a cassette can be
 * unreadable. Pure: the caller reads the file (src/store/index.ts).
 */
import { CassetteLimitError, TraceLoadError } from "../errors.js";
import { tooDeepMessage, unsafeValueIn } from "./depth.js";
import { isValidTraceShape } from "./fastShape.js";
import { findJsonSyntaxFault } from "./jsonSyntax.js";
import { MAX_JSON_DEPTH, maxSteps, tooManyStepsMessage } from "./limits.js";
import { prescanJson } from "./prescan.js";
import { clip, printable, quoted } from "./printable.js";
import { checkShape, type ShapeProblem } from "./shape.js";
import { shareRecordedHistory, type SharedValues } from "./share.js";
import { CURRENT_TRACE_VERSION, type Trace } from "./types.js";

const LEGACY_MARKER = "[tool_call:";

function where(file: string | undefined): string {
  return file === undefined ? "cassette" : `cassette ${file}`;
}

/** Line and column (1-based) of a character offset. */
export function lineColumnOf(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}

function syntaxError(text: string, error: unknown, file: string | undefined): TraceLoadError {
  let at: string;
  if (text.trim() === "") at = "it is empty";
  else {
    const found = findJsonSyntaxFault(text);
    const raw = error instanceof Error ? error.message : String(error);
    const position = found?.offset ?? Number(/position (\d+)/.exec(raw)?.[1] ?? text.length);
    const { line, column } = lineColumnOf(text, position);
    at = `line ${line}, column ${column}: ${found?.reason ?? clip(printable(raw), 200)}`;
  }
  return new TraceLoadError(
    `${where(file)} is not valid JSON (${at}). Restore the file from version control or re-record the run.`,
    { file },
  );
}

/**
 * Parses cassette text as JSON and rejects v1 cassettes; does not check the
 * schema (verifyTrace reports schema problems one by one).
 */
export function parseTraceJson(text: string, file?: string): unknown {
  const limit = maxSteps();
  const fault = prescanJson(text, MAX_JSON_DEPTH, limit);
  if (fault?.kind === "depth") {
    throw new CassetteLimitError(`${where(file)}: ${tooDeepMessage(fault.path)}`, {
      file,
      jsonPath: fault.path,
      limit: "depth",
    });
  }
  if (fault?.kind === "steps") throw tooManySteps(file, limit);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw syntaxError(text, error, file);
  }
  const steps = value !== null && typeof value === "object" ? (value as { steps?: unknown }).steps : undefined;
  if (Array.isArray(steps) && steps.length > limit) throw tooManySteps(file, limit); // spelt otherwise in the text
  const version =
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as { version?: unknown }).version
      : undefined;
  if (version === 1 || (version === undefined && text.includes(LEGACY_MARKER))) {
    throw new TraceLoadError(
      `${where(file)} is a v1 cassette (legacy "[tool_call:...]" string encoding); this Blackbox reads only version ${CURRENT_TRACE_VERSION} and there is no migration. Re-record the run to get a v${CURRENT_TRACE_VERSION} cassette.`,
      { file, jsonPath: "version" },
    );
  }
  return value;
}

function tooManySteps(file: string | undefined, limit: number): CassetteLimitError {
  return new CassetteLimitError(tooManyStepsMessage(where(file), limit), { file, jsonPath: "steps", limit: "steps" });
}

function listProblems(problems: ShapeProblem[]): string {
  const shown = problems.slice(0, 5).map((p) => `  ${clip(printable(p.path), 200)}: ${p.message}`);
  if (problems.length > 5)
    shown.push(`  ... and ${problems.length - 5} more (run \`blackbox verify\` to see them all)`);
  return shown.join("\n");
}

/** Parses and validates a v2 cassette. Throws TraceLoadError saying what is wrong and what to do. */
export function parseTrace(text: string, file?: string): Trace {
  return checkedTrace(parseTraceJson(text, file), file, undefined);
}

/**
 * parseTrace, with the recorded history shared (src/trace/share.ts): the repeats of each
 * model_input's messages become the same objects, checked once. What replay and fork load:
 * the same trace (the same text when written back), the same errors, in less time.
 * `shared` goes on to verifyTrace.
 */
export function parseTraceShared(text: string, file?: string): { trace: Trace; shared: SharedValues } {
  const value = parseTraceJson(text, file);
  const steps = value !== null && typeof value === "object" ? (value as { steps?: unknown }).steps : undefined;
  const shared = Array.isArray(steps) ? shareRecordedHistory(steps) : new Set<object>();
  return { trace: checkedTrace(value, file, shared), shared };
}

function checkedTrace(value: unknown, file: string | undefined, shared: SharedValues | undefined): Trace {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TraceLoadError(
      `${where(file)} is not a cassette: expected a JSON object with version, id, createdAt and steps. Check that you passed the right file.`,
      { file },
    );
  }
  const unsafe = unsafeValueIn(value, undefined, shared);
  if (unsafe) throw new TraceLoadError(`${where(file)}: ${unsafe.message}`, { file, jsonPath: unsafe.path });
  const version = (value as { version?: unknown }).version;
  if (version === undefined) {
    throw new TraceLoadError(
      `${where(file)} has no \`version\` field, so it is not a Blackbox cassette (or was written by something else). Check the file, or re-record the run.`,
      { file, jsonPath: "version" },
    );
  }
  if (version !== CURRENT_TRACE_VERSION) {
    throw new TraceLoadError(
      `${where(file)} has unsupported version ${quoted(version)}; this Blackbox reads version ${CURRENT_TRACE_VERSION}. Use the Blackbox release that wrote it, or re-record the run.`,
      { file, jsonPath: "version" },
    );
  }
  // the fast check says only "valid"; otherwise zod decides and says what is wrong
  const problems = isValidTraceShape(value, shared) ? [] : checkShape(value);
  if (problems.length > 0) {
    throw new TraceLoadError(
      `${where(file)} does not match the cassette format (version ${CURRENT_TRACE_VERSION}):\n${listProblems(problems)}\nFix these fields or re-record the run.`,
      { file, jsonPath: problems[0]!.path },
    );
  }
  return value as Trace;
}
