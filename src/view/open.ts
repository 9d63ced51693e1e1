/**
 * `--open`: the page (or the served address) in the default browser. The opener is the
 * platform's (xdg-open, open, start), or the command in BLACKBOX_VIEW_OPENER, which is
 * run with the target as its one argument (tests, or a browser of your choice).
 */
import { spawn } from "node:child_process";

export interface Opener {
  command: string;
  args: string[];
}

/** The command that opens `target` in the default browser on `platform`. */
export function openerFor(
  platform: NodeJS.Platform,
  target: string,
  env: Record<string, string | undefined> = {},
): Opener {
  const override = env.BLACKBOX_VIEW_OPENER;
  if (override !== undefined && override !== "") return { command: override, args: [target] };
  if (platform === "darwin") return { command: "open", args: [target] };
  // start is a cmd built-in; its first quoted argument is the window title
  if (platform === "win32") return { command: "cmd", args: ["/c", "start", '""', target] };
  return { command: "xdg-open", args: [target] };
}

/** Starts the opener and resolves once it runs; rejects with why it could not be started. */
export function openInBrowser(target: string): Promise<Opener> {
  const opener = openerFor(process.platform, target, process.env);
  return new Promise((resolve, reject) => {
    const child = spawn(opener.command, opener.args, {
      stdio: "ignore",
      detached: process.platform !== "win32",
      windowsVerbatimArguments: process.platform === "win32",
    });
    child.once("error", (error) =>
      reject(
        new Error(
          `${opener.command} could not be started (${(error as NodeJS.ErrnoException).code ?? error.message}): open ${target} in a browser yourself, or set BLACKBOX_VIEW_OPENER to a command that opens it`,
        ),
      ),
    );
    child.once("spawn", () => {
      child.unref();
      resolve(opener);
    });
  });
}
