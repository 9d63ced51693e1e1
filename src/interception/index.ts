/**
 * The HTTP doors of a session under the register hook: the old SDKs (and the AWS SDK's
 * request handler, awsSdk.ts) switched to fetch, the
 * http guard (a model call sent around fetch is stopped and named), and the global
 * dispatcher door with its fetch guard. Returns the undo of what can be undone (an SDK's
 * shim, once loaded, stays).
 */
import type { SessionPort } from "../session/types.js";
import { routeAwsSdkThroughFetch } from "./awsSdk.js";
import { installDispatcher } from "./dispatcher/door.js";
import { guardHttpClients } from "./httpGuard.js";
import { routeSdksThroughFetch } from "./sdkShims.js";

/** `from`: the folders the app's SDKs are looked for from (the working folder, the main script's). */
export async function installInterception(session: SessionPort, from: string[]): Promise<() => void> {
  await routeSdksThroughFetch(...from);
  const unguard = guardHttpClients(session);
  const aws = routeAwsSdkThroughFetch(session, from);
  const undoDoor = await installDispatcher(session);
  return () => {
    undoDoor();
    aws.undo();
    unguard();
  };
}

export { createFetch } from "./fetch/door.js";
