/**
 * The fork a viewer's edit stands for: the `blackbox fork` command line (POSIX shell
 * quoting) and the same fork as in-code session options. Pure, and bundled into the page
 * as it is, so what the page shows is what these tests check (test/unit/view/).
 */
import { plainJsonProblem } from "../trace/plainJson.js";

/** A word single-quoted for a POSIX shell (sh, bash, zsh): each ' written as '\''. */
export function singleQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A word for a POSIX shell: bare when it holds nothing the shell reads, else single-quoted. */
export function shellQuote(word: string): string {
  return word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : singleQuote(word);
}

/** Where `blackbox fork` writes when no --out is given: `<name>.fork-<N>.json` beside the parent (as src/cli/builtin.ts). */
export function defaultForkOut(cassette: string, at: number): string {
  const slash = Math.max(cassette.lastIndexOf("/"), cassette.lastIndexOf("\\"));
  const dir = slash >= 0 ? cassette.slice(0, slash + 1) : "";
  const base = (slash >= 0 ? cassette.slice(slash + 1) : cassette).replace(/\.json$/i, "");
  return `${dir}${base}.fork-${at}.json`;
}

export interface ForkEdit {
  /** The cassette as the command names it. */
  cassette: string;
  /** The tool_result step's index. */
  at: number;
  /** The edited result as the user typed it (JSON text). */
  text: string;
  /**
   * The agent's command after `--`; empty: none. A cassette of the built-in demo agent is
   * continued by `blackbox fork` itself, without a command.
   */
  command: string;
}

export type ForkPlan =
  { ok: true; value: unknown; json: string; cli: string; code: string } | { ok: false; problem: string };

/** The command and the code for an edit, or what is wrong with the edited text. */
export function forkPlan(edit: ForkEdit): ForkPlan {
  let value: unknown;
  try {
    value = JSON.parse(edit.text);
  } catch (error) {
    return {
      ok: false,
      problem: `the result is not valid JSON (${(error as Error).message}); quote a string, e.g. "sunny"`,
    };
  }
  const bad = plainJsonProblem("the result", value);
  if (bad) return { ok: false, problem: bad };
  const json = JSON.stringify(value);
  // a path that starts with - would be read as an option
  const cassette = edit.cassette.startsWith("-") ? `./${edit.cassette}` : edit.cassette;
  const command = edit.command.trim();
  const cli =
    `blackbox fork ${shellQuote(cassette)} --at ${edit.at} --set ${singleQuote(json)}` +
    (command === "" ? "" : ` -- ${command}`);
  const out = defaultForkOut(edit.cassette, edit.at);
  const code =
    `import { blackbox } from "@ardaulas/blackbox";\n\n` +
    `const bb = blackbox({\n` +
    `  mode: "fork",\n` +
    `  cassette: ${JSON.stringify(edit.cassette)},\n` +
    `  forkAt: ${edit.at},\n` +
    `  forkSet: ${JSON.stringify(value, null, 2).replace(/\n/g, "\n  ")},\n` +
    `  out: ${JSON.stringify(out)},\n` +
    `});`;
  return { ok: true, value, json, cli, code };
}
