/**
 * A framework whose tool runs are captured where the framework runs them, declared as data
 * the way OpenTelemetry's instrumentations are: the package, the versions it was read
 * against, the files of it to patch and the module-level names each hands over, and the
 * patch itself with its undo. The installer (install.ts) finds the app's copy, checks its
 * version and appends to each file, as it loads, a line handing those names to `patch`
 * (source.ts); a name listed in `replace` is rebound to what `patch` returns.
 */
import type { BlackboxError } from "../../errors.js";
import type { AnyFn } from "../../session/types.js";
import type { ToolCall } from "../../trace/types.js";

/** One file of the package: its path inside the package, how Node loads it, the names to hand over. */
export interface PatchedFile {
  readonly path: string;
  readonly format: "esm" | "cjs";
  /** Module-level names read by `patch` (a class whose prototype it patches). */
  readonly read?: readonly string[];
  /** Module-level function declarations `patch` replaces (rebound in the module, and in a CommonJS `exports`). */
  readonly replace?: readonly string[];
}

/** What a patch records a tool call through. */
export interface FrameworkHost {
  /**
   * One tool call, under `name` (the name the model calls it by) with `input` (only the
   * model's arguments): recorded and run (record), or answered from the cassette without
   * running (replay). A configured tool function the run calls in turn is part of this call, not a step of
   * its own (src/tools/index.ts).
   */
  record(name: string, input: unknown, run: () => unknown): Promise<unknown>;
  /**
   * Something the run did cannot be recorded or given back (an MCP server's request to the
   * client): the run fails with `err` at its end, as for a refused provider call (a
   * recording writes no cassette, a replay fails). Nothing in mode off.
   */
  fail(err: BlackboxError): void;
  /**
   * The cassette of a replay in which MCP servers' connect and list calls also go live, to be
   * compared with it (`blackbox replay --mcp-live`, mcpDrift.ts); else undefined.
   */
  readonly mcpLive: string | undefined;
  /**
   * The tool calls the model's latest output asked for (none before the first model call): an MCP
   * callTool recorded under a name the agent gave the tool for the model (a server prefix) is
   * recorded under that name, the call the model made (mcpNames.ts).
   */
  modelToolCalls(): readonly ToolCall[];
}

/** A patch's result: the replacements for the file's `replace` names, and its undo. */
export interface Patched {
  readonly replace?: Readonly<Record<string, AnyFn>>;
  undo(): void;
}

export interface FrameworkTarget {
  /** How a message names it: "the Vercel AI SDK". */
  readonly framework: string;
  /** The npm package whose files are patched. */
  readonly package: string;
  /** The packages an app depends on to use it, if not `package` itself (a version out of range is said for those). */
  readonly usedAs?: readonly string[];
  /** The versions read and tested: `>=a.b.c <x.y.z` (comparators joined by spaces). */
  readonly versions: string;
  readonly files: readonly PatchedFile[];
  /** Patch one loaded file: `names` holds its `read` and `replace` names' values. */
  patch(file: PatchedFile, names: Readonly<Record<string, unknown>>, host: FrameworkHost): Patched;
}
