import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { concatBytes } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { generateDh } from "./dh.js";
import { RatchetError } from "./errors.js";
import { createIdentity, createOneTimePreKey, createSignedPreKey } from "./identity.js";
import { seededRandom } from "./test-support/parties.js";
import { associatedData, verifyBundle, x3dhInitiate, x3dhRespond } from "./x3dh.js";

const random = seededRandom("x3dh.test");
const alice = createIdentity({ random });
const bob = createIdentity({ random });
const signed = createSignedPreKey(bob, 1, { random });
const oneTime = createOneTimePreKey(2, { random });
const bundle = {
  identitySigningKey: bob.identitySigningKey,
  identityDHKey: bob.identityDHKey,
  signedPreKey: { keyId: 1, publicKey: signed.publicKey, signature: signed.signature },
  oneTimePreKey: { keyId: 2, publicKey: oneTime.publicKey },
};

describe("x3dhInitiate and x3dhRespond", () => {
  it("agree on SK and AD with a one-time prekey", () => {
    const ephemeral = generateDh(random);
    const sent = x3dhInitiate(alice, bundle, ephemeral);
    const got = x3dhRespond(bob, signed.privateKey, oneTime.privateKey, alice, ephemeral.publicKey);
    expect(got).toEqual(sent);
  });

  it("agree without one, and the one-time prekey changes SK", () => {
    const ephemeral = generateDh(random);
    const { oneTimePreKey: _, ...withoutOneTime } = bundle;
    const sent = x3dhInitiate(alice, withoutOneTime, ephemeral);
    expect(x3dhRespond(bob, signed.privateKey, undefined, alice, ephemeral.publicKey)).toEqual(
      sent,
    );
    expect(x3dhInitiate(alice, bundle, ephemeral).sharedKey).not.toEqual(sent.sharedKey);
  });

  it("refuses a small-order key in the bundle", () => {
    const smallOrder = new Uint8Array(32); // u = 0
    const bad = { ...bundle, identityDHKey: smallOrder };
    expect(() => x3dhInitiate(alice, bad, generateDh(random))).toThrow(
      expect.objectContaining({ code: "RATCHET_INVALID_KEY" }),
    );
  });

  it("binds both identities into AD, initiator first, signing key before DH key", () => {
    expect(associatedData(alice, bob)).toEqual(
      concatBytes(
        alice.identitySigningKey,
        alice.identityDHKey,
        bob.identitySigningKey,
        bob.identityDHKey,
      ),
    );
  });
});

describe("verifyBundle", () => {
  it("accepts a served bundle, with or without a one-time prekey", () => {
    expect(() => verifyBundle(bundle)).not.toThrow();
    const { oneTimePreKey: _, ...withoutOneTime } = bundle;
    expect(() => verifyBundle(withoutOneTime)).not.toThrow();
  });

  it("refuses every flipped bit of the signature", () => {
    for (let bit = 0; bit < 512; bit++) {
      const signature = signed.signature.slice();
      signature[bit >> 3] = (signature[bit >> 3] as number) ^ (1 << (bit & 7));
      const bad = { ...bundle, signedPreKey: { ...bundle.signedPreKey, signature } };
      expect(() => verifyBundle(bad), `bit ${bit}`).toThrow(RatchetError);
    }
  });

  it("refuses a signature by another key, over another prekey, or over the base64 text", () => {
    const otherKey = { ...bundle, identitySigningKey: alice.identitySigningKey };
    const otherPreKey = {
      ...bundle,
      signedPreKey: { ...bundle.signedPreKey, publicKey: oneTime.publicKey },
    };
    const base64 = new TextEncoder().encode(btoa(String.fromCharCode(...signed.publicKey)));
    const overText = {
      ...bundle,
      signedPreKey: {
        ...bundle.signedPreKey,
        signature: ed25519.sign(base64, bob.signingPrivateKey),
      },
    };
    for (const bad of [otherKey, otherPreKey, overText]) {
      expect(() => verifyBundle(bad)).toThrow(
        expect.objectContaining({ name: "RatchetError", code: "RATCHET_BAD_SIGNATURE" }),
      );
    }
  });

  it("refuses a malleated signature (S + L), as strict RFC 8032 does", () => {
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const s = signed.signature.slice(32);
    let value = 0n;
    for (let i = 31; i >= 0; i--) value = (value << 8n) | BigInt(s[i] as number);
    value += L;
    const malleated = signed.signature.slice();
    for (let i = 0; i < 32; i++) {
      malleated[32 + i] = Number(value & 0xffn);
      value >>= 8n;
    }
    const bad = { ...bundle, signedPreKey: { ...bundle.signedPreKey, signature: malleated } };
    expect(() => verifyBundle(bad)).toThrow(
      expect.objectContaining({ code: "RATCHET_BAD_SIGNATURE" }),
    );
  });

  it("names the bad member of a malformed bundle", () => {
    const cases: [unknown, RegExp, ErrorConstructor][] = [
      [null, /^bundle must be an object/, TypeError],
      [{ ...bundle, identitySigningKey: "AAAA" }, /^bundle.identitySigningKey must be/, TypeError],
      [
        { ...bundle, identityDHKey: new Uint8Array(31) },
        /^bundle.identityDHKey must be 32/,
        RangeError,
      ],
      [{ ...bundle, signedPreKey: undefined }, /^bundle.signedPreKey must be/, TypeError],
      [
        { ...bundle, signedPreKey: { ...bundle.signedPreKey, keyId: -1 } },
        /^bundle.signedPreKey.keyId/,
        RangeError,
      ],
      [
        { ...bundle, signedPreKey: { ...bundle.signedPreKey, signature: new Uint8Array(63) } },
        /^bundle.signedPreKey.signature must be 64/,
        RangeError,
      ],
      [
        { ...bundle, oneTimePreKey: { keyId: 2 ** 53, publicKey: oneTime.publicKey } },
        /^bundle.oneTimePreKey.keyId/,
        RangeError,
      ],
      [
        { ...bundle, oneTimePreKey: { keyId: 2, publicKey: null } },
        /^bundle.oneTimePreKey.publicKey/,
        TypeError,
      ],
    ];
    for (const [bad, message, type] of cases) {
      expect(() => verifyBundle(bad as typeof bundle)).toThrow(type);
      expect(() => verifyBundle(bad as typeof bundle)).toThrow(message);
    }
  });
});

describe("identity helpers", () => {
  it("make keys that belong together", () => {
    expect(ed25519.getPublicKey(alice.signingPrivateKey)).toEqual(alice.identitySigningKey);
    expect(x25519.getPublicKey(alice.identityDHPrivateKey)).toEqual(alice.identityDHKey);
    expect(x25519.getPublicKey(signed.privateKey)).toEqual(signed.publicKey);
    expect(ed25519.verify(signed.signature, signed.publicKey, bob.identitySigningKey)).toBe(true);
  });

  it("refuse a bad keyId and a bad random source", () => {
    expect(() => createSignedPreKey(bob, 1.5)).toThrow(/^keyId/);
    expect(() => createOneTimePreKey(-1)).toThrow(RangeError);
    expect(() => createIdentity({ random: () => new Uint8Array(31) })).toThrow(/^random must/);
  });
});
