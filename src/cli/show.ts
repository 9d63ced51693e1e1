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
import { conversationsLine, isRunFolder, loadRun } from "./runFolder.js";

export function register(program: Command): void {
  program
    .command("show")
    .description("print a run as a timeline: one line a step, tool rounds grouped, fork point marked, outcome last")
    .argument("<cassette>", "cassette file, or a run's folder (its conversations one after another)")
    .option("--json", "print a machine-readable result (README: CLI JSON output)")
    .action(async (file: string, opts: { json?: boolean }, cmd: Command) => {
      if (isRunFolder(file)) return showRun(file, opts.json === true);
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

/**
 * A run of several conversations (docs/conversations.md): the conversations in the order they started (when,
 * relative to the first; how each was told apart), then each one's timeline.
 */
function showRun(folder: string, json: boolean): void {
  const { index, traces } = loadRun(folder);
  const t0 = index.conversations[0]?.startedAt ?? index.createdAt;
  if (json) {
    outJson({
      id: index.id,
      createdAt: index.createdAt,
      conversations: index.conversations.map((c, i) => ({
        ...c,
        steps: timelineRows(traces[i]!),
        outcome: outcomeOf(traces[i]!),
      })),
    });
    return;
  }
  const color = useColor();
  const columns = process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
  const lines = [`run ${index.id}: ${conversationsLine(index)}, in the order they started`];
  index.conversations.forEach((c, i) => {
    const o = outcomeOf(traces[i]!);
    lines.push(
      `  ${String(i + 1).padStart(2)}  ${c.file}  +${c.startedAt - t0} ms  ${c.modelCalls} model, ${c.toolCalls} tool call(s)  ${o.status}  (${c.toldApart})`,
    );
  });
  process.stdout.write(`${lines.join("\n")}\n`);
  index.conversations.forEach((c, i) => {
    process.stdout.write(`\n== ${c.file} ==\n`);
    process.stdout.write(formatTimeline(traces[i]!, { color, ...(columns === undefined ? {} : { columns }) }));
  });
}
