import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import { decodeLeaf, encodeLeaf, type KtLeaf, LEAF_DOMAIN } from "./leaf.js";

const identity: KtLeaf = {
  kind: "identity",
  address: "alice@example.org:1",
  identitySigningKey: new Uint8Array(32).fill(1),
  identityDHKey: new Uint8Array(32).fill(2),
  timestampMs: 1763780000000,
};
const tombstone: KtLeaf = { kind: "tombstone", address: "bob", timestampMs: 5 };

const addressArb = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9@:_.-]{0,255}$/);
const leafArb: fc.Arbitrary<KtLeaf> = fc.oneof(
  fc.record({
    kind: fc.constant("identity" as const),
    address: addressArb,
    identitySigningKey: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    identityDHKey: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    timestampMs: fc.maxSafeNat(),
  }),
  fc.record({
    kind: fc.constant("tombstone" as const),
    address: addressArb,
    timestampMs: fc.maxSafeNat(),
  }),
);

describe("leaf encoding", () => {
  it("lays out domain, kind, length-prefixed address, keys and timestamp", () => {
    const bytes = encodeLeaf(identity);
    expect(bytes.subarray(0, 15)).toEqual(LEAF_DOMAIN);
    expect(new TextDecoder().decode(LEAF_DOMAIN)).toBe("svc-kt-leaf-v1\0");
    expect(bytes[15]).toBe(1);
    expect([bytes[16], bytes[17]]).toEqual([0, 19]);
    expect(new TextDecoder().decode(bytes.subarray(18, 37))).toBe("alice@example.org:1");
    expect(bytes.subarray(37, 69)).toEqual(new Uint8Array(32).fill(1));
    expect(bytes.subarray(69, 101)).toEqual(new Uint8Array(32).fill(2));
    expect(Array.from(bytes.subarray(101))).toEqual([0, 0, 0x01, 0x9a, 0xa9, 0x7a, 0xf9, 0x00]);
    expect(bytes.length).toBe(109);
  });

  it("gives a tombstone no keys", () => {
    const bytes = encodeLeaf(tombstone);
    expect(bytes[15]).toBe(2);
    expect(bytes.length).toBe(15 + 3 + 3 + 8);
  });

  it("round-trips every leaf", () => {
    fc.assert(
      fc.property(leafArb, (leaf) => {
        expect(decodeLeaf(encodeLeaf(leaf))).toEqual(leaf);
      }),
    );
  });

  it("rejects every truncation, extension and unknown kind with KT_MALFORMED", () => {
    for (const leaf of [identity, tombstone]) {
      const bytes = encodeLeaf(leaf);
      for (let n = 0; n < bytes.length; n++) {
        expect(() => decodeLeaf(bytes.subarray(0, n))).toThrow(KtVerifyError);
      }
      expect(() => decodeLeaf(Uint8Array.of(...bytes, 0))).toThrow(KtVerifyError);
      for (const kind of [0, 3, 255]) {
        const bad = bytes.slice();
        bad[15] = kind;
        expect(() => decodeLeaf(bad)).toThrow(KtVerifyError);
      }
    }
  });

  it("rejects a tombstone carrying keys and an identity without them", () => {
    const asTombstone = encodeLeaf(identity);
    asTombstone[15] = 2;
    expect(() => decodeLeaf(asTombstone)).toThrow(/wrong length/);
    const asIdentity = encodeLeaf(tombstone);
    asIdentity[15] = 1;
    expect(() => decodeLeaf(asIdentity)).toThrow(/wrong length/);
  });

  it("rejects bad addresses and timestamps past 2^53 - 1", () => {
    const bytes = encodeLeaf(tombstone);
    const comma = bytes.slice();
    comma[19] = 0x2c;
    expect(() => decodeLeaf(comma)).toThrow(/address/);
    const notUtf8 = bytes.slice();
    notUtf8[19] = 0xff;
    expect(() => decodeLeaf(notUtf8)).toThrow(/address/);
    const huge = bytes.slice();
    huge[bytes.length - 8] = 0x00;
    huge[bytes.length - 7] = 0x20;
    expect(() => decodeLeaf(huge)).toThrow(/safe integer/);
  });

  it("never throws anything but KtVerifyError on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (tail) => {
        const bytes = Uint8Array.of(...LEAF_DOMAIN, ...tail);
        try {
          decodeLeaf(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(KtVerifyError);
        }
      }),
    );
  });

  it("refuses bad arguments with TypeError / RangeError", () => {
    expect(() => encodeLeaf(null as never)).toThrow(TypeError);
    expect(() => encodeLeaf({ ...identity, kind: "other" } as never)).toThrow(TypeError);
    expect(() => encodeLeaf({ ...identity, address: "a,b" })).toThrow(RangeError);
    expect(() => encodeLeaf({ ...identity, address: "ａ" })).toThrow(RangeError);
    expect(() => encodeLeaf({ ...identity, identityDHKey: new Uint8Array(31) })).toThrow(
      RangeError,
    );
    expect(() => encodeLeaf({ ...identity, identitySigningKey: "x" as never })).toThrow(TypeError);
    expect(() => encodeLeaf({ ...identity, timestampMs: -1 })).toThrow(RangeError);
    expect(() => decodeLeaf("x" as never)).toThrow(TypeError);
  });
});
