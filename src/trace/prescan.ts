/**
 * One pass over a cassette's text before JSON.parse, so that a hostile file costs no more
 * than reading it: nesting deeper than the depth limit (100 MB of `[` made JSON.parse build
 * 100 million arrays, 5.5 GB, before it failed) and a `steps` list longer than the step
 * limit (5 million steps of `0` took 4.6 GB to describe) are found here, after a few
 * hundred characters or the steps counted, and nothing is allocated per value.
 *
 * It tracks only brackets, strings and commas, and leaves every question of syntax to
 * JSON.parse: text it cannot follow (an unterminated string, a stray `]`) ends the scan
 * with no answer. The steps are those of the root object's `steps` key as written
 * (`"steps"`); verifyTrace counts them again in the parsed value, which catches any other
 * spelling. Pure.
 */
import { appendPath } from "./jsonPath.js";

export type PrescanFault =
  { kind: "depth"; /** JSON path of the first value nested too deep. */ path: string } | { kind: "steps" };

const BACKSLASH = 0x5c;

/** End of the string whose opening quote is at `start` (the index of its closing quote), or -1. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return -1;
    let k = j - 1;
    while (k > start && text.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j; // an even run of backslashes: the quote is not escaped
    j++;
  }
}

/**
 * The first limit `text` goes past, or undefined (which says nothing about its syntax). Per open
 * array or object (by depth, in typed arrays: nothing is allocated per value) it keeps its kind and
 * where it is: the current index, or the text span of the last key.
 */
export function prescanJson(text: string, maxDepth: number, maxSteps: number): PrescanFault | undefined {
  const isArray = new Uint8Array(maxDepth);
  const index = new Float64Array(maxDepth);
  const keyStart = new Float64Array(maxDepth).fill(-1);
  const keyEnd = new Float64Array(maxDepth);
  let depth = 0;
  let inSteps = false; // the root's `steps` array is the open one at depth 2
  let commas = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20) continue; // most of a pretty-printed file is indentation
    const bracket = c | 0x20; // [ and { are 0x5b and 0x7b, ] and } are 0x5d and 0x7d
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (depth > 0 && isArray[depth - 1] === 0) {
        keyStart[depth - 1] = i; // the last string in an object before a nested value is that value's key
        keyEnd[depth - 1] = end + 1;
      }
      i = end;
    } else if (bracket === 0x7b) {
      if (depth >= maxDepth) return { kind: "depth", path: pathOf(text, depth, isArray, index, keyStart, keyEnd) };
      const array = c === 0x5b;
      if (array && depth === 1 && isArray[0] === 0 && text.slice(keyStart[0]!, keyEnd[0]!) === '"steps"') {
        inSteps = true;
        commas = 0;
      }
      isArray[depth] = array ? 1 : 0;
      index[depth] = 0;
      keyStart[depth] = -1;
      depth++;
    } else if (bracket === 0x7d) {
      if (depth === 0) return undefined;
      depth--;
      if (depth === 1) inSteps = false;
    } else if (c === 0x2c && depth > 0 && isArray[depth - 1] === 1) {
      index[depth - 1]!++;
      if (inSteps && depth === 2 && ++commas >= maxSteps) return { kind: "steps" };
    }
  }
  return undefined;
}

function pathOf(
  text: string,
  depth: number,
  isArray: Uint8Array,
  index: Float64Array,
  keyStart: Float64Array,
  keyEnd: Float64Array,
): string {
  let path = "";
  for (let d = 0; d < depth; d++) {
    if (isArray[d] === 1) path = appendPath(path, index[d]!);
    else if (keyStart[d]! >= 0) path = appendPath(path, JSON.parse(text.slice(keyStart[d]!, keyEnd[d]!)) as string);
  }
  return path || "(root)";
}
