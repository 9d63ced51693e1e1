/** `blackbox show <cassette> [--json]`: the run as a readable timeline. */
import type { Command } from "commander";
import { outcomeOf } from "../trace/outcome.js";
import { formatTimeline, timelineRows } from "../trace/timeline.js";
import { outJson } from "./exit.js";
import { loadCliTrace, requireCassettes } from "./input.js";
import { useColor } from "./style.js";
import { verifyTrace } from "../trace/verify.js";
import { unrecordedTools, unrecordedToolsNote } from "../trace/unrecordedTools.js";
import { unrecordedCounts } from "./summary.js";
import { warnIfUnverified } from "./warn.js";

export function register(program: Command): void {
  program
    .command("show")
    .description("print a run as a timeline: one line a step, tool rounds grouped, fork point marked, outcome last")
    .argument("<cassette>", "cassette file")
    .option("--json", "print a machine-readable result (README: CLI JSON output)")
    .action(async (file: string, opts: { json?: boolean }, cmd: Command) => {
      requireCassettes(cmd, [file]);
      const trace = await loadCliTrace(file, "show");
      // an edited cassette is still shown (that is how one looks at it), with a warning
      const verified = verifyTrace(trace);
      const unseen = unrecordedTools(trace); // tools the agent ran outside Blackbox's view
      warnIfUnverified(file, file, verified, "It may not show what was recorded.");
      if (opts.json) {
        outJson({
          id: trace.id,
          parentId: trace.parentId ?? null,
          forkedFromStepId: trace.forkedFromStepId ?? null,
          createdAt: trace.createdAt,
          steps: timelineRows(trace),
          outcome: outcomeOf(trace),
          verify: { ok: verified.ok, problems: verified.problems },
          unrecordedTools: unrecordedCounts(trace),
        });
        return;
      }
      // on a terminal, lines fit its width; piped output does not depend on it
      const columns = process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
      process.stdout.write(formatTimeline(trace, { color: useColor(), ...(columns === undefined ? {} : { columns }) }));
      if (unseen.calls > 0) process.stdout.write(`\nwarning: ${unrecordedToolsNote(unseen)}\n`);
    });
}
