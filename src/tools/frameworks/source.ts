/**
 * The line appended to a framework file as it loads: it hands the file's module-level
 * names to the registry on globalThis and rebinds the ones the patch replaces (in a
 * CommonJS file, in its `exports` too, where that holds the old function as a plain
 * property: tsc's `exports.f = f`). Plain JavaScript valid in an ES module and in a
 * CommonJS one; it does nothing when no registry is there (a process without the hook).
 */
import type { PatchedFile } from "./types.js";

/** The key (a string: the appended source names it) of the registry the framework files call. */
export const FRAMEWORKS_REGISTRY = "ardaulas.blackbox.frameworks.v1";

/**
 * The registry the appended line calls: `(fileId, names, exports)` → replacements for `replace` names
 * (a name the file lacks is handed over as undefined); `failed` is told of a name that could not be rebound.
 */
export type FrameworkRegistry = ((
  id: number,
  names: Record<string, unknown>,
  exports: unknown,
) => Readonly<Record<string, unknown>> | undefined) & { failed(id: number, name: string, err: unknown): void };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export function appendedSource(id: number, file: PatchedFile): string {
  const replace = file.replace ?? [];
  const names = [...(file.read ?? []), ...replace];
  for (const n of names) if (!IDENTIFIER.test(n)) throw new Error(`blackbox: ${file.path}: "${n}" is no identifier`);
  const registry = `globalThis[Symbol.for(${JSON.stringify(FRAMEWORKS_REGISTRY)})]`;
  const rebind = replace
    .map(
      (n) =>
        `if (typeof __blackbox_r.${n} === "function") try { ${n} = __blackbox_r.${n}; } catch (e) { __blackbox_f.failed(${id}, "${n}", e); }`,
    )
    .join(" ");
  const handed = names.map((n) => `${n}: typeof ${n} === "undefined" ? undefined : ${n}`).join(", ");
  const exportsRef = file.format === "cjs" ? `typeof exports === "object" ? exports : undefined` : "undefined";
  return (
    `\n;{ const __blackbox_f = ${registry}; if (typeof __blackbox_f === "function") {` +
    ` const __blackbox_r = __blackbox_f(${id}, { ${handed} }, ${exportsRef}) ?? {}; ${rebind} } }\n`
  );
}

/** Put the replacements in a CommonJS `exports` where it holds the originals as plain writable properties. */
export function rebindExports(
  exports: unknown,
  names: Record<string, unknown>,
  replaced: Record<string, unknown>,
): void {
  if (exports === null || typeof exports !== "object") return;
  for (const [name, fn] of Object.entries(replaced)) {
    const d = Object.getOwnPropertyDescriptor(exports, name);
    if (d && "value" in d && d.writable && d.value === names[name]) (exports as Record<string, unknown>)[name] = fn;
  }
}
