/**
 * Lockdown for sessions replaying in code (a test's cassette): while one replays, a model
 * call that does not go through its `bb.fetch` (a second client built without it, a
 * helper's own client) is stopped before it leaves the process and fails the session, as
 * under the register hook's replay. The hook's global dispatcher door and http guard are
 * installed once for all the sessions replaying at a time (test.concurrent runs several),
 * and removed when the last one ends. Under the register hook its own doors already do this:
 * nothing is installed.
 *
 * With capture (the vitest plugin), such a call is the test's own instead: while one session
 * holds the doors it records or replays the calls of clients made without bb.fetch (the
 * agent builds its own client). With several at once (test.concurrent) a call cannot be
 * told apart, and is refused saying so.
 */
import { BlackboxUnsupportedError, type BlackboxError } from "../errors.js";
import { REGISTER_INSTALLED } from "../globals.js";
import type { ProviderName, WireRequest } from "../providers/types.js";
import type { Forward, HttpResponseLike, SessionPort } from "../session/types.js";
import { installDispatcher } from "./dispatcher/door.js";
import { guardHttpClients } from "./httpGuard.js";

/** A session as the lockdown sees it: the engine, the cassette it names, and whether it captures. */
export interface Locked {
  engine: SessionPort;
  cassette: string;
  /** Calls around bb.fetch are this session's (record or replay), when it is the only one. */
  capture?: boolean;
}

const locked = new Set<Locked>();
let undo: (() => void) | undefined;

function sessions(): Locked[] {
  return [...locked];
}

/** The refusal of a call around the cassette(s), said to every session replaying (which one made it is not known). */
function refusal(what: string): BlackboxUnsupportedError {
  const all = sessions();
  const cassettes = all.map((s) => s.cassette).join(", ");
  const several = all.length > 1 && all.some((s) => s.capture);
  return new BlackboxUnsupportedError(
    `${what} did not go through the cassette of the test replaying (${cassettes}): it came from a client made without fetch: bb.fetch, and was stopped before it left the process (a replay sends nothing). ` +
      (several
        ? `${all.length} tests hold cassettes at once (test.concurrent), so a call made without bb.fetch cannot be told apart: pass fetch: bb.fetch to the clients of concurrent tests.`
        : "Pass fetch: bb.fetch to every client the test makes (new Anthropic({ fetch: bb.fetch }), new OpenAI({ fetch: bb.fetch })), or add blackboxPlugin() to vitest.config.ts to capture them."),
  );
}

/** The session that captures the calls made around bb.fetch: the only one, when it captures. */
function capturing(): Locked | undefined {
  const [only, ...more] = sessions();
  return only?.capture && more.length === 0 ? only : undefined;
}

function refuseAll(provider: ProviderName, err: BlackboxError): HttpResponseLike {
  const [first, ...rest] = sessions();
  for (const s of rest) s.engine.fail(err);
  return first!.engine.refuse(provider, err);
}

/** The session port the doors are given: a provider call is the capturing session's, else refused. */
const port = {
  get mode() {
    return capturing()?.engine.mode ?? "replay";
  },
  get routes() {
    return sessions()[0]!.engine.routes;
  },
  route: (url: string) => sessions()[0]?.engine.routes.route(url),
  modelEndpoint: (method: string, url: string) => sessions()[0]?.engine.modelEndpoint(method, url),
  forwardsOther: () => capturing()?.engine.forwardsOther() ?? false,
  fail(err: BlackboxError) {
    for (const s of sessions()) s.engine.fail(err);
  },
  refuse: (provider: ProviderName, err: BlackboxError) =>
    capturing()?.engine.refuse(provider, err) ?? refuseAll(provider, err),
  handle: async (request: WireRequest, forward: Forward, signal?: AbortSignal, provider?: ProviderName) => {
    const own = capturing();
    if (own) return own.engine.handle(request, forward, signal, provider);
    const name = provider ?? port.route(request.url)!;
    return refuseAll(
      name,
      refusal(`a model call to ${new URL(request.url).origin} (${request.method} ${new URL(request.url).pathname})`),
    );
  },
};

/**
 * Locks the process down while `session` replays (or captures for it); returns its release (the doors go with
 * the last one).
 */
export function lockDown(session: Locked): () => void {
  const globals = globalThis as unknown as Record<symbol, boolean>;
  if (globals[REGISTER_INSTALLED]) return () => {};
  locked.add(session);
  if (locked.size === 1) {
    const unguard = guardHttpClients(port);
    let undoDoor: (() => void) | undefined;
    let released = false;
    // installed synchronously (installDispatcher awaits nothing); its undo comes with the promise
    void installDispatcher(port).then((u) => (released ? u() : (undoDoor = u)));
    undo = () => {
      released = true;
      undoDoor?.();
      unguard();
    };
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    locked.delete(session);
    if (locked.size === 0) {
      undo?.();
      undo = undefined;
    }
  };
}
