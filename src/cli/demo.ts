/**
 * `blackbox demo [--dir folder]`: the first thing a new user runs. Records the
 * demo agent, replays it from the cassette alone, forks it with another tool
 * result and diffs parent and child, all offline, and leaves the cassettes behind.
 */
import path from "node:path";
import type { Command } from "commander";
import { DEMO_RAIN, DemoModelClient, demoTools, runDemoAgent } from "../agent/demo.js";
import { forkRun } from "../agent/forkRun.js";
import { replayTrace } from "../agent/replayTrace.js";
import { loadTrace, saveTrace } from "../store/index.js";
import { diffOutcome, diffTraces, type Outcome } from "../trace/diff.js";
import { formatTimeline } from "../trace/timeline.js";
import { verifyTrace } from "../trace/verify.js";
import { CliExit, out as stdoutLine, outJson } from "./exit.js";
import { shownPath } from "./input.js";
import type { DemoJson } from "./schemas.js";
import { makeStyle, type Style } from "./style.js";
import { runSummary } from "./summary.js";

const short = (v: unknown, n = 90): string => {
  const text = JSON.stringify(v) ?? "(nothing)";
  return text.length > n ? `${text.slice(0, n - 3)}...` : text;
};
const outcomeText = (o: Outcome): string =>
  o.status === "success" ? `success ${short(o.result)}` : o.status === "error" ? `error: ${o.error}` : "none";

/**
 * Runs the demo; its phases are printed with `out` (nothing under --json). `found` gets
 * what --json prints.
 */
export async function runDemo(
  dirOption: string | undefined,
  s: Style = makeStyle(),
  out: (text?: string) => void = stdoutLine,
  found: { json?: DemoJson } = {},
): Promise<number> {
  const dir = path.resolve(dirOption ?? "blackbox-demo");
  const parentFile = path.join(dir, "trip.json");
  const childFile = path.join(dir, "trip-rain.json");
  const heading = (n: number, title: string) => out(`\n${s.bold(`${n}. ${title}`)}`);
  const timeline = (text: string) => out(text.trimEnd().replace(/^/gm, "   "));

  out(s.bold("Blackbox demo: a trip-planning agent, recorded, replayed, forked and diffed."));
  out(
    s.dim("Offline: the model is a small rule-based planner and the two tools are deterministic. No key, no network."),
  );

  heading(1, "Record");
  out("   The agent plans a Saturday in Lisbon: it checks the weather, picks activities that suit it, and answers.");
  const parent = await runDemoAgent({ traceId: "trip", now: Date.now });
  await saveTrace(parentFile, parent);
  out(`   wrote ${shownPath(parentFile)}: every model call and tool call, each step hash-chained to the one before`);
  timeline(formatTimeline(parent, { color: s.color }));

  heading(2, "Replay");
  const loaded = await loadTrace(parentFile);
  const verified = verifyTrace(loaded);
  const replay = await replayTrace(loaded);
  if (!verified.ok || !replay.ok) {
    const why = !verified.ok
      ? verified.problems.map((p) => `${p.path}: ${p.message}`).join("; ")
      : replay.divergence!.message;
    process.stderr.write(
      `blackbox: the demo cassette did not replay (${why}). This is a bug in Blackbox: please report it with this output.\n`,
    );
    throw new CliExit(1);
  }
  out(`   ${s.green("verified")}: the hash chain of all ${loaded.steps.length} steps is intact`);
  out(
    `   ${s.green("replayed")}: ${replay.steps} steps reproduced from the cassette alone (no model call, no tool run), same outcome`,
  );

  heading(3, "Fork");
  const at = loaded.steps.findIndex(
    (st) => st.type === "tool_result" && (st.payload as { toolName?: string }).toolName === "get_weather",
  );
  out(`   What if the forecast had said rain? Fork at step ${at} (the get_weather result) with ${short(DEMO_RAIN)}.`);
  out(
    `   Steps 0-${at - 1} are copied with their hashes; from step ${at} on, the agent runs again and sees the new result.`,
  );
  const child = await forkRun(loaded, {
    forkIndex: at,
    replacement: DEMO_RAIN,
    client: new DemoModelClient(),
    tools: demoTools,
    traceId: "trip-rain",
  });
  await saveTrace(childFile, child);
  out(`   wrote ${shownPath(childFile)}`);
  timeline(formatTimeline(child, { color: s.color }));

  heading(4, "Diff");
  const d = diffTraces(loaded, child);
  const outcome = diffOutcome(loaded, child);
  if (d) {
    out(
      `   first divergence at step ${s.bold(String(d.index))} (${d.typeA}) ${d.path}: ${short(d.a, 40)} -> ${short(d.b, 40)}`,
    );
    out(
      `   steps 0-${d.index - 1} have identical hashes; step ${d.index}'s prevHash is the parent's step ${d.index - 1} hash`,
    );
  }
  for (const [file, o] of [
    [parentFile, outcome.a],
    [childFile, outcome.b],
  ] as const) {
    out(`   outcome of ${shownPath(file)}:`);
    out(`     ${o.status === "success" && typeof o.result === "string" ? o.result : outcomeText(o)}`);
  }

  found.json = {
    ok: true,
    dir,
    parent: { ...runSummary(loaded), file: parentFile },
    child: { ...runSummary(child), file: childFile },
    at,
    divergence: d ? { index: d.index, path: d.path } : null,
  };
  const p = shownPath(parentFile);
  const c = shownPath(childFile);
  const activities = loaded.steps.findIndex(
    (st) => st.type === "tool_result" && (st.payload as { toolName?: string }).toolName === "find_activities",
  );
  const next: [string, string][] = [
    [`blackbox show ${c}`, "the child's timeline, fork point marked"],
    [`blackbox verify ${p} ${c}`, "check both hash chains"],
    [`blackbox diff ${p} ${c}`, "where the two runs part"],
    [`blackbox replay ${p}`, "replay the run offline"],
    [`blackbox fork ${p} --at ${activities} --set '{"activities":["surfing at Carcavelos"]}'`, "your own fork"],
  ];
  const width = Math.max(...next.map(([cmd]) => cmd.length));
  out(`\n${s.bold("Try next")}`);
  for (const [cmd, why] of next) out(`   ${cmd.padEnd(width)}  ${s.dim(`# ${why}`)}`);
  out(`   ${s.dim("Then change one byte of a cassette and run verify again: it names the step.")}`);
  return 0;
}

export function register(program: Command): void {
  program
    .command("demo")
    .description(
      "record, replay, fork and diff a demo agent offline (no key, no network); leaves the cassettes in --dir",
    )
    .option("--dir <folder>", "where to write the cassettes", "blackbox-demo")
    .option("--json", "print the two runs' summaries as JSON on stdout instead of the tour (docs/cli.md: JSON output)")
    .action(async (opts: { dir?: string; json?: boolean }) => {
      const found: { json?: DemoJson } = {};
      const code = opts.json
        ? await runDemo(opts.dir, makeStyle(false), () => undefined, found)
        : await runDemo(opts.dir);
      if (opts.json && found.json) outJson(found.json);
      if (code !== 0) throw new CliExit(code);
    });
}
