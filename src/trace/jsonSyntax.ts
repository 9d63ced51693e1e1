/**
 * Finds where JSON text stops being valid, for error messages (Node 20's
 * JSON.parse does not always report a position). Only called after
 * JSON.parse failed, so it favours clarity over speed.
 */
import { quoted } from "./printable.js";

export interface JsonSyntaxFault {
  /** Character offset of the fault. */
  offset: number;
  reason: string;
}

const WS = new Set([" ", "\t", "\n", "\r"]);

export function findJsonSyntaxFault(text: string): JsonSyntaxFault | undefined {
  let i = 0;
  const fault = (reason: string): JsonSyntaxFault => ({ offset: i, reason });
  const describe = (): string =>
    i >= text.length ? "unexpected end of input" : `unexpected character ${quoted(text[i])}`;
  const skip = (): void => {
    while (i < text.length && WS.has(text[i]!)) i++;
  };
  const literal = (word: string): JsonSyntaxFault | undefined => {
    for (const ch of word) {
      if (text[i] !== ch) return fault(describe());
      i++;
    }
    return undefined;
  };
  const string = (): JsonSyntaxFault | undefined => {
    i++; // opening quote
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '"') {
        i++;
        return undefined;
      }
      if (ch === "\\") {
        const esc = text[i + 1];
        if (esc === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fault("bad \\u escape in a string");
          i += 6;
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i += 2;
        else return fault("bad escape in a string");
      } else if (ch < " ") return fault("control character inside a string (unterminated string?)");
      else i++;
    }
    return fault("unterminated string");
  };
  const number = (): JsonSyntaxFault | undefined => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fault(describe());
    i += m[0].length;
    return undefined;
  };
  const value = (depth: number): JsonSyntaxFault | undefined => {
    if (depth > 5000) return fault("nesting too deep");
    skip();
    const ch = text[i];
    if (ch === "{") {
      i++;
      skip();
      if (text[i] === "}") return void i++;
      for (;;) {
        skip();
        if (text[i] !== '"') return fault(`${describe()} (expected a property name in double quotes)`);
        const s = string();
        if (s) return s;
        skip();
        if (text[i] !== ":") return fault(`${describe()} (expected ":")`);
        i++;
        const v = value(depth + 1);
        if (v) return v;
        skip();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else return fault(`${describe()} (expected "," or "}")`);
      }
    }
    if (ch === "[") {
      i++;
      skip();
      if (text[i] === "]") return void i++;
      for (;;) {
        const v = value(depth + 1);
        if (v) return v;
        skip();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else return fault(`${describe()} (expected "," or "]")`);
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return number();
    return fault(describe());
  };
  const v = value(0);
  if (v) return v;
  skip();
  return i < text.length ? fault(`${describe()} after the end of the JSON value`) : undefined;
}
