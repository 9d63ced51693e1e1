/** `blackbox replay <cassette> [--match strict|sequence] [--config f] [--mcp-live] [--json] [-- <command...>]` */
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { loadTrace } from "../store/index.js";
import { replayBuiltin, type BuiltinFindings } from "./builtin.js";
import { consoleIo, runUnderHook, strictToolsVar } from "./hookedRun.js";
import { endRun, JSON_HELP } from "./runJson.js";
import type { ReplayJson } from "./schemas.js";
import { runSummary } from "./summary.js";
import { isRunFolder, loadRun, runFolderSummary } from "./runFolder.js";
import { CONFIG_HELP, configPath, requireCassette, usageError } from "./usage.js";

interface ReplayOptions {
  match: "strict" | "sequence";
  config?: string;
  mcpLive?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command("replay")
    .description(
      "run a command offline against a cassette (or, without one, the built-in demo agent); exit 1 when the run diverged",
    )
    .argument("<cassette>", "cassette to replay")
    .argument("[command...]", "the command to run, after --")
    .addOption(
      new Option("--match <mode>", "how requests are matched").choices(["strict", "sequence"]).default("strict"),
    )
    .option("--config <file>", CONFIG_HELP)
    .option("--strict-tools", "refuse a cassette whose tools ran outside Blackbox's view (BLACKBOX_STRICT_TOOLS=1)")
    .option(
      "--mcp-live",
      "start the agent's MCP servers and compare their tools with the cassette's (model and tool calls still replayed); exit 1 when a tool changed",
    )
    .option("--json", JSON_HELP)
    .action(async (cassette: string, command: string[], opts: ReplayOptions, cmd: Command) => {
      const file = resolve(cassette);
      const run = isRunFolder(file);
      if (run && command.length === 0)
        usageError(
          cmd,
          `error: ${cassette} is a run of several conversations; replay it with the command that recorded it: blackbox replay ${cassette} -- <command>`,
        );
      if (!run) requireCassette(cmd, file, cassette, "replay");
      const loaded = run ? loadRun(file) : undefined; // a broken run: exit 2, as a broken cassette (main.ts)
      const recording = loaded ? runFolderSummary(loaded.index, loaded.traces) : runSummary(await loadTrace(file)); // not a cassette: exit 2 (main.ts)
      if (command.length === 0) {
        for (const [name, flag] of [
          ["match", "--match"],
          ["config", "--config"],
          ["mcpLive", "--mcp-live"],
        ] as const) {
          if (cmd.getOptionValueSource(name) === "cli")
            usageError(
              cmd,
              `error: ${flag} applies when replaying a command (after --); without one, the built-in demo agent is replayed from the cassette alone. Drop ${flag}, or add -- <command>`,
            );
        }
        const found: BuiltinFindings = {};
        const code = await replayBuiltin(file, consoleIo(opts.json), found);
        const json: ReplayJson = {
          ok: code === 0,
          command: null,
          exitCode: null,
          error: found.error ?? null,
          cassette: file,
          run: recording,
          divergence: found.divergence ?? null,
        };
        endRun(opts.json && code !== 2, json, code); // 2: a usage error (what to type instead), no result
        return;
      }
      const config = configPath(cmd, opts.config);
      const r = await runUnderHook({
        command,
        reads: file,
        placeholderKeys: true,
        stdoutToStderr: opts.json,
        strictTools: strictToolsVar(cmd).BLACKBOX_STRICT_TOOLS === "1",
        vars: {
          BLACKBOX_MODE: "replay",
          BLACKBOX_CASSETTE: file,
          BLACKBOX_MATCH: opts.match,
          BLACKBOX_CONFIG: config,
          ...(opts.mcpLive ? { BLACKBOX_MCP_LIVE: "1" } : {}),
          ...strictToolsVar(cmd),
        },
      });
      const json: ReplayJson = {
        ok: r.exitCode === 0,
        command,
        exitCode: r.childCode,
        error: r.error,
        cassette: file,
        run: recording,
        divergence: r.divergence,
      };
      endRun(opts.json, json, r.exitCode);
    });
}
