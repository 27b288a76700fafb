import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64, encodeBase64Url } from "./base64.js";
import { ed25519KeyPairFromSeed } from "./ed25519.js";
import spec from "./fixtures/spec-vectors.json" with { type: "json" };

describe("spec vectors: keys", () => {
  it.each(Object.entries(spec.keys))("%s: seed gives the public key", (_, key) => {
    const { publicKey } = ed25519KeyPairFromSeed(decodeBase64(key.seed, 32));
    expect(encodeBase64(publicKey)).toBe(key.publicKey);
  });

  it("ktOperator logId is SHA-256 of its public key", () => {
    const publicKey = decodeBase64(spec.keys.ktOperator.publicKey, 32);
    expect(encodeBase64(sha256(publicKey))).toBe(spec.keys.ktOperator.logId);
  });
});

describe("spec vectors: default bridge sender", () => {
  it("default bridge `from` is key: + base64url of the sender key", () => {
    const { senderPublicKey, from } = spec.bridgeFromDefault;
    expect(`key:${encodeBase64Url(decodeBase64(senderPublicKey, 32))}`).toBe(from);
  });
});
