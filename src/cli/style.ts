/**
 * Terminal colour: on only when stdout is a TTY and NO_COLOR is unset;
 * FORCE_COLOR=1 turns it on anywhere, FORCE_COLOR=0 turns it off.
 */

export function useColor(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === "0" || force.toLowerCase() === "false");
  return stream.isTTY === true;
}

export interface Style {
  color: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

export function makeStyle(color: boolean = useColor()): Style {
  const wrap = (code: string) => (text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { color, bold: wrap("1"), dim: wrap("2"), red: wrap("31"), green: wrap("32"), yellow: wrap("33") };
}
