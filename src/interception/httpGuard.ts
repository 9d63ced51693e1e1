/**
 * The safety net under the SDK shims (sdkShims.ts): a request to a provider sent with Node's own
 * http/https client (node-fetch, as openai 4.x and older @anthropic-ai/sdk do when their
 * web shim was not loaded, or any other client) never reaches the global dispatcher. Node
 * publishes every such request on the `http.client.request.start` diagnostics channel
 * before it connects, so a request to a provider's model endpoint is stopped there, named,
 * and fails the run: it is never sent silently around the session. Subscribing loads
 * nothing (node:diagnostics_channel is part of Node's core).
 */
import diagnostics from "node:diagnostics_channel";
import { BlackboxUnsupportedError } from "../errors.js";
import type { ProviderRoutes } from "../session/routes.js";
import { SDK_HEADERS } from "../providers/sdkIdentity.js";
import { strayModelCall, strayRefusal } from "./unrouted.js";

interface OutgoingRequest {
  method: string;
  shouldKeepAlive?: boolean;
  protocol?: string;
  host?: string;
  path: string;
  getHeader(name: string): unknown;
  destroy(err: Error): void;
}

export interface GuardedSession {
  mode: string;
  route(url: string): string | undefined;
  routes: Pick<ProviderRoutes, "onProviderHost" | "onProviderHostname" | "originsOn">;
  forwardsOther(): boolean;
  modelEndpoint(method: string, url: string): string | undefined;
  fail(err: BlackboxUnsupportedError): void;
}

/** The SDK and version a Stainless client names in its headers ("openai 4.104.0"), if any. */
function sdkOf(request: OutgoingRequest): string | undefined {
  const agent = String(request.getHeader("user-agent") ?? "");
  const version = request.getHeader("x-stainless-package-version") ?? /^OpenAI\/NodeJS\/(\S+)/.exec(agent)?.[1]; // openai 3: axios
  const name = /^OpenAI\//.test(agent) ? "openai" : /^Anthropic\//.test(agent) ? "@anthropic-ai/sdk" : undefined;
  return name && version ? `${name} ${String(version)}` : name;
}

export function refusalFor(
  request: OutgoingRequest,
  url: string,
  mode: string,
  model: boolean,
): BlackboxUnsupportedError {
  const sdk = sdkOf(request);
  const who = sdk
    ? `${sdk} sent it with Node's http client (${/^openai [0-3]\./.test(sdk) ? "axios" : "node-fetch"})`
    : "it was sent with Node's http client (node-fetch, axios, got ...)";
  const axios = /^openai [0-3]\./.test(sdk ?? "");
  const fix = axios
    ? `${sdk} sends requests with axios, which Blackbox cannot see: upgrade to openai >= 4 (5 or later recommended)`
    : sdk
      ? `The copy of ${sdk.split(" ")[0]} that sent it was not found from the working folder or the script's folder, so Blackbox could not switch it to fetch: run the command from the folder that installs it, import "${sdk.split(" ")[0]}/shims/web" before "${sdk.split(" ")[0]}" in the agent, or upgrade it (openai 5 and later, and @anthropic-ai/sdk 1.x, use fetch). ` +
        `A copy another package brings along (\`npm ls ${sdk.split(" ")[0]}\` shows where; @langchain/openai 0.x brings openai 4) is switched by upgrading that package`
      : "Send model calls with the official SDKs (they use fetch), or pass bb.fetch as the client's fetch";
  return new BlackboxUnsupportedError(
    `${model ? "a model call" : "a request to the provider"} (${request.method} ${url}) went around Blackbox: ${who}, which ${mode === "record" ? "Blackbox cannot record" : "a replay cannot answer"}, so it was stopped before it left the process. ${fix}.`,
  );
}

/**
 * Stops and reports model calls made with Node's http client (and, in replay, any call to a
 * provider, which a replay cannot answer); returns the undo. `http.client.request.start`
 * comes once the request is written to its socket. On a new socket that is still
 * connecting (and, for https, not through TLS), nothing has left the process: the request
 * is destroyed there. A kept-alive socket that already carried a request would have sent
 * it by then, so no request to a provider's host keeps its socket alive (one record lets
 * through, say GET /v1/models, goes, on a socket closed after it). A connect that fails at
 * once (no network at all, as in an offline replay) fails the request before that, and
 * `http.client.request.error` names it. Not stopped in time: a client that hands Node a
 * socket it connected itself (`createConnection`, a proxy tunnel agent).
 */
export function guardHttpClients(session: GuardedSession): () => void {
  const refused = new WeakSet<object>();
  const check = (message: unknown, stop: boolean): void => {
    const request = (message as { request?: OutgoingRequest }).request;
    if (!request || typeof request.getHeader !== "function" || refused.has(request)) return;
    const header = request.getHeader("host");
    // a request to a proxy names its target in full (absolute-form)
    const viaProxy = /^https?:\/\//i.test(request.path);
    // with no Host header the port is not known here: the provider origin on that host whose model endpoint
    // this path is
    const guessed =
      header === undefined && !viaProxy
        ? session.routes.originsOn(String(request.host ?? "")).map((o) => o + request.path)
        : [];
    const url = viaProxy
      ? request.path
      : (guessed.find((u) => session.modelEndpoint(request.method, u)) ??
        guessed[0] ??
        `${request.protocol ?? "http:"}//${String(header ?? request.host ?? "")}${request.path}`);
    let refusal: BlackboxUnsupportedError;
    try {
      if (!session.routes.onProviderHost(url) && !session.route(url)) {
        // an SDK's model call to a base URL no route names (as the dispatcher door stops them:
        // src/interception/unrouted.ts)
        const stray = strayModelCall(
          request.method,
          new URL(url),
          Object.fromEntries(SDK_HEADERS.map((name) => [name, request.getHeader(name)])),
        );
        if (!stray) {
          // a socket a later model call could be written to (a proxy's, or one to a provider's
          // host under another Host header) is not kept alive either
          if (viaProxy || session.routes.onProviderHostname(String(request.host ?? "")))
            request.shouldKeepAlive = false;
          return;
        }
        refusal = strayRefusal(stray, session.mode);
      } else {
        const model = session.modelEndpoint(request.method, url) !== undefined;
        if (!model && (!session.route(url) || session.forwardsOther())) {
          // not a model call, and one record passes upstream (as handleOther does): it goes, but
          // its socket is not kept alive, so no model call can later be written to it unseen
          request.shouldKeepAlive = false;
          return;
        }
        refusal = refusalFor(request, url, session.mode, model);
      }
      session.fail(refusal);
    } catch (err) {
      refusal =
        err instanceof BlackboxUnsupportedError
          ? err
          : new BlackboxUnsupportedError(String((err as Error)?.message ?? err));
    }
    refused.add(request);
    if (stop) request.destroy(refusal);
  };
  // a subscriber's exception would crash the app (Node rethrows it): the guard never throws
  const safely = (message: unknown, stop: boolean): void => {
    try {
      check(message, stop);
    } catch {
      // nothing to stop that could be told from here
    }
  };
  const onStart = (message: unknown): void => safely(message, true);
  const onError = (message: unknown): void => safely(message, false);
  diagnostics.subscribe("http.client.request.start", onStart);
  diagnostics.subscribe("http.client.request.error", onError);
  return () => {
    diagnostics.unsubscribe("http.client.request.start", onStart);
    diagnostics.unsubscribe("http.client.request.error", onError);
  };
}
