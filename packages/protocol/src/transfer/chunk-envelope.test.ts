import { gcm } from "@noble/ciphers/aes.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refusal, returnsOrRefuses400 } from "../test-support/refusal.js";
import { CHUNK_DATA_AT, openChunk, sealChunk } from "./chunk-envelope.js";
import {
  CHUNK_HEADER_BYTES,
  CHUNK_OVERHEAD_BYTES,
  decodeChunkHeader,
  encodeChunkHeader,
} from "./chunk-header.js";
import { type ChunkCipher, nobleAesGcmChunkCipher, nobleChunkCipher } from "./cipher.js";

const key = fc.uint8Array({ minLength: 32, maxLength: 32 });
const streamId = fc.uint8Array({ minLength: 16, maxLength: 16 });
const laneId = fc.integer({ min: 0, max: 0xffff_ffff });
const seq = fc.bigInt({ min: 1n, max: 2n ** 64n - 1n });
const offset = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const data = fc.uint8Array({ maxLength: 300 });
const chunk = fc.record({ key, streamId, laneId, seq, offset, data });

const fixed = {
  key: new Uint8Array(32).fill(7),
  streamId: new Uint8Array(16).fill(1),
  laneId: 3,
  seq: 9n,
  offset: 4096,
  data: new TextEncoder().encode("some file bytes"),
};

describe("sealChunk / openChunk", () => {
  it("round-trips header, offset and data", () => {
    fc.assert(
      fc.property(chunk, (c) => {
        const envelope = sealChunk(c);
        expect(envelope.length).toBe(CHUNK_OVERHEAD_BYTES + c.data.length);
        expect(envelope.subarray(0, CHUNK_HEADER_BYTES)).toEqual(encodeChunkHeader(c));
        const opened = openChunk(envelope, c.key);
        expect(opened.header).toEqual({ streamId: c.streamId, laneId: c.laneId, seq: c.seq });
        expect([opened.offset, opened.data]).toEqual([c.offset, c.data]);
      }),
    );
  });

  it("seals into a given buffer, reused, as it seals into a new one", () => {
    const buffer = new Uint8Array(8 + CHUNK_OVERHEAD_BYTES + 300).fill(0xee);
    const into = buffer.subarray(8);
    fc.assert(
      fc.property(chunk, (c) => {
        const envelope = sealChunk(c, nobleChunkCipher, into);
        expect(envelope.buffer).toBe(buffer.buffer);
        expect(envelope.byteOffset).toBe(8);
        expect(envelope).toEqual(sealChunk(c));
      }),
    );
  });

  it("seals data read straight into the envelope without copying it, and refuses a short buffer", () => {
    const into = new Uint8Array(CHUNK_OVERHEAD_BYTES + fixed.data.length);
    const data = into.subarray(CHUNK_DATA_AT, CHUNK_DATA_AT + fixed.data.length);
    data.set(fixed.data);
    expect(sealChunk({ ...fixed, data }, nobleChunkCipher, into)).toEqual(sealChunk(fixed));
    expect(() => sealChunk(fixed, nobleChunkCipher, into.subarray(1))).toThrow(RangeError);
  });

  it("refuses an envelope with any one byte changed", () => {
    const envelope = sealChunk(fixed);
    for (let i = 0; i < envelope.length; i++) {
      for (const flip of [0x01, 0x80]) {
        const tampered = envelope.slice();
        tampered[i] = (tampered[i] as number) ^ flip;
        expect(refusal(() => openChunk(tampered, fixed.key)).status, `byte ${i}`).toBe(400);
      }
    }
  });

  it("refuses another key, a truncated and an extended envelope", () => {
    const envelope = sealChunk(fixed);
    const other = new Uint8Array(32).fill(8);
    expect(refusal(() => openChunk(envelope, other)).message).toBe("chunk does not authenticate");
    const extended = new Uint8Array(envelope.length + 1);
    extended.set(envelope);
    for (const bad of [envelope.subarray(0, -1), extended]) {
      expect(refusal(() => openChunk(bad, fixed.key)).message).toBe("chunk does not authenticate");
    }
  });

  it("refuses an authentic offset above 2^53 - 1", () => {
    const header = encodeChunkHeader(fixed);
    const plaintext = new Uint8Array(8);
    new DataView(plaintext.buffer).setBigUint64(0, 2n ** 53n);
    const sealed = nobleChunkCipher.seal(fixed.key, header.subarray(17), header, plaintext);
    const envelope = new Uint8Array([...header, ...sealed]);
    const error = refusal(() => openChunk(envelope, fixed.key));
    expect([error.code, error.message]).toEqual([
      "SVC_BAD_REQUEST",
      "chunk offset 9007199254740992 is above 2^53 - 1",
    ]);
  });

  it("works with a cipher that returns new arrays instead of sealing in place", () => {
    const copying: ChunkCipher = {
      envelopeType: nobleChunkCipher.envelopeType,
      seal: (k, nonce, ad, plaintext) => nobleChunkCipher.seal(k, nonce, ad, plaintext.slice()),
      open: nobleChunkCipher.open,
    };
    expect(sealChunk(fixed, copying)).toEqual(sealChunk(fixed));
    expect(openChunk(sealChunk(fixed, copying), fixed.key, copying).data).toEqual(fixed.data);
  });

  it("seals a version 2 chunk with AES-256-GCM under type 0x12, and refuses the other type", () => {
    const v2 = sealChunk(fixed, nobleAesGcmChunkCipher);
    expect(v2[0]).toBe(0x12);
    expect(v2.subarray(1, CHUNK_HEADER_BYTES)).toEqual(
      sealChunk(fixed).subarray(1, CHUNK_HEADER_BYTES),
    );
    const header = v2.subarray(0, CHUNK_HEADER_BYTES);
    const plaintext = new Uint8Array([...new Uint8Array(8), ...fixed.data]);
    new DataView(plaintext.buffer).setBigUint64(0, BigInt(fixed.offset));
    const nonce = v2.subarray(1 + 16, CHUNK_HEADER_BYTES);
    // The AEAD is plain AES-256-GCM: the header as associated data, the nonce its last 12 bytes.
    expect(v2.subarray(CHUNK_HEADER_BYTES)).toEqual(
      gcm(fixed.key, nonce, header).encrypt(plaintext),
    );
    expect(openChunk(v2, fixed.key, nobleAesGcmChunkCipher).data).toEqual(fixed.data);
    expect(refusal(() => openChunk(v2, fixed.key))).toMatchObject({
      status: 400,
      message: "chunk envelope starts with 0x12, not 0x11",
    });
    expect(
      refusal(() => openChunk(sealChunk(fixed), fixed.key, nobleAesGcmChunkCipher)),
    ).toMatchObject({
      status: 400,
      message: "chunk envelope starts with 0x11, not 0x12",
    });
    v2[40] = (v2[40] as number) ^ 1;
    expect(refusal(() => openChunk(v2, fixed.key, nobleAesGcmChunkCipher))).toMatchObject({
      status: 400,
      message: "chunk does not authenticate",
    });
  });

  it("does not alias the caller's envelope in the header it returns", () => {
    const envelope = sealChunk(fixed);
    const { header } = openChunk(envelope, fixed.key);
    envelope[1] = 0xff;
    expect(header.streamId).toEqual(fixed.streamId);
  });

  it("refuses caller mistakes with TypeError or RangeError", () => {
    expect(() => sealChunk({ ...fixed, key: new Uint8Array(31) })).toThrow(RangeError);
    expect(() => sealChunk({ ...fixed, streamId: new Uint8Array(15) })).toThrow(RangeError);
    expect(() => sealChunk({ ...fixed, laneId: 2 ** 32 })).toThrow(RangeError);
    expect(() => sealChunk({ ...fixed, seq: 0n })).toThrow(RangeError);
    expect(() => sealChunk({ ...fixed, seq: 2n ** 64n })).toThrow(RangeError);
    expect(() => sealChunk({ ...fixed, offset: -1 })).toThrow(RangeError);
    expect(() => sealChunk({ ...fixed, data: [1] as unknown as Uint8Array })).toThrow(TypeError);
    expect(() => openChunk(sealChunk(fixed), new Uint8Array(16))).toThrow(RangeError);
  });
});

