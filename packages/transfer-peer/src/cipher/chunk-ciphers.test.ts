import { randomBytes } from "node:crypto";
import {
  type ChunkCipher,
  nobleAesGcmChunkCipher,
  nobleChunkCipher,
  openChunk,
  sealChunk,
} from "@svc/protocol/transfer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeAesGcmChunkCipher, nodeChunkCipher } from "./node-chunk-cipher.js";
import { sodiumChunkCipher } from "./sodium-chunk-cipher.js";

const key = fc.uint8Array({ minLength: 32, maxLength: 32 });
const nonce = fc.uint8Array({ minLength: 12, maxLength: 12 });
const bytes = fc.uint8Array({ maxLength: 4096 });

describe.each<[string, ChunkCipher, ChunkCipher]>([
  ["nodeChunkCipher", nodeChunkCipher, nobleChunkCipher],
  ["sodiumChunkCipher", sodiumChunkCipher(), nobleChunkCipher],
  ["nodeAesGcmChunkCipher", nodeAesGcmChunkCipher, nobleAesGcmChunkCipher],
])("%s", (_, cipher, portable) => {
  it("seals exactly as the portable cipher of its type does, and each opens the other's", () => {
    expect(cipher.envelopeType).toBe(portable.envelopeType);
    fc.assert(
      fc.property(key, nonce, bytes, bytes, (k, n, ad, plaintext) => {
        const sealed = cipher.seal(k, n, ad, plaintext);
        expect(sealed).toEqual(portable.seal(k, n, ad, plaintext));
        expect(portable.open(k, n, ad, sealed)).toEqual(plaintext);
        expect(cipher.open(k, n, ad, sealed)).toEqual(plaintext);
      }),
    );
  });

  it("refuses a flipped bit anywhere in the ciphertext, tag or associated data", () => {
    fc.assert(
      fc.property(key, nonce, bytes, bytes, fc.nat(), (k, n, ad, plaintext, at) => {
        const sealed = cipher.seal(k, n, ad, plaintext);
        const tampered = sealed.slice();
        const index = at % tampered.length;
        tampered[index] = (tampered[index] as number) ^ 1;
        const kept = tampered.slice();
        expect(cipher.open(k, n, ad, tampered)).toBeUndefined();
        // Refused, the ciphertext is as it was or zeroed (libsodium's way), never plaintext.
        const body = tampered.subarray(0, tampered.length - 16);
        if (!body.every((byte) => byte === 0)) expect(tampered).toEqual(kept);
        if (ad.length > 0) {
          const otherAd = ad.slice();
          otherAd[at % ad.length] = (otherAd[at % ad.length] as number) ^ 0x80;
          expect(cipher.open(k, n, otherAd, sealed)).toBeUndefined();
        }
      }),
    );
  });

  it("refuses a ciphertext shorter than the tag", () => {
    const k = randomBytes(32);
    const n = randomBytes(12);
    for (let length = 0; length < 16; length++) {
      expect(cipher.open(k, n, new Uint8Array(0), new Uint8Array(length))).toBeUndefined();
    }
  });

  it("seals a chunk in place inside its envelope, as the portable cipher does, and opens it", () => {
    const chunk = {
      streamId: randomBytes(16),
      laneId: 2,
      seq: 7n,
      key: randomBytes(32),
      offset: 1 << 20,
      data: randomBytes(70_000),
    };
    const envelope = sealChunk(chunk, cipher);
    expect(envelope).toEqual(sealChunk(chunk, portable));
    const opened = openChunk(envelope, chunk.key, cipher);
    expect(opened.offset).toBe(chunk.offset);
    expect(opened.data).toEqual(new Uint8Array(chunk.data));
  });
});
