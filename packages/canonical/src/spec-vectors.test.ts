import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64, encodeBase64Url } from "./base64.js";
import { bridgeQueryMessage, parseWatched, presenceQueryMessage } from "./bridge-query.js";
import { ed25519KeyPairFromSeed, ed25519Sign, portableEd25519 } from "./ed25519.js";
import spec from "./fixtures/spec-vectors.json" with { type: "json" };
import { signBody, signedBody, signedBodyMessage } from "./signed-body.js";

const utf8 = new TextDecoder();
const seeds = {
  alice: decodeBase64(spec.keys.alice.seed, 32),
  sender: decodeBase64(spec.keys.sender.seed, 32),
};

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

describe("spec vectors: signed bodies", () => {
  const cases = [
    ["register", spec.signedBodies.register, seeds.alice],
    ["deposit", spec.signedBodies.deposit, seeds.sender],
    ["ack", spec.signedBodies.ack, seeds.alice],
  ] as const;

  it.each(cases)("%s: canonical form", (_, vector) => {
    expect(utf8.decode(signedBodyMessage(vector.method, vector.path, vector.body))).toBe(
      vector.canonical,
    );
  });

  it.each(cases)("%s: signature verifies", (_, vector, seed) => {
    const message = signedBodyMessage(vector.method, vector.path, vector.body);
    const signature = decodeBase64(vector.body.signature, 64);
    const publicKey = ed25519KeyPairFromSeed(seed).publicKey;
    expect(portableEd25519.verify(signature, message, publicKey)).toBe(true);
  });

  it.each(cases)("%s: signing reproduces the signature byte for byte", (_, vector, seed) => {
    expect(signBody(vector.method, vector.path, vector.body, seed)).toBe(vector.body.signature);
    const { signature: _signature, ...fields } = vector.body;
    expect(signedBody(vector.method, vector.path, fields, seed)).toEqual(vector.body);
  });

  it("register's signed prekey signature covers the raw prekey bytes (D5)", () => {
    const { signedPreKey, identitySigningKey } = spec.signedBodies.register.body;
    const verified = portableEd25519.verify(
      decodeBase64(signedPreKey.signature, 64),
      decodeBase64(signedPreKey.publicKey, 32),
      decodeBase64(identitySigningKey, 32),
    );
    expect(verified).toBe(true);
  });

  it("deposit is signed by the per-request senderPublicKey", () => {
    const publicKey = ed25519KeyPairFromSeed(seeds.sender).publicKey;
    expect(encodeBase64(publicKey)).toBe(spec.signedBodies.deposit.body.senderPublicKey);
  });
});

describe("spec vectors: bridge and presence queries", () => {
  it("bridge query canonical form and signature", () => {
    const { payload, canonical, signature } = spec.bridgeQuery;
    const message = bridgeQueryMessage({ ...payload, kind: "stream" });
    expect(utf8.decode(message)).toBe(canonical);
    expect(encodeBase64(ed25519Sign(message, seeds.alice))).toBe(signature);
    const publicKey = decodeBase64(spec.keys.alice.publicKey, 32);
    expect(portableEd25519.verify(decodeBase64(signature, 64), message, publicKey)).toBe(true);
  });

  it("presence query signs watched sorted, whatever the wire order", () => {
    const { payload, wireWatched, canonical, signature } = spec.presenceQuery;
    const watched = parseWatched(wireWatched);
    expect(watched).toEqual(["bob:2", "Zed:1", "carol:9"]);
    const message = presenceQueryMessage({ ...payload, watched });
    expect(utf8.decode(message)).toBe(canonical);
    expect(encodeBase64(ed25519Sign(message, seeds.alice))).toBe(signature);
    const publicKey = decodeBase64(spec.keys.alice.publicKey, 32);
    expect(portableEd25519.verify(decodeBase64(signature, 64), message, publicKey)).toBe(true);
  });

  it("default bridge `from` is key: + base64url of the sender key", () => {
    const { senderPublicKey, from } = spec.bridgeFromDefault;
    expect(`key:${encodeBase64Url(decodeBase64(senderPublicKey, 32))}`).toBe(from);
  });
});
