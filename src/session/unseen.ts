/**
 * Tool calls that ran outside Blackbox's view (src/trace/unrecordedTools.ts), as a session
 * meets them: a record or fork about to write such a cassette, a replay or fork about to
 * run one. Without strictTools the recording is written and the replay runs (the caller
 * says so: the CLI's closing line, the library's warning); with it, both are refused.
 */
import { BlackboxConfigError, SessionError } from "../errors.js";
import type { Trace, TraceStep } from "../trace/types.js";
import { unrecordedTools, unrecordedToolsNote } from "../trace/unrecordedTools.js";
import type { SessionOptions, SessionPorts } from "./types.js";

/** strictTools: the option, else BLACKBOX_STRICT_TOOLS ("1"/"true" or "0"/"false"/unset). */
export function strictToolsOf(
  options: Pick<SessionOptions, "strictTools">,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (options.strictTools !== undefined) return options.strictTools;
  const v = env.BLACKBOX_STRICT_TOOLS;
  if (v === undefined || v === "" || v === "0" || v === "false") return false;
  if (v === "1" || v === "true") return true;
  throw new BlackboxConfigError(
    `BLACKBOX_STRICT_TOOLS=${JSON.stringify(v)} is not valid; set it to 1 (refuse a run whose tools are not all recorded) or 0, or unset it`,
  );
}

/** A record (or fork) with strictTools writes no cassette whose tools are not all recorded. */
export function checkRecordedTools(steps: readonly TraceStep[], strict: boolean, out: string): string | undefined {
  const u = unrecordedTools(steps);
  if (u.calls === 0) return undefined;
  const note = unrecordedToolsNote(u);
  if (strict) {
    throw new SessionError(
      `strict tools (--strict-tools, strictTools, BLACKBOX_STRICT_TOOLS=1): ${note}. No cassette was written to ${out}.`,
    );
  }
  return note;
}

/** A replay (or fork) with strictTools is refused before the agent starts when the recording's tools ran unseen. */
export function checkReplayedTools(trace: Trace, strict: boolean, cassette: string): string | undefined {
  const u = unrecordedTools(trace);
  if (u.calls === 0) return undefined;
  const note = `${cassette}: ${unrecordedToolsNote(u)}`;
  if (strict) {
    throw new SessionError(
      `strict tools (--strict-tools, strictTools, BLACKBOX_STRICT_TOOLS=1): the replay was refused before the agent started, since ${note}.`,
    );
  }
  return note;
}

/**
 * Why a replay (or fork) in which no tool is wrapped ran none of the recording's tools: the hook found no config
 * (`toolsConfig.file` undefined), or in code the session wraps none. Undefined when a config was found.
 */
export function whyNoToolWrapped(config: SessionPorts["toolsConfig"]): string | undefined {
  if (!config) {
    return "no tool is wrapped in this session, so the agent ran its tools itself. Wrap them with bb.tools({ ... }) on this session, as the recording did";
  }
  if (config.file !== undefined) return undefined; // a config that wraps none of them: the usual message says it
  return (
    `no blackbox.config.* was found (in ${config.cwd}, nor where blackbox was started), so the tools it names were not wrapped and the agent ran them itself. ` +
    "Replay from the folder that holds the recording's config, or name it: BLACKBOX_CONFIG=<file> (or --config <file>)"
  );
}
