import { createHmac, timingSafeEqual } from "node:crypto";
import { CanonicalError, decodeBase64Url, encodeBase64Url } from "@svc/canonical";
import { InboxError } from "./errors.js";

const DOMAIN = new TextEncoder().encode("svc-inbox-cursor-v1\0");
const TAG_BYTES = 16;
const CURSOR_BYTES = 8 + TAG_BYTES;

/**
 * Fetch cursors: base64url (no padding) of u64be(receivedAt) || the first 16 bytes of
 * HMAC-SHA256(key, "svc-inbox-cursor-v1" 0x00 || UTF-8 address || 0x00 || u64be(receivedAt)).
 * The key is shared through the database, so any instance accepts any instance's cursor, and a
 * cursor never verifies for another address.
 */
export class CursorCodec {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    if (!(key instanceof Uint8Array) || key.length < 32) {
      throw new RangeError("key must be at least 32 bytes");
    }
    this.#key = key;
  }

  encode(address: string, receivedAt: number): string {
    const position = u64be(receivedAt);
    const out = new Uint8Array(CURSOR_BYTES);
    out.set(position, 0);
    out.set(this.#tag(address, position), 8);
    return encodeBase64Url(out);
  }

  /** The receivedAt a cursor stands for; SVC_BAD_REQUEST when forged, foreign or malformed. */
  decode(address: string, cursor: string): number {
    let bytes: Uint8Array;
    try {
      bytes = decodeBase64Url(cursor, CURSOR_BYTES);
    } catch (error) {
      if (error instanceof CanonicalError) throw badCursor();
      throw error;
    }
    const position = bytes.subarray(0, 8);
    if (!timingSafeEqual(bytes.subarray(8), this.#tag(address, position))) throw badCursor();
    const receivedAt = new DataView(position.buffer, position.byteOffset, 8).getBigUint64(0);
    if (receivedAt > BigInt(Number.MAX_SAFE_INTEGER)) throw badCursor();
    return Number(receivedAt);
  }

  #tag(address: string, position: Uint8Array): Uint8Array {
    return createHmac("sha256", this.#key)
      .update(DOMAIN)
      .update(address, "utf8")
      .update(Uint8Array.of(0))
      .update(position)
      .digest()
      .subarray(0, TAG_BYTES);
  }
}

function u64be(value: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
}

const badCursor = () => new InboxError("SVC_BAD_REQUEST", "cursor is not one this server issued");
