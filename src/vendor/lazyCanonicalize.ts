/**
 * What the register hook's bundle gets for `import canonicalize from "canonicalize"`
 * (package.json bundle:register, esbuild --alias): the same function, loaded at its first
 * call. The hook in record mode hashes nothing before the agent's first call, and importing
 * the CommonJS package from ESM at start-up cost ~6 ms (it starts Node's CommonJS export
 * lexer). The library itself (dist/) imports canonicalize as usual, so bundlers see it.
 */
import { createRequire } from "node:module";

type Canonicalize = (value: unknown) => string | undefined;
let real: Canonicalize | undefined;

export default function canonicalize(value: unknown): string | undefined {
  real ??= createRequire(import.meta.url)("canonicalize") as Canonicalize;
  return real(value);
}
