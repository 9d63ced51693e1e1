/**
 * Every process-wide key Blackbox keeps on `globalThis` (or marks objects with), in one
 * place. `Symbol.for` keys, versioned: two copies of the package in one process (the
 * hook's bundle and the library, or two installs) share the state behind them.
 */

/** Where undici keeps the global dispatcher (undici 7 writes both; Node 20's fetch reads `.1`). */
export const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.2");
export const LEGACY_GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/** Marks Blackbox's dispatcher door. */
export const DOOR_MARK = Symbol.for("ardaulas.blackbox.dispatcher.v1");
/**
 * Marks a call the session sends upstream (dispatch options at a door, a fetch's init at
 * the fetch guard): a door it meets on its way passes it on, not to the session again. A
 * symbol, so it is never sent; object spreads keep it.
 */
export const FORWARDED = Symbol.for("ardaulas.blackbox.forwarded.v1");

/** The session the register hook made for this process (`blackbox()` without a mode returns it). */
export const PROCESS_SESSION = Symbol.for("ardaulas.blackbox.session.v1");
/** The register hook ran in this process (it runs once, whatever loads it twice). */
export const REGISTER_INSTALLED = Symbol.for("ardaulas.blackbox.register.v1");
/** The process-exit listeners every live session shares. */
export const PROCESS_EXIT = Symbol.for("ardaulas.blackbox.processExit.v1");
/** Brands Blackbox's errors, so `isBlackboxError` knows another copy's. */
export const ERROR_BRAND = Symbol.for("ardaulas.blackbox.error.v1");

/** A wrapped tool function's marker: never wrapped twice. */
export const WRAPPED_TOOL = Symbol.for("ardaulas.blackbox.tool.v1");
/** How an ESM tool wrapper calls a wrapped tool: `wrapped[CALL_FROM](this, args, itself)`. */
export const CALL_FROM = Symbol.for("ardaulas.blackbox.tool.callFrom.v1");
/** The key (a string: the wrapper modules' source names it) of the registry the ESM tool wrappers call. */
export const ESM_TOOLS_REGISTRY = "ardaulas.blackbox.esmTools.v1";
/** The key (a string: the config's data: module sets it) of the mark a config module ran. */
export const CONFIG_RAN = "ardaulas.blackbox.config.ran";
