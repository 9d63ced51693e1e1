/**
 * `blackbox completion bash|zsh|fish`: a completion script for the shell, made from the
 * program itself (its commands, their options and the values an option takes), so a new
 * option completes without anyone editing a script. Install: docs/cli.md, "Completion".
 */
import { Argument, type Command, type Option as CommanderOption } from "commander";
import { out } from "./exit.js";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

interface Opt {
  short?: string;
  long: string;
  /** It takes a value. */
  value: boolean;
  choices: readonly string[];
  description: string;
}

interface Cmd {
  name: string;
  description: string;
  options: Opt[];
  /** Values its first argument takes (help: the commands, completion: the shells); else files. */
  words: readonly string[] | undefined;
}

/** The first clause of a description, without what a shell script would have to quote. */
function brief(text: string): string {
  return text
    .split(/[;(]/)[0]!
    .replace(/[[\]:'"`$\\]/g, "")
    .trim();
}

function commandsOf(program: Command): Cmd[] {
  const names = program.commands.map((c) => c.name());
  return program.commands.map((c) => ({
    name: c.name(),
    description: brief(c.description()),
    options: [
      ...c.options.map((o: CommanderOption) => ({
        ...(o.short ? { short: o.short } : {}),
        long: o.long!,
        value: o.required || o.optional,
        choices: o.argChoices ?? [],
        description: brief(o.description),
      })),
      { long: "--help", value: false, choices: [], description: "print the help" },
    ],
    words: c.name() === "help" ? names : c.name() === "completion" ? SHELLS : undefined,
  }));
}

function bash(cmds: Cmd[]): string {
  const cases = cmds
    .map((c) => {
      const flags = c.options.flatMap((o) => (o.short ? [o.short, o.long] : [o.long])).join(" ");
      const values = c.options
        .filter((o) => o.choices.length > 0)
        .map((o) => `        ${[o.short, o.long].filter(Boolean).join("|")}) words="${o.choices.join(" ")}" ;;`)
        .join("\n");
      const takes = c.options
        .filter((o) => o.value && o.choices.length === 0)
        .flatMap((o) => [o.short, o.long].filter(Boolean))
        .join("|");
      return [
        `    ${c.name})`,
        `      flags="${flags}"`,
        c.words ? `      args="${c.words.join(" ")}"` : "",
        `      case "$prev" in`,
        values,
        takes ? `        ${takes}) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;` : "",
        `      esac`,
        `      ;;`,
      ]
        .filter((l) => l !== "")
        .join("\n");
    })
    .join("\n");
  return `# blackbox completion for bash: source <(blackbox completion bash), or save it in
# ~/.local/share/bash-completion/completions/blackbox
_blackbox() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local flags="" args="" words="" i
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${cmds.map((c) => c.name).join(" ")} --help --version" -- "$cur") )
    return
  fi
  for (( i = 2; i < COMP_CWORD; i++ )); do
    if [ "\${COMP_WORDS[i]}" = "--" ]; then
      if [ "$i" -eq $((COMP_CWORD - 1)) ]; then COMPREPLY=( $(compgen -c -- "$cur") ); else COMPREPLY=( $(compgen -f -- "$cur") ); fi
      return
    fi
  done
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  if [ -n "$words" ]; then
    COMPREPLY=( $(compgen -W "$words" -- "$cur") )
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
  elif [ -n "$args" ]; then
    COMPREPLY=( $(compgen -W "$args" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o filenames -o bashdefault -F _blackbox blackbox
`;
}

function zsh(cmds: Cmd[]): string {
  const spec = (o: Opt): string => {
    const what = o.choices.length > 0 ? `:value:(${o.choices.join(" ")})` : o.value ? ":file:_files" : "";
    const names = o.short ? `'(${o.short} ${o.long})'{${o.short},${o.long}}` : `'${o.long}`;
    const rest = `[${o.description}]${what}'`;
    return o.short ? `${names}'${rest}` : `${names}${rest}`;
  };
  const cases = cmds
    .map((c) => {
      const args = c.words ? `':argument:(${c.words.join(" ")})'` : `'*:file:_files'`;
      return `    ${c.name}) _arguments ${c.options.map(spec).join(" ")} ${args} ;;`;
    })
    .join("\n");
  return `#compdef blackbox
# blackbox completion for zsh: source <(blackbox completion zsh) in ~/.zshrc (after compinit),
# or save it as _blackbox in a folder of $fpath
_blackbox() {
  local -a commands
  commands=(${cmds.map((c) => `'${c.name}:${c.description}'`).join(" ")})
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local i
  for (( i = 3; i < CURRENT; i++ )); do
    if [[ $words[i] == -- ]]; then
      shift i words
      (( CURRENT -= i ))
      _normal
      return
    fi
  done
  case $words[2] in
${cases}
  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _blackbox "$@"; else compdef _blackbox blackbox; fi
`;
}

function fish(cmds: Cmd[]): string {
  const q = (text: string) => `'${text}'`;
  const lines = [
    "# blackbox completion for fish: blackbox completion fish > ~/.config/fish/completions/blackbox.fish",
    "complete -c blackbox -f",
    ...cmds.map((c) => `complete -c blackbox -n __fish_use_subcommand -a ${c.name} -d ${q(c.description)}`),
  ];
  for (const c of cmds) {
    const when = `-n '__fish_seen_subcommand_from ${c.name}'`;
    for (const o of c.options) {
      const names = `${o.short ? `-s ${o.short.slice(1)} ` : ""}-l ${o.long.slice(2)}`;
      const value = o.choices.length > 0 ? ` -x -a ${q(o.choices.join(" "))}` : o.value ? " -r -F" : "";
      lines.push(`complete -c blackbox ${when} ${names}${value} -d ${q(o.description)}`);
    }
    lines.push(c.words ? `complete -c blackbox ${when} -a ${q(c.words.join(" "))}` : `complete -c blackbox ${when} -F`);
  }
  return `${lines.join("\n")}\n`;
}

export function completionScript(program: Command, shell: Shell): string {
  const cmds = commandsOf(program);
  return shell === "bash" ? bash(cmds) : shell === "zsh" ? zsh(cmds) : fish(cmds);
}

export function register(program: Command): void {
  program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish); docs/cli.md says where it goes")
    .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(SHELLS))
    .action((shell: Shell) => {
      out(completionScript(program, shell).trimEnd());
    });
}
