/**
 * Cassette bytes -> text. A cassette is UTF-8; a UTF-8 byte-order mark (some Windows
 * editors write one) is dropped, UTF-16 and bytes that are not UTF-8 are refused with
 * where and what to do. Without this, a Latin-1 byte became U+FFFD and verify blamed
 * the hash chain, and a BOM or UTF-16 read as "unexpected character" at line 1.
 * Pure: the caller reads the file (src/store/index.ts).
 */
import { isUtf8 } from "node:buffer";
import { TraceLoadError } from "../errors.js";

function where(file: string | undefined): string {
  return file === undefined ? "cassette" : `cassette ${file}`;
}

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b === 0xe0) [need, min] = [2, 0xa0];
    else if (b === 0xed) [need, min, max] = [2, 0x80, 0x9f];
    else if (b >= 0xe1 && b <= 0xef) [need, min] = [2, 0x80];
    else if (b === 0xf0) [need, min] = [3, 0x90];
    else if (b === 0xf4) [need, min, max] = [3, 0x80, 0x8f];
    else if (b >= 0xf1 && b <= 0xf3) [need, min] = [3, 0x80];
    else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      const lo = k === 1 ? min : 0x80;
      const hi = k === 1 ? max : 0xbf;
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** Line and column (1-based, in characters) of a byte offset of UTF-8 text. */
function lineColumnOfByte(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset; i++) {
    const b = bytes[i]!;
    if (b === 0x0a) {
      line++;
      column = 1;
    } else if ((b & 0xc0) !== 0x80) column++; // count characters, not continuation bytes
  }
  return { line, column };
}

function looksUtf16(bytes: Uint8Array): boolean {
  if (bytes.length < 2) return false;
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return true;
  // no BOM: JSON starts with an ASCII character, so UTF-16 puts a zero byte beside it
  return (bytes[0] === 0 && bytes[1] !== 0) || (bytes[0] !== 0 && bytes[1] === 0);
}

/** The text of a cassette's bytes; throws TraceLoadError when they are not UTF-8. */
export function decodeCassette(bytes: Buffer, file?: string): string {
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = start === 0 ? bytes : bytes.subarray(start);
  if (isUtf8(body) && !(start === 0 && looksUtf16(body))) return body.toString("utf8");
  if (start === 0 && looksUtf16(body)) {
    const convert = file === undefined ? "" : ` (e.g. iconv -f UTF-16 -t UTF-8 ${file} > run.json)`;
    throw new TraceLoadError(
      `${where(file)} is UTF-16 text; cassettes are UTF-8. Convert it${convert} or restore it from version control.`,
      { file },
    );
  }
  const at = firstInvalidUtf8(body);
  const { line, column } = lineColumnOfByte(body, at);
  const byte = body[at]!.toString(16).toUpperCase().padStart(2, "0");
  throw new TraceLoadError(
    `${where(file)} is not UTF-8 text: the byte 0x${byte} at line ${line}, column ${column} is not valid UTF-8 (saved in another encoding, such as Latin-1, or corrupted). Restore the file from version control or re-record the run.`,
    { file },
  );
}
