/**
 * Every patch returns its undo (DESIGN.md): `replaceProperty` puts `ours` at
 * `object[name]`, and in the builtin ES modules' named exports (`import { register } from
 * "node:module"` sees it too); the undo puts the original back where ours still stands
 * (a later patch on top of ours is kept).
 */
import { syncBuiltinESMExports } from "node:module";

export function replaceProperty(object: object, name: string, ours: unknown): () => void {
  const o = object as Record<string, unknown>;
  const original = o[name];
  o[name] = ours;
  syncBuiltinESMExports();
  return () => {
    if (o[name] !== ours) return;
    o[name] = original;
    syncBuiltinESMExports();
  };
}
