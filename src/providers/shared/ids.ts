import { callIndex } from "../../trace/payloads.js";

/**
 * Run-local tool-call ids. Provider ids (toolu_…, call_…) become `call-N` in order
 * of first appearance in the run (in a request's history or in a response), so record
 * and replay assign the same N. Replayed responses carry wire ids of Blackbox's own
 * form (`bbx_call-N`), which map back to the same `call-N` when the agent sends them back.
 */
export class ToolCallIds {
  /**
   * `prefix` sets the replayed wire ids apart (`bbx_<prefix>call-N`): a run's conversations each serve their
   * own, so no two conversations of one process hand the agent the same id.
   */
  constructor(private readonly prefix: string = "") {}

  private readonly toCall = new Map<string, string>();
  /** call-N -> the last wire id that named it (a run tells its conversations' replies apart by them). */
  private readonly toWire = new Map<string, string>();
  private next = 0;
  /**
   * How often register() changed an existing mapping: an incremental parse that reuses earlier messages'
   * call-N ids is valid only while this stays put.
   */
  private remapCount = 0;
  /**
   * Where the reply to the request parsed last would stand in the next request's messages (its length), for
   * the deprecated `function_call`, which carries no id: a call is known by its message's place, `fn#<index>`.
   */
  functionCallSlot = 0;

  /** The call-N for a provider (or replayed) id, assigning the next N to an unseen id. */
  callIdFor(wireId: string): string {
    let id = this.toCall.get(wireId);
    if (id === undefined) {
      id = `call-${this.next++}`;
      this.toCall.set(wireId, id);
      this.toWire.set(id, wireId);
    }
    return id;
  }

  /** The wire id a replayed response uses for call-N; registered so it maps back. */
  wireIdFor(callId: string): string {
    const wire = `bbx_${this.prefix}${callId}`;
    this.register(wire, callId);
    return wire;
  }

  /** Maps a wire id to a known call id and keeps the counter past it. */
  register(wireId: string, callId: string): void {
    const had = this.toCall.get(wireId);
    if (had !== undefined && had !== callId) this.remapCount++;
    this.toCall.set(wireId, callId);
    this.toWire.set(callId, wireId);
    const n = callIndex(callId);
    if (n >= 0) this.next = Math.max(this.next, n + 1);
  }

  /** The wire id call-N was last known by (the provider's, or the one a replay served), if any. */
  wireOf(callId: string): string | undefined {
    return this.toWire.get(callId);
  }

  /** Continue numbering after call-N (fork: ids already present in a copied prefix). */
  seedPast(maxIndex: number): void {
    this.next = Math.max(this.next, maxIndex + 1);
  }

  /** A new call-N for a call no provider id names (a wrapped tool the model did not request). */
  fresh(): string {
    return `call-${this.next++}`;
  }

  get remaps(): number {
    return this.remapCount;
  }

  get nextIndex(): number {
    return this.next;
  }
}
