import { sha256 } from "@noble/hashes/sha2.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import { decodeLeafV2, encodeLeafV2, isLeafV2, LEAF_V2_SIZE, leafCommitment } from "./leaf-v2.js";

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const leaf = fc.record({
  kind: fc.constantFrom("identity" as const, "tombstone" as const),
  index: bytes32,
  commitment: bytes32,
  timestampMs: fc.maxSafeNat(),
});
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("leaf v2", () => {
  it("lays out domain, kind, index, commitment and timestamp in 88 bytes", () => {
    const encoded = encodeLeafV2({
      kind: "tombstone",
      index: new Uint8Array(32).fill(0xaa),
      commitment: new Uint8Array(32).fill(0xbb),
      timestampMs: 1763780004000,
    });
    expect(encoded.length).toBe(LEAF_V2_SIZE);
    expect(hex(encoded)).toBe(
      `${Buffer.from("svc-kt-leaf-v2\0").toString("hex")}02${"aa".repeat(32)}${"bb".repeat(32)}0000019aa97b08a0`,
    );
    expect(isLeafV2(encoded)).toBe(true);
  });

  it("round-trips every leaf and refuses every truncation or flipped domain/kind bit", () => {
    fc.assert(
      fc.property(leaf, fc.nat(), (l, at) => {
        const encoded = encodeLeafV2(l);
        expect(decodeLeafV2(encoded)).toEqual(l);
        expect(() => decodeLeafV2(encoded.subarray(0, at % encoded.length))).toThrow(KtVerifyError);
        const flipped = encoded.slice();
        const position = at % 16;
        flipped[position] = (flipped[position] as number) ^ 0x01;
        expect(() => decodeLeafV2(flipped)).toThrow(KtVerifyError);
      }),
    );
  });

  it("refuses bad arguments naming them", () => {
    const base = {
      kind: "identity" as const,
      index: new Uint8Array(32),
      commitment: new Uint8Array(32),
      timestampMs: 1,
    };
    expect(() => encodeLeafV2({ ...base, index: new Uint8Array(31) })).toThrow(/leaf.index/);
    expect(() => encodeLeafV2({ ...base, timestampMs: -1 })).toThrow(/timestampMs/);
    expect(() => encodeLeafV2({ ...base, kind: "other" as never })).toThrow(TypeError);
  });
});

describe("leafCommitment", () => {
  it("hashes domain, opening, address length and address, and the keys of an identity", () => {
    const opening = new Uint8Array(32).fill(7);
    const keys = {
      identitySigningKey: new Uint8Array(32).fill(1),
      identityDHKey: new Uint8Array(32).fill(2),
    };
    const utf8 = new TextEncoder();
    const expected = sha256(
      Uint8Array.from([
        ...utf8.encode("svc-kt-commit-v1\0"),
        ...opening,
        0,
        7,
        ...utf8.encode("alice:1"),
        ...keys.identitySigningKey,
        ...keys.identityDHKey,
      ]),
    );
    expect(leafCommitment(opening, "alice:1", keys)).toEqual(expected);
    expect(leafCommitment(opening, "alice:1")).not.toEqual(expected);
    expect(() => leafCommitment(opening, "Not Normalized")).toThrow(RangeError);
    expect(() => leafCommitment(new Uint8Array(31), "alice:1")).toThrow(/opening/);
  });

  it("appends an identity's last-resort KEM key hash after its two keys, and only then", () => {
    const opening = new Uint8Array(32).fill(7);
    const keys = {
      identitySigningKey: new Uint8Array(32).fill(1),
      identityDHKey: new Uint8Array(32).fill(2),
    };
    const kemKeyHash = new Uint8Array(32).fill(3);
    const utf8 = new TextEncoder();
    const expected = sha256(
      Uint8Array.from([
        ...utf8.encode("svc-kt-commit-v1\0"),
        ...opening,
        0,
        7,
        ...utf8.encode("alice:1"),
        ...keys.identitySigningKey,
        ...keys.identityDHKey,
        ...kemKeyHash,
      ]),
    );
    expect(leafCommitment(opening, "alice:1", { ...keys, kemKeyHash })).toEqual(expected);
    expect(leafCommitment(opening, "alice:1", { ...keys, kemKeyHash: undefined })).toEqual(
      leafCommitment(opening, "alice:1", keys),
    );
    expect(leafCommitment(opening, "alice:1", keys)).not.toEqual(expected);
    expect(() =>
      leafCommitment(opening, "alice:1", { ...keys, kemKeyHash: new Uint8Array(31) }),
    ).toThrow(/kemKeyHash/);
  });
});
