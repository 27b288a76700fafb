import { describe, expect, it } from "vitest";
import { createIdentity } from "./identity.js";
import { kdfCk } from "./kdf.js";
import { MemoryPreKeyStore, type PreKeyStore } from "./prekey-store.js";
import { initiateSession, respondToFirstMessage, Session } from "./session.js";
import { MAX_SKIP, MAX_SKIPPED_AGE } from "./state.js";
import { deserializeState } from "./state-codec.js";
import { makeResponder, seededRandom } from "./test-support/parties.js";
import { codeOf, establishedPair, refusedUnchanged, text, utf8 } from "./test-support/sessions.js";

const msg = (s: string) => utf8.encode(s);

describe("initiateSession and respondToFirstMessage", () => {
  it("deliver the first message and the reply; the responder learns who wrote", async () => {
    const bob = makeResponder("first-bob");
    const alice = createIdentity({ random: seededRandom("first-alice") });
    const { session, envelope } = await initiateSession(alice, bob.bundle(), msg("hello"));
    expect([envelope[0], envelope[1]]).toEqual([0x02, 0x02]);
    const responded = await respondToFirstMessage(bob.identity, bob.store, envelope);
    expect(text.decode(responded.plaintext)).toBe("hello");
    expect(responded.senderIdentity).toEqual({
      identitySigningKey: alice.identitySigningKey,
      identityDHKey: alice.identityDHKey,
    });
    expect(responded.session.peerIdentity.identityDHKey).toEqual(alice.identityDHKey);
    expect(session.peerIdentity.identitySigningKey).toEqual(bob.identity.identitySigningKey);
    expect(text.decode(session.decrypt(responded.session.encrypt(msg("hi"))))).toBe("hi");
  });

  it("work without a one-time prekey", async () => {
    const bob = makeResponder("no-otk-bob");
    const alice = createIdentity();
    const { envelope } = await initiateSession(alice, bob.bundle({ oneTime: false }), msg("x"));
    expect(envelope[106]).toBe(0);
    const { plaintext } = await respondToFirstMessage(bob.identity, bob.store, envelope);
    expect(text.decode(plaintext)).toBe("x");
  });

  it("send prekey envelopes until the initiator has received one, normal ones after", async () => {
    const bob = makeResponder("prekey-form-bob");
    const start = await initiateSession(createIdentity(), bob.bundle(), msg("0"));
    const second = start.session.encrypt(msg("1"));
    const third = start.session.encrypt(msg("2"));
    expect(second[1]).toBe(0x02);
    // The responder may start from any of them; the others go to session.decrypt.
    const { session } = await respondToFirstMessage(bob.identity, bob.store, third);
    expect(text.decode(session.decrypt(start.envelope))).toBe("0");
    expect(text.decode(session.decrypt(second))).toBe("1");
    expect(session.encrypt(msg("r"))[1]).toBe(0x01);
    start.session.decrypt(session.encrypt(msg("reply")));
    const normal = start.session.encrypt(msg("3"));
    expect(normal[1]).toBe(0x01);
    expect(text.decode(session.decrypt(normal))).toBe("3");
  });

  it("refuse a bad signed-prekey signature before any key agreement", async () => {
    const bob = makeResponder("bad-spk-bob");
    const bundle = bob.bundle();
    const signature = bundle.signedPreKey.signature.slice();
    signature[0] = (signature[0] as number) ^ 1;
    const bad = { ...bundle, signedPreKey: { ...bundle.signedPreKey, signature } };
    expect(await codeOf(() => initiateSession(createIdentity(), bad, msg("x")))).toBe(
      "RATCHET_BAD_SIGNATURE",
    );
  });

  it("delete the one-time prekey before returning the plaintext; it serves once only", async () => {
    const bob = makeResponder("otk-once-bob");
    const bundle = bob.bundle();
    const keyId = bundle.oneTimePreKey?.keyId as number;
    const events: string[] = [];
    const store: PreKeyStore = {
      signedPreKey: (id) => bob.store.signedPreKey(id),
      oneTimePreKey: (id) => bob.store.oneTimePreKey(id),
      removeOneTimePreKey: async (id) => {
        events.push(`remove ${id}`);
        return bob.store.removeOneTimePreKey(id);
      },
    };
    const first = await initiateSession(createIdentity(), bundle, msg("a"));
    const pending = respondToFirstMessage(bob.identity, store, first.envelope).then(() =>
      events.push("returned"),
    );
    await pending;
    expect(events).toEqual([`remove ${keyId}`, "returned"]);
    expect(bob.store.oneTimePreKey(keyId)).toBeUndefined();

    // The same envelope again, and another initiator's first message naming the same key.
    expect(await codeOf(() => respondToFirstMessage(bob.identity, store, first.envelope))).toBe(
      "RATCHET_UNKNOWN_PREKEY",
    );
    const other = await initiateSession(createIdentity(), bundle, msg("b"));
    expect(await codeOf(() => respondToFirstMessage(bob.identity, store, other.envelope))).toBe(
      "RATCHET_UNKNOWN_PREKEY",
    );
  });

  it("let only one of two concurrent first messages use a one-time prekey", async () => {
    const bob = makeResponder("otk-race-bob");
    const { envelope } = await initiateSession(createIdentity(), bob.bundle(), msg("a"));
    const results = await Promise.allSettled([
      respondToFirstMessage(bob.identity, bob.store, envelope),
      respondToFirstMessage(bob.identity, bob.store, envelope),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((result) => result.status === "rejected");
    expect(rejected?.reason).toMatchObject({ code: "RATCHET_UNKNOWN_PREKEY" });
  });

  it("keep the one-time prekey when the first message does not decrypt", async () => {
    const bob = makeResponder("otk-keep-bob");
    const { envelope } = await initiateSession(createIdentity(), bob.bundle(), msg("a"));
    const tampered = envelope.slice();
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    expect(await codeOf(() => respondToFirstMessage(bob.identity, bob.store, tampered))).toBe(
      "RATCHET_DECRYPT_FAILED",
    );
    expect(bob.store.oneTimePreKeyCount).toBe(1);
    await respondToFirstMessage(bob.identity, bob.store, envelope);
    expect(bob.store.oneTimePreKeyCount).toBe(0);
  });

  it("refuse an unknown signed prekey, a normal envelope, and another responder", async () => {
    const bob = makeResponder("unknown-bob");
    const { session, envelope } = await initiateSession(createIdentity(), bob.bundle(), msg("a"));
    const empty = new MemoryPreKeyStore();
    expect(await codeOf(() => respondToFirstMessage(bob.identity, empty, envelope))).toBe(
      "RATCHET_UNKNOWN_PREKEY",
    );
    const established = await establishedPair("normal-to-respond");
    const normal = established.alice.encrypt(msg("n"));
    expect(await codeOf(() => respondToFirstMessage(bob.identity, bob.store, normal))).toBe(
      "RATCHET_SESSION_MISMATCH",
    );
    // Carol holds Bob's prekeys (say, a restored backup) but is not the identity Alice bound.
    const carol = { ...createIdentity(), identityDHPrivateKey: bob.identity.identityDHPrivateKey };
    expect(await codeOf(() => respondToFirstMessage(carol, bob.store, envelope))).toBe(
      "RATCHET_DECRYPT_FAILED",
    );
    expect(session.encrypt(msg("b"))[1]).toBe(0x02);
  });

  it("name the bad argument", async () => {
    const bob = makeResponder("args-bob");
    const alice = createIdentity();
    await expect(initiateSession(alice, bob.bundle(), "text" as never)).rejects.toThrow(
      /^plaintext must be a Uint8Array/,
    );
    await expect(
      initiateSession({ ...alice, identityDHPrivateKey: new Uint8Array(3) }, bob.bundle(), msg("")),
    ).rejects.toThrow(/^identity.identityDHPrivateKey must be 32 bytes/);
    await expect(respondToFirstMessage(bob.identity, null as never, msg(""))).rejects.toThrow(
      /^store must be an object/,
    );
    await expect(respondToFirstMessage(bob.identity, bob.store, [2, 1] as never)).rejects.toThrow(
      /^envelope must be a Uint8Array/,
    );
    const { session } = await initiateSession(alice, bob.bundle(), msg(""));
    expect(() => session.encrypt(null as never)).toThrow(TypeError);
    expect(() => session.decrypt("0201" as never)).toThrow(/^envelope must be a Uint8Array/);
    expect(() => Session.deserialize({} as never)).toThrow(/^bytes must be a Uint8Array/);
  });
});

describe("Session", () => {
  it("encrypts and decrypts both ways, empty and large plaintexts too", async () => {
    const { alice, bob } = await establishedPair("round-trip");
    for (const size of [0, 1, 1024, 65536]) {
      const plaintext = Uint8Array.from({ length: size }, (_, i) => i * 7);
      expect(bob.decrypt(alice.encrypt(plaintext))).toEqual(plaintext);
      expect(alice.decrypt(bob.encrypt(plaintext))).toEqual(plaintext);
    }
  });

  it("refuses a replay in the current chain, of a skipped key, and of an older chain", async () => {
    const { alice, bob } = await establishedPair("replay");
    const m0 = alice.encrypt(msg("0"));
    const m1 = alice.encrypt(msg("1"));
    bob.decrypt(m1);
    expect(await refusedUnchanged(bob, m1)).toBe("RATCHET_REPLAY");
    bob.decrypt(m0);
    expect(await refusedUnchanged(bob, m0)).toBe("RATCHET_REPLAY");
    alice.decrypt(bob.encrypt(msg("turn")));
    bob.decrypt(alice.encrypt(msg("new chain")));
    const code = await refusedUnchanged(bob, m1);
    expect(["RATCHET_REPLAY", "RATCHET_DECRYPT_FAILED"]).toContain(code);
  });

  it("decrypts out of order up to MAX_SKIP keys ahead and refuses one more", async () => {
    const { alice, bob } = await establishedPair("max-skip");
    const envelopes = Array.from({ length: MAX_SKIP + 2 }, (_, i) => alice.encrypt(msg(`${i}`)));
    expect(await refusedUnchanged(bob, envelopes[MAX_SKIP + 1] as Uint8Array)).toBe(
      "RATCHET_TOO_MANY_SKIPPED",
    );
    expect(text.decode(bob.decrypt(envelopes[MAX_SKIP] as Uint8Array))).toBe(`${MAX_SKIP}`);
    expect(text.decode(bob.decrypt(envelopes[MAX_SKIP + 1] as Uint8Array))).toBe(`${MAX_SKIP + 1}`);
    expect(text.decode(bob.decrypt(envelopes[0] as Uint8Array))).toBe("0");
  });

  it("refuses a new chain whose previous chain would skip more than MAX_SKIP", async () => {
    const { alice, bob } = await establishedPair("max-skip-pn");
    for (let i = 0; i <= MAX_SKIP; i++) alice.encrypt(msg(`${i}`));
    alice.decrypt(bob.encrypt(msg("turn")));
    expect(await refusedUnchanged(bob, alice.encrypt(msg("next chain")))).toBe(
      "RATCHET_TOO_MANY_SKIPPED",
    );
  });

  it(`drops skipped keys more than MAX_SKIPPED_AGE (${MAX_SKIPPED_AGE}) DH-ratchet steps old`, async () => {
    const { alice, bob } = await establishedPair("age");
    const late = [alice.encrypt(msg("late 0")), alice.encrypt(msg("late 1"))];
    bob.decrypt(alice.encrypt(msg("overtakes")));
    for (let step = 0; step < MAX_SKIPPED_AGE; step++) {
      alice.decrypt(bob.encrypt(msg("b")));
      bob.decrypt(alice.encrypt(msg("a")));
    }
    expect(text.decode(bob.decrypt(late[0] as Uint8Array))).toBe("late 0");
    alice.decrypt(bob.encrypt(msg("b")));
    bob.decrypt(alice.encrypt(msg("a")));
    expect(await refusedUnchanged(bob, late[1] as Uint8Array)).toBe("RATCHET_DECRYPT_FAILED");
  });

  it("keeps at most MAX_SKIPPED_KEYS skipped keys, dropping the oldest", async () => {
    const { alice, bob } = await establishedPair("cap");
    const skippedCount = () => deserializeState(bob.serialize()).mkSkipped.length;
    const firstChain = Array.from({ length: MAX_SKIP + 1 }, (_, i) => alice.encrypt(msg(`${i}`)));
    bob.decrypt(firstChain[MAX_SKIP] as Uint8Array);
    alice.decrypt(bob.encrypt(msg("turn")));
    const secondChain = Array.from({ length: MAX_SKIP + 1 }, (_, i) => alice.encrypt(msg(`${i}`)));
    bob.decrypt(secondChain[MAX_SKIP] as Uint8Array);
    expect(skippedCount()).toBe(2 * MAX_SKIP);
    alice.decrypt(bob.encrypt(msg("turn")));
    alice.encrypt(msg("skipped"));
    bob.decrypt(alice.encrypt(msg("one more skipped key")));
    expect(skippedCount()).toBe(2 * MAX_SKIP);
    expect(await refusedUnchanged(bob, firstChain[0] as Uint8Array)).toBe("RATCHET_DECRYPT_FAILED");
    expect(text.decode(bob.decrypt(firstChain[1] as Uint8Array))).toBe("1");
  });

  it("forgets the keys of a decrypted message: a later state cannot decrypt it again", async () => {
    const { alice, bob } = await establishedPair("forward-secrecy");
    const skippedEnvelope = alice.encrypt(msg("skipped"));
    const envelope = alice.encrypt(msg("in order"));
    bob.decrypt(envelope);
    const before = deserializeState(bob.serialize());
    const skippedKey = before.mkSkipped.at(-1)?.mk as Uint8Array;
    const next = alice.encrypt(msg("next"));
    const chainKey = before.ckr as Uint8Array;
    const { messageKey } = kdfCk(chainKey);
    bob.decrypt(next);
    bob.decrypt(skippedEnvelope);
    const after = bob.serialize();
    for (const secret of [chainKey, messageKey, skippedKey])
      expect(contains(after, secret)).toBe(false);
    const reloaded = Session.deserialize(after);
    for (const old of [envelope, next, skippedEnvelope]) {
      expect(await refusedUnchanged(reloaded, old)).toBe("RATCHET_REPLAY");
    }
  });

  it("refuses a prekey envelope of another session, and any prekey envelope on the initiator", async () => {
    const { alice, bob, responder } = await establishedPair("mismatch");
    const other = await initiateSession(createIdentity(), responder.bundle(), msg("other"));
    expect(await refusedUnchanged(bob, other.envelope)).toBe("RATCHET_SESSION_MISMATCH");
    expect(await refusedUnchanged(alice, other.envelope)).toBe("RATCHET_SESSION_MISMATCH");
  });

  it("stops at the end of a sending chain", async () => {
    const { alice } = await establishedPair("exhausted");
    const state = deserializeState(alice.serialize());
    const full = new Session({ ...state, ns: 0xffff_ffff });
    expect(await codeOf(() => full.encrypt(msg("x")))).toBe("RATCHET_CHAIN_EXHAUSTED");
  });
});

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}
