/**
 * A push-fed async iterable of byte chunks: what a dispatcher handler's onData calls
 * arrive in, read by whoever consumes the response, chunk by chunk as they come.
 * `onStop` runs when the consumer stops reading before the end (to abort upstream).
 */
export class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly items: Uint8Array[] = [];
  private done = false;
  private error: unknown = undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly onStop?: () => void) {}

  push(chunk: Uint8Array): void {
    this.items.push(chunk);
    this.signal();
  }

  end(): void {
    this.done = true;
    this.signal();
  }

  fail(error: unknown): void {
    this.error = error ?? new Error("the response stream failed");
    this.done = true;
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    let finished = false;
    try {
      for (;;) {
        if (this.items.length > 0) {
          yield this.items.shift()!;
          continue;
        }
        if (this.error !== undefined) throw this.error;
        if (this.done) {
          finished = true;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      if (!finished && this.error === undefined) this.onStop?.();
    }
  }
}
