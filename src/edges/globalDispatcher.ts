/** Where undici keeps the global dispatcher (undici 7 writes both; Node 20's fetch reads `.1`). */
export const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.2");
export const LEGACY_GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");
/** Marks Blackbox's dispatcher door (shared by two copies of the package). */
export const DOOR_MARK = Symbol.for("ardaulas.blackbox.dispatcher.v1");
/**
 * Marks a call the session sends upstream (dispatch options at a door, a fetch's init at
 * the fetch guard): a door it meets on its way (the global one, under an app's dispatcher
 * that wraps it) passes it on, not to the session again. A symbol, so it is never sent;
 * object spreads keep it.
 */
export const FORWARDED = Symbol.for("ardaulas.blackbox.forwarded.v1");

/** Whether `value` is a door (or a view of one: undici's compose() gives a Proxy over it). */
export function isDoor(value: unknown): value is { previous: unknown } {
  return !!value && (value as Record<symbol, unknown>)[DOOR_MARK] === true;
}

/** The dispatcher below the door when the door is the global dispatcher, else undefined. */
export function dispatcherBelowDoor(): unknown {
  const current = (globalThis as unknown as Record<symbol, unknown>)[LEGACY_GLOBAL_DISPATCHER];
  return isDoor(current) ? current.previous : undefined;
}
