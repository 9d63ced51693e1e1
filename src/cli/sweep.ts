/**
 * `blackbox sweep <cassette> [--at N,M | --at all] --variants <file|preset>... [--live |
 *  --script file] [--verify "<command>"] [--jobs K] [--max-calls N] [-o folder/] [--json]
 *  [-- <command...>]`: a fork per tool result and variant, the matrix of their outcomes
 * (docs/sweep.md). Exit 0: every child ran and every --verify passed; 1: a --verify failed,
 * a child could not run, or the budget left children unrun; 2: a usage error.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Command, InvalidArgumentError, Option } from "commander";
import { DEMO_MODEL, DemoModelClient, demoTools } from "../agent/demo.js";
import { forkRun } from "../agent/forkRun.js";
import { defaultSweepDir, forkPoints, runSweep, type ChildRun, type ChildSpec } from "../agent/sweep.js";
import { SWEEP_FILE_NAME } from "../agent/sweepFile.js";
import { roundAfter } from "../agent/sweepRound.js";
import { formatMatrix, summaryLine, type SweepCell, type SweepResult } from "../agent/sweepMatrix.js";
import {
  moduleVariants,
  presetName,
  PRESETS,
  resolveVariants,
  valueVariants,
  type VariantSpec,
} from "../agent/sweepVariants.js";
import { isBlackboxError } from "../errors.js";
import { loadTrace, saveTrace } from "../store/index.js";
import { loadVerifiedTraceSync } from "../store/loadVerified.js";
import type { JsonValue, Trace } from "../trace/types.js";
import { verifyTrace } from "../trace/verify.js";
import { CliExit, out, outJson } from "./exit.js";
import { runCommandChild, verifyChild } from "./sweepChild.js";
import { CONFIG_HELP, refuseCommandOptions, requireCassette, requireReadable, usageError } from "./usage.js";

interface SweepCliOptions {
  at: string;
  variants: string[];
  live?: boolean;
  script?: string;
  verify?: string;
  jobs: number;
  maxCalls?: number;
  out?: string;
  match: "strict" | "sequence";
  config?: string;
  json?: boolean;
  fresh?: boolean;
}

const count = (what: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError(`${what} must be a whole number of at least 1 (such as 4).`);
  return Number(value);
};
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--at all` or `--at 3,5,9`. */
function atList(text: string): number[] | "all" | undefined {
  if (text === "all") return "all";
  const parts = text.split(",").map((p) => p.trim());
  return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : undefined;
}

/** A --variants argument: a preset, a JSON file of values or a module of functions. */
async function variantsOf(arg: string): Promise<VariantSpec[]> {
  const preset = presetName(arg);
  if (preset) return [preset];
  const file = resolve(arg);
  if (!existsSync(file)) {
    throw new Error(
      `--variants ${arg} is neither a preset (${PRESETS.join(", ")}) nor a file; pass a preset, a .json file holding an array of values, or a .mjs file exporting functions of the recorded result`,
    );
  }
  if ([".mjs", ".js", ".cjs"].includes(extname(file))) {
    return moduleVariants((await import(pathToFileURL(file).href)) as Record<string, unknown>, file);
  }
  let values: unknown;
  try {
    values = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new Error(
      `--variants ${arg}: the file is not JSON (${(err as Error).message}); write an array of values, e.g. [{"forecast":"rain"}, null]`,
    );
  }
  return valueVariants(values, file);
}

const isDemo = (parent: Trace): boolean =>
  (parent.steps.find((s) => s.type === "model_input")?.payload as { model?: unknown } | undefined)?.model ===
  DEMO_MODEL;

/** The built-in demo agent's child: forkRun with its offline planner and tools. */
async function demoChild(parent: Trace, spec: ChildSpec): Promise<ChildRun> {
  const child = await forkRun(parent, {
    forkIndex: spec.point.at,
    replacement: spec.value,
    client: new DemoModelClient(),
    tools: demoTools,
    traceId: basename(spec.out).replace(/\.json$/i, ""),
  });
  await saveTrace(spec.out, child);
  return {};
}

/** Cells as wide as the terminal allows (24 columns off a terminal). */
function cellWidth(result: SweepResult): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  if (!columns) return 24;
  return Math.max(16, Math.min(60, Math.floor((columns - 42) / Math.max(1, result.variants.length)) - 2));
}

/** Progress on stderr: a bar on a terminal, a line per child elsewhere; none under --json (docs/cli.md). */
function progress(json: boolean | undefined) {
  const tty = process.stderr.isTTY === true;
  return (done: number, total: number, cell: SweepCell) => {
    if (json) return;
    if (tty) {
      const width = 24;
      const bar = "#".repeat(Math.round((done / total) * width)).padEnd(width, ".");
      process.stderr.write(`\rsweep [${bar}] ${done}/${total}${done === total ? "\n" : ""}`);
    } else {
      process.stderr.write(`sweep: ${done}/${total} step ${cell.at} ${cell.variant}: ${cell.status}\n`);
    }
  };
}

