import { hexToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { RatchetError } from "./errors.js";
import vectors from "./fixtures/ml-kem-1024-wycheproof.json" with { type: "json" };
import { kemDecapsulate, kemEncapsulate, kemKeyPair } from "./kem.js";

const bytes = hexToBytes;

describe("ML-KEM-1024 against Wycheproof's FIPS 203 vectors", () => {
  it.each(vectors.keyGen)("keyGen tcId $tcId: d || z -> ek, dk", (vector) => {
    const pair = kemKeyPair(bytes(vector.seed));
    expect(pair.publicKey).toEqual(bytes(vector.ek));
    expect(pair.secretKey).toEqual(bytes(vector.dk));
  });

  it.each(vectors.encaps)("encaps tcId $tcId: ek with m -> c, K", (vector) => {
    const sent = kemEncapsulate(bytes(vector.ek), () => bytes(vector.m));
    expect(sent.ciphertext).toEqual(bytes(vector.c));
    expect(sent.sharedSecret).toEqual(bytes(vector.K));
  });

  it.each(vectors.encapsModulusOverflow)("encaps tcId $tcId: refuses the key", (vector) => {
    let error: unknown;
    try {
      kemEncapsulate(bytes(vector.ek), () => bytes(vector.m));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RatchetError);
    expect((error as RatchetError).code).toBe("RATCHET_INVALID_KEY");
  });

  it.each(vectors.decaps)("decaps tcId $tcId: the seed's key and c -> K", (vector) => {
    expect(kemDecapsulate(bytes(vector.seed), bytes(vector.c))).toEqual(bytes(vector.K));
  });
});
