/**
 * The AWS event-stream framing (`application/vnd.amazon.eventstream`) that ConverseStream
 * answers in, both ways. A message is a prelude (total length, headers length, both
 * big-endian uint32, then the prelude's CRC32), the headers (a one-byte name length, the
 * name, a one-byte value type, the value), the payload, and the CRC32 of everything before
 * it. Bedrock's events carry string headers (`:message-type`, `:event-type`,
 * `:exception-type`, `:content-type`) and a JSON payload. Pure.
 */

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE, as zlib), continuing from `crc`. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

export interface EventMessage {
  /** String headers by name (other header types are read and given as their text). */
  headers: Record<string, string>;
  payload: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One event-stream message of string headers and `payload`. */
export function encodeMessage(headers: Record<string, string>, payload: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let headersLength = 0;
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    const h = new Uint8Array(1 + n.length + 1 + 2 + v.length);
    h[0] = n.length;
    h.set(n, 1);
    h[1 + n.length] = 7; // string
    new DataView(h.buffer).setUint16(2 + n.length, v.length);
    h.set(v, 4 + n.length);
    parts.push(h);
    headersLength += h.length;
  }
  const total = 12 + headersLength + payload.length + 4;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  let at = 12;
  for (const h of parts) {
    out.set(h, at);
    at += h.length;
  }
  out.set(payload, at);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

/** An event message (`:message-type` event) named `eventType` with a JSON payload. */
export function encodeEvent(eventType: string, data: unknown): Uint8Array {
  return encodeMessage(
    { ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" },
    encoder.encode(JSON.stringify(data)),
  );
}

/** The headers of a message, by name (each value as text). */
function headersOf(bytes: Uint8Array): Record<string, string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Record<string, string> = {};
  let at = 0;
  while (at < bytes.length) {
    const nameLength = bytes[at]!;
    const name = decoder.decode(bytes.subarray(at + 1, at + 1 + nameLength));
    at += 1 + nameLength;
    const type = bytes[at++];
    let value: string;
    switch (type) {
      case 0:
        value = "true";
        break;
      case 1:
        value = "false";
        break;
      case 2:
        value = String(view.getInt8(at));
        at += 1;
        break;
      case 3:
        value = String(view.getInt16(at));
        at += 2;
        break;
      case 4:
        value = String(view.getInt32(at));
        at += 4;
        break;
      case 5:
      case 8:
        value = String(view.getBigInt64(at));
        at += 8;
        break;
      case 6:
      case 7: {
        const length = view.getUint16(at);
        value = decoder.decode(bytes.subarray(at + 2, at + 2 + length));
        at += 2 + length;
        break;
      }
      case 9:
        value = Array.from(bytes.subarray(at, at + 16), (b) => b.toString(16).padStart(2, "0")).join("");
        at += 16;
        break;
      default:
        throw new Error(`a header "${name}" of unknown type ${String(type)}`);
    }
    out[name] = value;
  }
  return out;
}

/**
 * Cuts a byte stream into event-stream messages, however the bytes were split. push() returns the messages
 * the bytes completed; a frame whose lengths or CRCs do not add up throws.
 */
export class EventStreamDecoder {
  private buffer: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): EventMessage[] {
    if (this.buffer.length === 0) this.buffer = chunk;
    else {
      const joined = new Uint8Array(this.buffer.length + chunk.length);
      joined.set(this.buffer);
      joined.set(chunk, this.buffer.length);
      this.buffer = joined;
    }
    const out: EventMessage[] = [];
    while (this.buffer.length >= 12) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
      const total = view.getUint32(0);
      const headersLength = view.getUint32(4);
      if (crc32(this.buffer.subarray(0, 8)) !== view.getUint32(8))
        throw new Error("an event-stream prelude whose CRC does not match");
      if (total < 16 || headersLength > total - 16) throw new Error(`an event-stream message of length ${total}`);
      if (this.buffer.length < total) break;
      const message = this.buffer.subarray(0, total);
      if (crc32(message.subarray(0, total - 4)) !== view.getUint32(total - 4))
        throw new Error("an event-stream message whose CRC does not match");
      out.push({
        headers: headersOf(message.subarray(12, 12 + headersLength)),
        payload: message.subarray(12 + headersLength, total - 4),
      });
      this.buffer = this.buffer.subarray(total);
    }
    return out;
  }

  /** Bytes of a message not yet whole. */
  get pending(): number {
    return this.buffer.length;
  }
}

/** The text of a payload. */
export function payloadText(payload: Uint8Array): string {
  return decoder.decode(payload);
}
