/** The global dispatcher slot undici keeps on globalThis, and the door in it. */
import { DOOR_MARK, GLOBAL_DISPATCHER, LEGACY_GLOBAL_DISPATCHER } from "../../globals.js";
import type { DispatcherLike } from "./forward.js";

/** Whether `value` is a door (or a view of one: undici's compose() gives a Proxy over it). */
export function isDoor(value: unknown): value is { previous: unknown } {
  return !!value && (value as Record<symbol, unknown>)[DOOR_MARK] === true;
}

/** What the slot holds now (Node 20's fetch reads the legacy key; undici 7 writes both). */
export function currentDispatcher(): unknown {
  return (globalThis as unknown as Record<symbol, unknown>)[LEGACY_GLOBAL_DISPATCHER];
}

/** The dispatcher below the door when the door is the global dispatcher, else undefined. */
export function dispatcherBelowDoor(): unknown {
  const current = currentDispatcher();
  return isDoor(current) ? current.previous : undefined;
}

/** Writes the door (or the dispatcher it replaced) where undici 7 and Node's fetch read it. */
export function setGlobalDispatcherSlots(dispatcher: unknown, configurable = false): void {
  for (const key of [GLOBAL_DISPATCHER, LEGACY_GLOBAL_DISPATCHER]) {
    Object.defineProperty(globalThis, key, { value: dispatcher, writable: true, enumerable: false, configurable });
  }
}

export function isDispatcher(value: unknown): value is DispatcherLike {
  return !!value && typeof (value as DispatcherLike).dispatch === "function";
}

/** The dispatcher in the global slot now (set by Node's fetch, undici or the app), if any. */
export function existingDispatcher(): DispatcherLike | undefined {
  const current = currentDispatcher() ?? (globalThis as unknown as Record<symbol, unknown>)[GLOBAL_DISPATCHER];
  return isDispatcher(current) ? current : undefined;
}