describe("decodeChunkHeader", () => {
  const envelope = sealChunk(fixed);

  it("reads the header of a valid envelope, lane and seq at their extremes", () => {
    const extremes = { ...fixed, laneId: 0xffff_ffff, seq: 2n ** 64n - 1n };
    expect(decodeChunkHeader(sealChunk(extremes))).toEqual({
      streamId: fixed.streamId,
      laneId: extremes.laneId,
      seq: extremes.seq,
    });
  });

  it("refuses another type byte, a short envelope and seq 0 with a 400 that says so", () => {
    const retyped = envelope.slice();
    retyped[0] = 0x02;
    const seqZero = envelope.slice();
    seqZero.fill(0, 21, 29);
    const cases: [Uint8Array, string][] = [
      [retyped, "chunk envelope starts with 0x02, not 0x11"],
      [
        new Uint8Array(0),
        "chunk envelope is 0 bytes, shorter than its 53 bytes of header, offset and tag",
      ],
      [
        envelope.subarray(0, 52),
        "chunk envelope is 52 bytes, shorter than its 53 bytes of header, offset and tag",
      ],
      [seqZero, "chunk seq is 0; seqs start at 1"],
    ];
    for (const [bytes, message] of cases) {
      const error = refusal(() => decodeChunkHeader(bytes));
      expect([error.code, error.status, error.message]).toEqual(["SVC_BAD_REQUEST", 400, message]);
    }
  });
});

describe("untrusted envelopes", () => {
  const envelopeLike = fc.oneof(
    fc.uint8Array({ maxLength: 120 }),
    fc.uint8Array({ minLength: 52, maxLength: 120 }).map((bytes) => Uint8Array.of(0x11, ...bytes)),
  );

  it("decode and open, or refuse with a 400, never anything else", () => {
    fc.assert(
      fc.property(envelopeLike, key, (bytes, k) => {
        returnsOrRefuses400(() => decodeChunkHeader(bytes));
        returnsOrRefuses400(() => openChunk(bytes, k));
      }),
    );
  });
});
