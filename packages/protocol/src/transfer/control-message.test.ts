import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refusal, returnsOrRefuses400 } from "../test-support/refusal.js";
import { decodeControlMessage, encodeControlMessage } from "./control-message.js";
import type { ControlMessage } from "./schemas.js";

const streamId = "3Kg-cXsfZOsUEFenQVozCg";
const utf8 = new TextEncoder();
const messages: ControlMessage[] = [
  {
    type: "start",
    streamId,
    name: "holiday.mp4",
    size: 0,
    sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    lanes: 4,
    chunkBytes: 1048576,
    key: "CrfseSde3FyElFjV3bntlfwCpmKqqvY2FWR1ojg4SqU=",
  },
  {
    type: "start",
    version: 2,
    streamId,
    name: "holiday.mp4",
    size: 10,
    lanes: 1,
    chunkBytes: 1048576,
    key: "CrfseSde3FyElFjV3bntlfwCpmKqqvY2FWR1ojg4SqU=",
  },
  {
    type: "start",
    version: 2,
    cipher: "chacha20-poly1305",
    streamId,
    name: "b.bin",
    size: 1,
    lanes: 1,
    chunkBytes: 1,
    key: "CrfseSde3FyElFjV3bntlfwCpmKqqvY2FWR1ojg4SqU=",
  },
  { type: "pause", streamId },
  { type: "resume", streamId },
  { type: "finish", streamId },
  {
    type: "finish",
    streamId,
    sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  },
  { type: "rekey", streamId, key: "CrfseSde3FyElFjV3bntlfwCpmKqqvY2FWR1ojg4SqU=" },
  { type: "abort", streamId },
  { type: "abort", streamId, reason: "cancelled by the user" },
];

describe("control messages", () => {
  it("round-trip every type", () => {
    for (const message of messages) {
      expect(decodeControlMessage(encodeControlMessage(message))).toEqual(message);
    }
  });

  it("refuse bytes that are not a control message with a 400 naming the problem", () => {
    const cases: [Uint8Array, RegExp][] = [
      [Uint8Array.of(0xff, 0xfe), /not UTF-8/],
      [Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8.encode('{"type":"pause"}')), /not JSON/],
      [utf8.encode("{"), /not JSON/],
      [utf8.encode('{"type":"rewind","streamId":"3Kg-cXsfZOsUEFenQVozCg"}'), /type/],
      [utf8.encode('{"type":"pause","streamId":"short"}'), /streamId/],
      [utf8.encode('{"type":"pause","streamId":"3Kg-cXsfZOsUEFenQVozCg","x":1}'), /x/],
      [utf8.encode(JSON.stringify({ ...messages[0], lanes: 0 })), /lanes/],
      // A version 2 start names no SHA-256 (its finish does); no version but 1 and 2 exists.
      [utf8.encode(JSON.stringify({ ...messages[0], version: 2 })), /sha256/],
      [utf8.encode(JSON.stringify({ ...messages[1], version: 3 })), /version|Invalid type/],
      [utf8.encode(JSON.stringify({ type: "rekey", streamId, key: "short" })), /key/],
      [utf8.encode(JSON.stringify({ ...messages[1], cipher: "rot13" })), /cipher/],
      // A version 1 start names no cipher: its is ChaCha20-Poly1305.
      [utf8.encode(JSON.stringify({ ...messages[0], cipher: "aes-256-gcm" })), /cipher/],
    ];
    for (const [bytes, message] of cases) {
      const error = refusal(() => decodeControlMessage(bytes));
      expect([error.code, error.status]).toEqual(["SVC_BAD_REQUEST", 400]);
      expect(error.message).toMatch(message);
    }
  });

  it("decode random bytes and random JSON or refuse with a 400, never anything else", () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.json().map((json) => utf8.encode(json)),
      fc.constantFrom(...messages).map((message) => {
        const encoded = encodeControlMessage(message);
        return encoded.subarray(0, encoded.length - 1);
      }),
    );
    fc.assert(fc.property(bytes, (b) => returnsOrRefuses400(() => decodeControlMessage(b))));
  });
});
