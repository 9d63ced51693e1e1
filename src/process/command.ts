/**
 * The command that ran this process, as a message tells the user to run it again
 * (`BLACKBOX_RECORD=all npm test`): npm's script when npm started it, vitest when it runs
 * the tests, else node and the script, relative to the working folder.
 */
import { isAbsolute, relative } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/** A word as a POSIX shell reads it back: bare when it is safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function commandOf(env: Env = process.env, argv: string[] = process.argv, cwd: string = process.cwd()): string {
  const event = env.npm_lifecycle_event;
  // npx (npm exec) names itself there: no script to run again
  if (event && event !== "npx")
    return event === "test" || event === "start" ? `npm ${event}` : `npm run ${shellWord(event)}`;
  if (env.VITEST) return "npx vitest run";
  const script = argv[1];
  if (!script) return "node";
  const shown = isAbsolute(script) ? relative(cwd, script) || script : script;
  return ["node", ...[shown, ...argv.slice(2)].map(shellWord)].join(" ");
}
