import { describe, expect, it } from "vitest";
import { MerkleError } from "./errors.js";
import vectors from "./fixtures/index-map.json" with { type: "json" };
import { emptyMapRoot, mapDefaultHash } from "./map-hash.js";
import { decodeMapProof, encodeMapProof, type MapProof, verifyMapProof } from "./map-proof.js";
import { SparseMerkleMap } from "./sparse-merkle-map.js";
import { hex, unhex } from "./test-support/reference.js";

function vectorMap(): SparseMerkleMap {
  const map = new SparseMerkleMap();
  for (const e of vectors.entries) map.set(unhex(e.key), unhex(e.value));
  return map;
}

const alice = vectors.entries[0] as (typeof vectors.entries)[number];
const present = vectors.proofs[0] as (typeof vectors.proofs)[number];
const absent = vectors.proofs[1] as (typeof vectors.proofs)[number];

describe("map proofs against the vectors", () => {
  it("reproduce the vector root and proofs", () => {
    const map = vectorMap();
    expect(hex(map.root())).toBe(vectors.root);
    expect(hex(encodeMapProof(map.prove(unhex(alice.key))))).toBe(present.proof);
    expect(hex(encodeMapProof(map.prove(unhex(absent.key ?? ""))))).toBe(absent.proof);

    const single = new SparseMerkleMap();
    single.set(unhex(alice.key), unhex(alice.value));
    expect(hex(single.root())).toBe(vectors.singleEntryRoot);
  });

  it("verify the vector proofs, membership and non-membership", () => {
    const root = unhex(vectors.root);
    const proof = decodeMapProof(unhex(present.proof));
    expect(verifyMapProof(root, unhex(alice.key), unhex(alice.value), proof)).toBe(true);
    expect(verifyMapProof(root, unhex(alice.key), null, proof)).toBe(false);
    expect(verifyMapProof(root, unhex(alice.key), unhex(vectors.root), proof)).toBe(false);

    const none = decodeMapProof(unhex(absent.proof));
    expect(verifyMapProof(root, unhex(absent.key ?? ""), null, none)).toBe(true);
    expect(verifyMapProof(root, unhex(absent.key ?? ""), unhex(alice.value), none)).toBe(false);
    expect(verifyMapProof(root, unhex(alice.key), null, none)).toBe(false);
  });

  it("the empty map proves every key absent with an empty sibling list", () => {
    const proof = new SparseMerkleMap().prove(unhex(alice.key));
    expect(proof.siblings).toHaveLength(0);
    expect(hex(encodeMapProof(proof))).toBe("00".repeat(32));
    expect(verifyMapProof(emptyMapRoot(), unhex(alice.key), null, proof)).toBe(true);
  });
});

describe("verifyMapProof on malformed proofs", () => {
  const root = unhex(vectors.root);
  const key = unhex(alice.key);
  const value = unhex(alice.value);
  const good = decodeMapProof(unhex(present.proof));

  it("returns false instead of throwing", () => {
    const cases: unknown[] = [
      { bitmap: new Uint8Array(31), siblings: good.siblings },
      { bitmap: "x", siblings: good.siblings },
      { bitmap: good.bitmap, siblings: "x" },
      { bitmap: good.bitmap, siblings: good.siblings.slice(1) },
      { bitmap: good.bitmap, siblings: [...good.siblings, root] },
      { bitmap: good.bitmap, siblings: [new Uint8Array(31), ...good.siblings.slice(1)] },
      { bitmap: good.bitmap, siblings: [null, ...good.siblings.slice(1)] },
    ];
    for (const proof of cases)
      expect(verifyMapProof(root, key, value, proof as MapProof)).toBe(false);
  });

  it("rejects a listed sibling equal to its default (non-canonical)", () => {
    // Mark the depth-1 sibling as listed although it is the default, and list the default.
    const empty = new SparseMerkleMap();
    const proof = empty.prove(key);
    const bitmap = proof.bitmap.slice();
    bitmap[0] = 0x80;
    const sibling = mapDefaultHash(1);
    expect(verifyMapProof(emptyMapRoot(), key, null, { bitmap, siblings: [sibling] })).toBe(false);
  });

  it("throws for caller mistakes, naming the argument", () => {
    expect(() => verifyMapProof(new Uint8Array(1), key, value, good)).toThrow(/root/);
    expect(() => verifyMapProof(root, "k" as unknown as Uint8Array, value, good)).toThrow(/key/);
    expect(() => verifyMapProof(root, key, new Uint8Array(31), good)).toThrow(/value/);
    expect(() => verifyMapProof(root, key, value, null as unknown as MapProof)).toThrow(/proof/);
  });
});

describe("map proof binary form", () => {
  it("round-trips", () => {
    const bytes = unhex(present.proof);
    expect(encodeMapProof(decodeMapProof(bytes))).toEqual(bytes);
  });

  it("rejects malformed encodings with MERKLE_MALFORMED_PROOF", () => {
    const bytes = unhex(present.proof);
    for (const bad of [
      bytes.slice(0, 31),
      bytes.slice(0, -1),
      bytes.slice(0, -32),
      new Uint8Array(64),
    ]) {
      let error: unknown;
      try {
        decodeMapProof(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MerkleError);
      expect((error as MerkleError).code).toBe("MERKLE_MALFORMED_PROOF");
    }
    expect(() => decodeMapProof("x" as unknown as Uint8Array)).toThrow(TypeError);
  });

  it("encoding rejects wrong inputs", () => {
    expect(() => encodeMapProof(null as unknown as MapProof)).toThrow(TypeError);
    expect(() =>
      encodeMapProof({ bitmap: new Uint8Array(32), siblings: [new Uint8Array(1)] }),
    ).toThrow(/siblings\[0\]/);
    expect(() => encodeMapProof({ bitmap: new Uint8Array(3), siblings: [] })).toThrow(/bitmap/);
  });
});
