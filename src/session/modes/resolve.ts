/**
 * Record modes: the one rule that turns `mode: "auto"` (blackbox({ mode: "auto" }), the
 * hook's BLACKBOX_MODE=auto, the test helpers' useCassette()) into record or replay, from
 * BLACKBOX_RECORD and whether the cassette exists:
 *
 * - `missing` (the default outside CI): replay a cassette that exists, record one that does not;
 * - `none` (the default when CI is set): never record; a missing cassette is an error saying
 *   how to record it;
 * - `all`: record every cassette the run uses, over the one there (the update mode).
 *
 * A recording needs an API key: without one in the environment it is refused here, before
 * anything is sent. Pure: the caller says whether the file exists and how to run again.
 */
import { SessionError } from "../../errors.js";
import { KEY_ENVS } from "../../providers/index.js";
import type { SessionOptions } from "../types.js";

export const RECORD_MODES = ["missing", "none", "all"] as const;
export type RecordMode = (typeof RECORD_MODES)[number];

type Env = Readonly<Record<string, string | undefined>>;

/** The key a replay's environment carries where none is set (src/config/env.ts): never sent, no key to record with. */
export const PLACEHOLDER_KEY = "blackbox-placeholder-key-never-sent";

/** CI as the CI services set it: any value but empty, "0" or "false". */
export function inCi(env: Env): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== "" && v !== "0" && v !== "false";
}

/** The record mode in force and where it came from: BLACKBOX_RECORD, then the code's `record`, then CI or not. */
export function recordModeOf(env: Env, option?: RecordMode): { record: RecordMode; from: string } {
  const raw = env.BLACKBOX_RECORD?.trim();
  if (raw) {
    const word = raw.toLowerCase();
    if (!(RECORD_MODES as readonly string[]).includes(word)) {
      throw new SessionError(
        `BLACKBOX_RECORD="${raw}" is not valid; set it to one of: ${RECORD_MODES.join(", ")} (missing: record the cassettes that do not exist; none: never record; all: re-record every cassette)`,
      );
    }
    return { record: word as RecordMode, from: `BLACKBOX_RECORD=${word}` };
  }
  if (option !== undefined) return { record: option, from: `record: "${option}"` };
  return inCi(env)
    ? { record: "none", from: "BLACKBOX_RECORD=none, the default when CI is set" }
    : { record: "missing", from: "BLACKBOX_RECORD=missing, the default outside CI" };
}

/** The names of the API key variables, and whether one holds a key (not the replay placeholder). */
export function keyInEnv(env: Env): { names: string[]; set: boolean } {
  const names = [...KEY_ENVS];
  return { names, set: names.some((n) => !!env[n] && env[n] !== PLACEHOLDER_KEY) };
}

/** How to run again in the caller's context: to record a missing cassette, and to re-record one. */
export interface RunAgain {
  /** e.g. `npx vitest run agent.test.ts -t "books Lisbon"`; BLACKBOX_RECORD=... is put in front. */
  command: string;
}

export interface Choice {
  mode: "record" | "replay";
  record: RecordMode;
  /** Why: the record mode and where it came from. */
  from: string;
}

/** Record or replay `cassette`, by the rules above; throws what to do when neither may happen. */
export function chooseMode(input: {
  cassette: string;
  exists: boolean;
  env: Env;
  record?: RecordMode;
  again: RunAgain;
}): Choice {
  const { record, from } = recordModeOf(input.env, input.record);
  const mode = record === "all" || (record === "missing" && !input.exists) ? "record" : "replay";
  if (mode === "replay" && !input.exists) {
    throw new SessionError(
      `no cassette at ${input.cassette}, and ${from} never records one. Record it where an API key is set: BLACKBOX_RECORD=missing ${input.again.command}, then commit the cassette.`,
    );
  }
  if (mode === "record") {
    const keys = keyInEnv(input.env);
    if (!keys.set) {
      const why = input.exists ? `${from} re-records it` : `there is none yet and ${from} records it`;
      throw new SessionError(
        `recording ${input.cassette} needs an API key (${why}), and none is set (${keys.names.join(", ")}); nothing was sent. Set the key and run ${record === "all" ? "BLACKBOX_RECORD=all " : ""}${input.again.command} again, or commit a recorded cassette at that path to replay it.`,
      );
    }
  }
  return { mode, record, from };
}

/** The options of a session in mode "auto", made concrete: record into the cassette, or replay it. */
export function resolveAuto(
  options: SessionOptions,
  env: Env,
  exists: (file: string) => boolean,
  again: RunAgain,
): SessionOptions {
  if (options.mode !== "auto") return options;
  const cassette = options.cassette ?? options.out;
  if (!cassette) {
    throw new SessionError(
      `mode "auto" needs the cassette it replays or records: pass blackbox({ mode: "auto", cassette: "runs/name.json" })`,
    );
  }
  if (options.out !== undefined && options.cassette !== undefined && options.out !== options.cassette) {
    throw new SessionError(
      `mode "auto" reads and writes one cassette: pass cassette only (out ${JSON.stringify(options.out)} differs from cassette ${JSON.stringify(options.cassette)})`,
    );
  }
  const choice = chooseMode({ cassette, exists: exists(cassette), env, record: options.record, again });
  const { record: _record, ...rest } = options;
  const updateCommand = options.updateCommand ?? `BLACKBOX_RECORD=all ${again.command}`;
  return choice.mode === "record"
    ? { ...rest, mode: "record", out: cassette, cassette: undefined, updateCommand }
    : { ...rest, mode: "replay", cassette, out: undefined, updateCommand };
}
