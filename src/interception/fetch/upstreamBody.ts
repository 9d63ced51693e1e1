/**
 * The body of bb.fetch's upstream call as the session reads it: ended at once when the call
 * is aborted (the caller's signal, or the caller cancelling the body it was given).
 *
 * Fetch's own abort is not enough. On Node 20 (undici 6) an abort that comes while a read of
 * the body is pending can leave that read pending for ever, even after the provider ended the
 * reply and the socket closed: fetch cancels the body on abort, which a body locked to a
 * reader refuses, so nothing settles the read. An SDK that met a malformed event cancels its
 * body and waits for that cancel, which waited for the read: the call never settled (a few of
 * 40 concurrent streams a run). Cancelling the reader itself settles a pending read at once.
 */
export function abortableBody(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
      const reader = body.getReader();
      const onAbort = (): void => void reader.cancel(signal!.reason).catch(() => undefined);
      signal?.addEventListener("abort", onAbort, { once: true });
      let ended = false;
      try {
        for (;;) {
          if (signal?.aborted) throw signal.reason;
          const { value, done } = await reader.read();
          // a read the abort settled ends as done: it is the abort's, not the reply's end
          if (signal?.aborted) throw signal.reason;
          if (done) {
            ended = true;
            return;
          }
          yield value;
        }
      } finally {
        signal?.removeEventListener("abort", onAbort);
        // the session stopped reading before the end: the connection is let go, as fetch's
        // own body does when it is cancelled
        if (!ended) void reader.cancel().catch(() => undefined);
      }
    },
  };
}
