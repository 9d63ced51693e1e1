/** `blackbox help [command]`: that command's help, or a usage error naming an unknown one (exit 2). */
import type { Command } from "commander";
import { usageError } from "./usage.js";

export function register(program: Command): void {
  program.helpCommand(false);
  program
    .command("help")
    .description("print the help of a command (or of blackbox)")
    .argument("[command]", "the command")
    .action((name: string | undefined, _opts: unknown, cmd: Command) => {
      if (name === undefined) {
        program.outputHelp();
        return;
      }
      const sub = program.commands.find((c) => c.name() === name || c.aliases().includes(name));
      if (sub === undefined) {
        const names = program.commands.map((c) => c.name()).filter((n) => n !== "help");
        usageError(cmd, `error: unknown command '${name}'; the commands are ${names.join(", ")}`);
      }
      sub.outputHelp();
    });
}