export function register(program: Command): void {
  program
    .command("sweep")
    .description(
      "fork at every tool result with each variant (an error, empty, null ...) and show the outcomes as a matrix",
    )
    .argument("<cassette>", "the recorded run to sweep")
    .argument("[command...]", "the command to run, after -- (default: the built-in demo agent)")
    .option("--at <N,M|all>", "tool_result steps to fork at, comma-separated, or all", "all")
    .option(
      "--variants <preset|file>",
      `a preset (${PRESETS.join(", ")}), a .json array of values or a .mjs of functions; repeatable`,
      collect,
    )
    .addOption(
      new Option("--live", "continue each child by calling the provider (the default with a command)").conflicts(
        "script",
      ),
    )
    .option("--script <file>", "continue each child from a JSON list of model outputs (offline, no tool runs)")
    .option(
      "--verify <command>",
      "a shell command run per child (BLACKBOX_SWEEP_CASSETTE, BLACKBOX_SWEEP_ANSWER ...); exit 0 passes",
    )
    .option("--jobs <K>", "children running at once", count("--jobs"), 1)
    .option("--max-calls <N>", "start no child once the children made N model calls", count("--max-calls"))
    .option("-o, --out <folder>", "folder for the children and sweep.json (default: <cassette>.sweep/ beside it)")
    .addOption(
      new Option("--match <mode>", "how requests before the fork point are matched")
        .choices(["strict", "sequence"])
        .default("strict"),
    )
    .option("--config <file>", CONFIG_HELP)
    .option("--fresh", "run every child again, reusing none from an earlier sweep in the folder")
    .option("--json", "print the sweep (the matrix) as JSON on stdout")
    .action(async (cassette: string, command: string[], opts: SweepCliOptions, cmd: Command) => {
      const usage = (message: string): never => usageError(cmd, message);
      const file = resolve(cassette);
      requireCassette(cmd, file, cassette, "sweep");
      const at = atList(opts.at);
      if (at === undefined) usage(`--at ${opts.at} is not a list of step indexes; pass e.g. --at 3,5 or --at all`);
      if (!opts.variants?.length)
        usage(
          `sweep needs --variants: a preset (${PRESETS.join(", ")}), a .json array of values or a .mjs of functions`,
        );
      if (command.length === 0) refuseCommandOptions(cmd, "sweeping");
      const script = opts.script ? resolve(opts.script) : undefined;
      if (script) requireReadable(cmd, script, "--script file", "pass a JSON list of model outputs");
      if (opts.config)
        requireReadable(
          cmd,
          resolve(opts.config),
          "config",
          "pass the path of a blackbox.config file, or drop --config",
        );
      let specs: VariantSpec[] = [];
      try {
        for (const v of opts.variants) specs.push(...(await variantsOf(v)));
        resolveVariants(specs);
      } catch (err) {
        usage((err as Error).message);
      }
      const parent = await loadTrace(file); // not a cassette: exit 2 (main.ts)
      const verdict = verifyTrace(parent);
      if (!verdict.ok) {
        process.stderr.write(
          `blackbox: the cassette ${file} fails verify, so no child was run; run \`blackbox verify ${file}\` for the details\n`,
        );
        throw new CliExit(1);
      }
      try {
        forkPoints(parent, at);
      } catch (err) {
        usage((err as Error).message);
      }
      if (command.length === 0 && !isDemo(parent))
        usage(
          `${file} was not recorded by the built-in demo agent, so blackbox cannot continue it on its own; sweep your own agent by running it: blackbox sweep ${cassette} --variants ${opts.variants[0]} -- <command>`,
        );
      const variants = resolveVariants(specs);
      const outDir = resolve(opts.out ?? defaultSweepDir(file));
      const named = opts.config ?? process.env.BLACKBOX_CONFIG;
      const config = named ? resolve(named) : undefined;
      const scriptText = script ? readFileSync(script, "utf8") : null;
      const runChild =
        command.length === 0
          ? (spec: ChildSpec) => demoChild(parent, spec)
          : async (spec: ChildSpec) => {
              const run = await runCommandChild({ command, cassette: file, script, match: opts.match, config }, spec);
              // scripted, the fork round's calls were answered from the parent (any other is refused)
              return script && run.error === undefined ? { ...run, answered: roundAfter(parent, spec.point.at) } : run;
            };
      let result: SweepResult;
      try {
        result = await runSweep(
          {
            parentPath: file,
            parent,
            at,
            variants,
            outDir,
            continueWith: script || command.length === 0 ? "script" : "live",
            inputs: {
              command: command.length ? command : "demo",
              script: scriptText,
              match: opts.match,
              config: config ?? null,
            } as JsonValue,
            command: command.length ? command : null,
            jobs: opts.jobs,
            ...(opts.maxCalls === undefined ? {} : { maxCalls: opts.maxCalls }),
            fresh: opts.fresh === true,
          },
          {
            runChild,
            loadChild: (f) => {
              try {
                return loadVerifiedTraceSync(f);
              } catch {
                return undefined;
              }
            },
            ...(opts.verify ? { grade: (cell: SweepCell) => verifyChild(opts.verify!, cell) } : {}),
            progress: progress(opts.json),
          },
        );
      } catch (err) {
        if (isBlackboxError(err)) throw err;
        process.stderr.write(`blackbox: the sweep of ${file} stopped: ${(err as Error).message}\n`);
        throw new CliExit(1);
      }
      const sweepFile = resolve(outDir, SWEEP_FILE_NAME);
      if (opts.json) outJson(result);
      else {
        const how = command.length === 0 ? "the built-in demo agent" : script ? "scripted" : "live";
        out(`sweep of ${file}: ${result.rows.length} tool results x ${result.variants.length} variants (${how})`);
        out();
        process.stdout.write(formatMatrix(result, cellWidth(result)));
        out();
        out(summaryLine(result.summary));
        out(`sweep file: ${sweepFile}; look at it: blackbox view ${outDir}`);
      }
      if (!result.ok) {
        const s = result.summary;
        const what = [
          s.graded > s.passed ? `${s.graded - s.passed} child(ren) failed --verify` : "",
          s.errors ? `${s.errors} child(ren) could not run (the matrix says why)` : "",
          s.skipped ? `${s.skipped} child(ren) were not run: the --max-calls budget was spent` : "",
        ].filter(Boolean);
        process.stderr.write(`blackbox: sweep check failed: ${what.join("; ")}\n`);
        throw new CliExit(1);
      }
    });
}
