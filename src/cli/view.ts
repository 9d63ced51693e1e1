/**
 * `blackbox view <cassette|folder>... [-o view.html] [--open]` and
 * `blackbox view --serve [folder] [--port N] [--open]`. The viewer (src/view/) is imported
 * only when the command runs, so no other command loads it.
 */
import { resolve } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { CliExit, out, outJson } from "./exit.js";
import type { ViewJson } from "./schemas.js";
import { shownPath } from "./input.js";
import { printable, printableLines } from "../trace/printable.js";

interface ViewOptions {
  out: string;
  open?: boolean;
  serve?: boolean;
  port: number;
  json?: boolean;
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError("it must be a port number from 0 to 65535 (0: any free port).");
  return Number(value);
}

const mib = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function register(program: Command): void {
  program
    .command("view")
    .description("write runs as one self-contained HTML page (timeline, fork tree, diff, search, edit and fork)")
    .argument("[paths...]", "cassette files or folders of cassettes (with --serve: what to watch, default .)")
    .option("-o, --out <file>", "page to write", "view.html")
    .option("--open", "open the page in the default browser")
    .option("--serve", "serve a live page on 127.0.0.1 that reloads when a cassette changes")
    .option("--port <N>", "port for --serve (0: any free port)", port, 0)
    .option("--json", "print what was written (or served) as JSON on stdout (docs/cli.md: JSON output)")
    .action(async (paths: string[], opts: ViewOptions, cmd: Command) => {
      if (paths.includes("-"))
        cmd.error("error: blackbox view reads cassettes from files, not from stdin (-): save it to a file first", {
          exitCode: 2,
        });
      if (!opts.serve && cmd.getOptionValueSource("port") === "cli")
        cmd.error("error: --port applies to --serve; add --serve, or drop --port", { exitCode: 2 });
      if (opts.serve && cmd.getOptionValueSource("out") === "cli")
        cmd.error("error: --serve writes no file; drop -o, or drop --serve to write the page", { exitCode: 2 });
      if (!opts.serve && paths.length === 0)
        cmd.error(
          "error: pass a cassette or a folder of cassettes, e.g. blackbox view runs/trip.json, or watch one with blackbox view --serve runs/",
          { exitCode: 2 },
        );
      const view = await import("../view/index.js");
      const cwd = process.cwd();
      if (opts.serve) {
        const served = await view.serveView(paths, {
          cwd,
          port: opts.port,
          onError: (e) => process.stderr.write(`blackbox: the page could not be built: ${printableLines(e.message)}\n`),
        });
        if (opts.json) {
          const json: ViewJson = { out: null, url: served.url, runs: 0, bytes: null, skipped: [] };
          outJson(json);
        } else {
          out(`serving ${paths.length === 0 ? "." : paths.join(", ")} at ${served.url}`);
          out("the page reloads when a cassette there changes; Ctrl-C stops");
        }
        if (opts.open) await openOrWarn(view.openInBrowser, served.url);
        await new Promise<void>((done) => {
          const stop = (): void => {
            process.off("SIGINT", stop);
            process.off("SIGTERM", stop);
            void served.close().then(done);
          };
          process.on("SIGINT", stop);
          process.on("SIGTERM", stop);
        });
        return;
      }
      const file = resolve(opts.out);
      const page = await view.writeView(paths, file, { cwd });
      const runs = page.data.runs.length;
      for (const s of page.data.skipped)
        process.stderr.write(`blackbox: skipped ${printable(s.file)}: ${printableLines(s.reason)}\n`);
      if (opts.json) {
        const json: ViewJson = { out: file, url: null, runs, bytes: page.bytes, skipped: page.data.skipped };
        outJson(json);
      } else
        out(`wrote ${shownPath(file)} (${runs} run${runs === 1 ? "" : "s"}, ${mib(page.bytes)}): open it in a browser`);
      if (opts.open) await openOrWarn(view.openInBrowser, file);
    });
}

async function openOrWarn(open: (target: string) => Promise<unknown>, target: string): Promise<void> {
  try {
    await open(target);
  } catch (error) {
    process.stderr.write(`blackbox: ${(error as Error).message}\n`);
    throw new CliExit(1);
  }
}
