import { encodeBase64Url } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CursorCodec } from "./cursor.js";
import { InboxError } from "./errors.js";

const codec = new CursorCodec(new Uint8Array(32).fill(7));

describe("CursorCodec", () => {
  it("round-trips a receivedAt for the address it was issued to", () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (receivedAt) => {
        const cursor = codec.encode("alice:1", receivedAt);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]{32}$/);
        return codec.decode("alice:1", cursor) === receivedAt;
      }),
    );
  });

  it("rejects a cursor of another address, another key or with any flipped bit", () => {
    const cursor = codec.encode("alice:1", 1_763_780_000_000);
    expect(() => codec.decode("bob:1", cursor)).toThrow(InboxError);
    expect(() => new CursorCodec(new Uint8Array(32).fill(8)).decode("alice:1", cursor)).toThrow(
      InboxError,
    );
    const bytes = Buffer.from(cursor, "base64url");
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Uint8Array.from(bytes);
      flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
      expect(() => codec.decode("alice:1", encodeBase64Url(flipped))).toThrow(InboxError);
    }
  });

  it("answers garbage with SVC_BAD_REQUEST, never anything else", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (text) => {
        try {
          codec.decode("alice:1", text);
          return false;
        } catch (error) {
          return error instanceof InboxError && error.code === "SVC_BAD_REQUEST";
        }
      }),
    );
  });

  it("refuses a short key", () => {
    expect(() => new CursorCodec(new Uint8Array(16))).toThrow(RangeError);
  });
});
