import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { PQXDH_PREKEY_PREFIX_SIZE } from "./envelope.js";
import { createIdentity, createKemPreKey } from "./identity.js";
import type { PreKeyStore } from "./prekey-store.js";
import { initiateSession, respondToFirstMessage, Session } from "./session.js";
import { seededRandom } from "./test-support/parties.js";
import { makePqResponder } from "./test-support/pq-parties.js";
import { codeOf, text, utf8 } from "./test-support/sessions.js";

const msg = (s: string) => utf8.encode(s);
/** Offset of the KEM prekey id in a kind 0x03 envelope: after type, kind and the X3DH fields. */
const KEM_ID = 2 + 113;

describe("PQXDH session setup", () => {
  it("runs when the bundle has a KEM prekey: kind 0x03, postQuantum on both sides", async () => {
    const bob = makePqResponder("pq-first-bob");
    const alice = createIdentity({ random: seededRandom("pq-first-alice") });
    const { session, envelope } = await initiateSession(alice, bob.pqBundle(), msg("hello"));
    expect([envelope[0], envelope[1]]).toEqual([0x02, 0x03]);
    expect(envelope.length).toBe(PQXDH_PREKEY_PREFIX_SIZE + 12 + 5 + 16);
    expect(session.postQuantum).toBe(true);
    const responded = await respondToFirstMessage(bob.identity, bob.store, envelope);
    expect(text.decode(responded.plaintext)).toBe("hello");
    expect(responded.postQuantum).toBe(true);
    expect(responded.session.postQuantum).toBe(true);
    expect(text.decode(session.decrypt(responded.session.encrypt(msg("hi"))))).toBe("hi");
    const normal = session.encrypt(msg("after"));
    expect(normal[1]).toBe(0x01);
    expect(text.decode(responded.session.decrypt(normal))).toBe("after");
  });

  it("keeps X3DH, byte for byte the old kind, for a bundle without one", async () => {
    const bob = makePqResponder("pq-classic-bob");
    const { session, envelope } = await initiateSession(createIdentity(), bob.bundle(), msg("x"));
    expect(envelope[1]).toBe(0x02);
    expect(session.postQuantum).toBe(false);
    const responded = await respondToFirstMessage(bob.identity, bob.store, envelope);
    expect(responded.postQuantum).toBe(false);
    expect(bob.store.kemPreKeyCount).toBe(0);
  });

  it("deletes the one-time KEM prekey once the message decrypts; a replay is refused", async () => {
    const bob = makePqResponder("pq-delete-bob");
    const { envelope, session } = await initiateSession(
      createIdentity(),
      bob.pqBundle({ oneTime: false }),
      msg("once"),
    );
    expect(bob.store.kemPreKeyCount).toBe(1);
    await respondToFirstMessage(bob.identity, bob.store, envelope);
    expect(bob.store.kemPreKeyCount).toBe(0);
    expect(await codeOf(() => respondToFirstMessage(bob.identity, bob.store, envelope))).toBe(
      "RATCHET_UNKNOWN_PREKEY",
    );
    const second = session.encrypt(msg("again"));
    expect(await codeOf(() => respondToFirstMessage(bob.identity, bob.store, second))).toBe(
      "RATCHET_UNKNOWN_PREKEY",
    );
  });

  it("keeps the last-resort KEM prekey for every initiator", async () => {
    const bob = makePqResponder("pq-last-resort-bob");
    for (const label of ["a", "b"]) {
      const bundle = bob.pqBundle({ lastResort: true });
      const { envelope } = await initiateSession(createIdentity(), bundle, msg(label));
      expect(envelope[KEM_ID + 8]).toBe(1);
      const responded = await respondToFirstMessage(bob.identity, bob.store, envelope);
      expect(text.decode(responded.plaintext)).toBe(label);
      expect(responded.postQuantum).toBe(true);
    }
    expect(bob.store.kemPreKey(1, true)).toBeDefined();
  });

  it("deletes exactly once when two responders race on the same first message", async () => {
    const bob = makePqResponder("pq-race-bob");
    const { envelope } = await initiateSession(
      createIdentity(),
      bob.pqBundle({ oneTime: false }),
      msg("race"),
    );
    const outcomes = await Promise.allSettled([
      respondToFirstMessage(bob.identity, bob.store, envelope),
      respondToFirstMessage(bob.identity, bob.store, envelope),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = outcomes.find((outcome) => outcome.status === "rejected");
    expect(rejected?.reason).toMatchObject({ code: "RATCHET_UNKNOWN_PREKEY" });
  });

  it("refuses a KEM prekey signature that does not verify, before any key agreement", async () => {
    const bob = makePqResponder("pq-bad-sig-bob");
    const bundle = bob.pqBundle();
    const kem = bundle.kemPreKey as NonNullable<typeof bundle.kemPreKey>;
    const flipped = kem.signature.slice();
    flipped[5] = (flipped[5] as number) ^ 1;
    const other = createKemPreKey(bob.identity, 9);
    const overText = ed25519.sign(msg("not the key"), bob.identity.signingPrivateKey);
    for (const bad of [
      { ...kem, signature: flipped },
      { ...kem, publicKey: other.publicKey },
      { ...kem, signature: overText },
    ]) {
      const error = await codeOf(() =>
        initiateSession(createIdentity(), { ...bundle, kemPreKey: bad }, msg("x")),
      );
      expect(error).toBe("RATCHET_BAD_SIGNATURE");
    }
  });

  it("names a malformed KEM prekey in the bundle", async () => {
    const bundle = makePqResponder("pq-shape-bob").pqBundle();
    const kem = bundle.kemPreKey as NonNullable<typeof bundle.kemPreKey>;
    const cases: [unknown, RegExp][] = [
      [{ ...kem, publicKey: new Uint8Array(1567) }, /^bundle.kemPreKey.publicKey must be 1568/],
      [{ ...kem, signature: new Uint8Array(63) }, /^bundle.kemPreKey.signature must be 64/],
      [{ ...kem, keyId: -1 }, /^bundle.kemPreKey.keyId/],
      [{ ...kem, lastResort: "no" }, /^bundle.kemPreKey.lastResort must be a boolean/],
    ];
    for (const [bad, message] of cases) {
      await expect(
        initiateSession(createIdentity(), { ...bundle, kemPreKey: bad as typeof kem }, msg("x")),
      ).rejects.toThrow(message);
    }
  });

  it("refuses an unknown KEM prekey id, or a one-time id claimed as last-resort", async () => {
    const bob = makePqResponder("pq-unknown-bob");
    const { envelope } = await initiateSession(createIdentity(), bob.pqBundle(), msg("x"));
    const unknown = envelope.slice();
    unknown[KEM_ID + 7] = 0x77;
    const claimed = envelope.slice();
    claimed[KEM_ID + 8] = 1;
    for (const bad of [unknown, claimed]) {
      expect(await codeOf(() => respondToFirstMessage(bob.identity, bob.store, bad))).toBe(
        "RATCHET_UNKNOWN_PREKEY",
      );
    }
    expect(bob.store.kemPreKeyCount).toBe(1);
    expect(bob.store.oneTimePreKeyCount).toBe(1);
  });

  it("keeps every prekey when the ciphertext was tampered with (the message fails)", async () => {
    const bob = makePqResponder("pq-tamper-bob");
    const { envelope } = await initiateSession(createIdentity(), bob.pqBundle(), msg("x"));
    const tampered = envelope.slice();
    tampered[KEM_ID + 9 + 100] = (tampered[KEM_ID + 9 + 100] as number) ^ 1;
    expect(await codeOf(() => respondToFirstMessage(bob.identity, bob.store, tampered))).toBe(
      "RATCHET_DECRYPT_FAILED",
    );
    expect([bob.store.kemPreKeyCount, bob.store.oneTimePreKeyCount]).toEqual([1, 1]);
    expect((await respondToFirstMessage(bob.identity, bob.store, envelope)).postQuantum).toBe(true);
  });

  it("gives a clear error when the store keeps no KEM prekeys", async () => {
    const bob = makePqResponder("pq-old-store-bob");
    const { envelope } = await initiateSession(createIdentity(), bob.pqBundle(), msg("x"));
    const classicStore: PreKeyStore = {
      signedPreKey: (id) => bob.store.signedPreKey(id),
      oneTimePreKey: (id) => bob.store.oneTimePreKey(id),
      removeOneTimePreKey: (id) => bob.store.removeOneTimePreKey(id),
    };
    await expect(respondToFirstMessage(bob.identity, classicStore, envelope)).rejects.toThrow(
      expect.objectContaining({
        code: "RATCHET_UNKNOWN_PREKEY",
        message: expect.stringMatching(/keeps no KEM prekeys/),
      }),
    );
    expect(bob.store.oneTimePreKeyCount).toBe(1);
  });

  it("keeps postQuantum through serialize and deserialize", async () => {
    const bob = makePqResponder("pq-serialize-bob");
    const start = await initiateSession(createIdentity(), bob.pqBundle(), msg("x"));
    const { session } = await respondToFirstMessage(bob.identity, bob.store, start.envelope);
    for (const party of [start.session, session]) {
      const bytes = party.serialize();
      expect(bytes[4]).toBe(2);
      const restored = Session.deserialize(bytes);
      expect(restored.postQuantum).toBe(true);
      expect(restored.serialize()).toEqual(bytes);
    }
    const restored = Session.deserialize(start.session.serialize());
    expect(text.decode(restored.decrypt(session.encrypt(msg("back"))))).toBe("back");
    const bytes = session.serialize();
    for (const length of [0, 5, 300, 1800, bytes.length - 1]) {
      expect(await codeOf(() => Session.deserialize(bytes.slice(0, length)))).toBe(
        "RATCHET_MALFORMED_STATE",
      );
    }
  });

  it("reads a session serialized before PQXDH (version 1) as not post-quantum", async () => {
    const bob = makePqResponder("pq-old-state-bob");
    const { session } = await initiateSession(createIdentity(), bob.bundle(), msg("x"));
    const bytes = session.serialize();
    expect(bytes[4]).toBe(1);
    expect(Session.deserialize(bytes).postQuantum).toBe(false);
  });
});
