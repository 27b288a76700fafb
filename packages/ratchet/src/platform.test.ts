import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { dh, generateDh } from "./dh.js";
import { RatchetError } from "./errors.js";
import { dhAsync, generateDhAsync, verifyEd25519, verifyEd25519Async } from "./platform.js";
import { defaultRandom } from "./random.js";
import { seededRandom } from "./test-support/parties.js";

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;

function littleEndian(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return out;
}

describe("WebCrypto X25519 agrees with @noble/curves", () => {
  it("on key pairs from the same random bytes, and on shared secrets", async () => {
    for (let i = 0; i < 8; i++) {
      const pair = await generateDhAsync(seededRandom(`platform-${i}`));
      expect(pair).toEqual(generateDh(seededRandom(`platform-${i}`)));
      const peer = x25519.getPublicKey(seededRandom(`peer-${i}`)(32));
      expect(await dhAsync(pair.privateKey, peer)).toEqual(dh(pair.privateKey, peer));
    }
  });

  it("generates pairs whose public key is X25519(private, 9) with the default source", async () => {
    for (let i = 0; i < 4; i++) {
      const pair = await generateDhAsync(defaultRandom);
      expect(x25519.getPublicKey(pair.privateKey)).toEqual(pair.publicKey);
      const peer = generateDh(seededRandom(`peer-${i}`));
      expect(await dhAsync(pair.privateKey, peer.publicKey)).toEqual(
        dh(peer.privateKey, pair.publicKey),
      );
    }
  });

  it("does not answer from a remembered key once its bytes have changed", async () => {
    const key = seededRandom("platform-reused")(32);
    const peer = x25519.getPublicKey(seededRandom("platform-peer")(32));
    expect(await dhAsync(key, peer)).toEqual(dh(key, peer));
    key.set(seededRandom("platform-other")(32));
    expect(await dhAsync(key, peer)).toEqual(dh(key, peer));
  });

  it("refuses small-order public keys as RATCHET_INVALID_KEY", async () => {
    const { privateKey } = generateDh(seededRandom("platform-small"));
    for (const u of [0n, 1n, P - 1n, P, P + 1n]) {
      await expect(dhAsync(privateKey, littleEndian(u))).rejects.toThrow(RatchetError);
    }
  });
});

describe("verifyEd25519Async", () => {
  const seed = seededRandom("platform-ed")(32);
  const publicKey = ed25519.getPublicKey(seed);
  const message = new Uint8Array(1568).fill(3);
  const signature = ed25519.sign(message, seed);

  it("gives noble's strict verdict on good, flipped, malleated and non-canonical input", async () => {
    const cases: [Uint8Array, Uint8Array, Uint8Array][] = [[signature, message, publicKey]];
    const flipped = signature.slice();
    flipped[40] = (flipped[40] as number) ^ 1;
    cases.push([flipped, message, publicKey]);
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number);
    cases.push([
      Uint8Array.of(...signature.subarray(0, 32), ...littleEndian(s + L)),
      message,
      publicKey,
    ]);
    // The identity point (small order) as key, and y = p + 1 (a non-canonical encoding of it).
    cases.push([signature, message, littleEndian(1n)]);
    cases.push([signature, message, littleEndian(P + 1n)]);
    const verdicts = await Promise.all(cases.map((args) => verifyEd25519Async(...args)));
    expect(verdicts).toEqual(cases.map((args) => verifyEd25519(...args)));
    expect(verdicts).toEqual([true, false, false, false, false]);
  });
});
