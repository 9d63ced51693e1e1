/**
 * Whether the code running now is a framework tool call Blackbox records (install.ts): a
 * configured tool function it calls in turn is part of that call, not a step of its own.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const inside = new AsyncLocalStorage<true>();

export function insideFrameworkTool(): boolean {
  return inside.getStore() === true;
}

export function runAsFrameworkTool<T>(fn: () => T): T {
  return inside.run(true, fn);
}
