import { decodeBase64, encodeBase64, portableEd25519 } from "@svc/canonical";
import { decodeBundle } from "@svc/protocol";
import {
  createIdentity,
  createSignedPreKey,
  initiateSession,
  respondToFirstMessage,
} from "@svc/ratchet";
import { describe, expect, it } from "vitest";
import {
  addKemPreKeys,
  kemLastResortPreKeyOf,
  MAX_LOCAL_KEM_PREKEYS,
  preKeyStoreOf,
} from "./prekeys.js";
import {
  dictionary,
  identityOf,
  parseState,
  STATE_VERSION,
  type StoredState,
  storedIdentity,
} from "./state.js";

/** A state as init makes it, before any KEM prekey. */
function newState(address: string): StoredState {
  const identity = createIdentity();
  const signed = createSignedPreKey(identity, 1);
  return {
    version: STATE_VERSION,
    address,
    registered: true,
    identity: storedIdentity(identity),
    signedPreKeys: [
      {
        keyId: 1,
        publicKey: encodeBase64(signed.publicKey),
        privateKey: encodeBase64(signed.privateKey),
        signature: encodeBase64(signed.signature),
      },
    ],
    oneTimePreKeys: dictionary(),
    nextOneTimePreKeyId: 1,
    sessions: dictionary(),
    peers: dictionary(),
    kt: null,
    cursor: 0,
    unacked: dictionary(),
    recentlyAcked: [],
  };
}

const utf8 = new TextEncoder();

describe("KEM prekeys in the state", () => {
  it("keeps only 64-byte seeds of one-time KEM prekeys, uploads 1568-byte keys signed by the identity", () => {
    const state = newState("bob:1");
    const lastResort = kemLastResortPreKeyOf(state);
    const entries = addKemPreKeys(state, 3);
    expect(lastResort).toMatchObject({ keyId: 1, uploaded: false });
    expect(kemLastResortPreKeyOf(state)).toBe(lastResort);
    expect(entries.map((entry) => entry.keyId)).toEqual([2, 3, 4]);
    const signingKey = decodeBase64(state.identity.identitySigningKey, 32);
    for (const entry of [lastResort, ...entries]) {
      const publicKey = decodeBase64(entry.publicKey);
      expect(publicKey).toHaveLength(1568);
      expect(portableEd25519.verify(decodeBase64(entry.signature, 64), publicKey, signingKey)).toBe(
        true,
      );
    }
    expect(Object.keys(state.kemPreKeys ?? {})).toEqual(["2", "3", "4"]);
    expect(Object.values(state.kemPreKeys ?? {}).map((seed) => decodeBase64(seed).length)).toEqual([
      64, 64, 64,
    ]);
    // What is saved loads again, KEM members included.
    expect(parseState(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it("drops the oldest one-time seeds past MAX_LOCAL_KEM_PREKEYS", () => {
    const state = newState("bob:1");
    state.kemPreKeys = dictionary(
      Object.fromEntries(
        Array.from({ length: MAX_LOCAL_KEM_PREKEYS }, (_, i) => [
          i + 1,
          encodeBase64(new Uint8Array(64)),
        ]),
      ),
    );
    state.nextKemPreKeyId = MAX_LOCAL_KEM_PREKEYS + 1;
    addKemPreKeys(state, 2);
    const ids = Object.keys(state.kemPreKeys).map(Number);
    expect(ids).toHaveLength(MAX_LOCAL_KEM_PREKEYS);
    expect(Math.min(...ids)).toBe(3);
  });

  it("answers a PQXDH first message from the state's seeds: a one-time seed used once, the last-resort one kept", async () => {
    const bob = newState("bob:1");
    const lastResort = kemLastResortPreKeyOf(bob);
    const [oneTime] = addKemPreKeys(bob, 1);
    const bundleWith = (kemPreKey: object) =>
      decodeBundle({
        identitySigningKey: bob.identity.identitySigningKey,
        identityDHKey: bob.identity.identityDHKey,
        signedPreKey: {
          keyId: 1,
          publicKey: bob.signedPreKeys[0]?.publicKey ?? "",
          signature: bob.signedPreKeys[0]?.signature ?? "",
        },
        kemPreKey,
      } as Parameters<typeof decodeBundle>[0]);
    const store = preKeyStoreOf(bob);
    const bobIdentity = identityOf(bob);

    const first = await initiateSession(
      createIdentity(),
      bundleWith({ ...oneTime, lastResort: false }),
      utf8.encode("one-time"),
    );
    const answered = await respondToFirstMessage(bobIdentity, store, first.envelope);
    expect(answered.postQuantum).toBe(true);
    expect(Object.keys(bob.kemPreKeys ?? {})).toEqual([]);
    // The same key id again: the seed is gone, so the message is refused.
    const again = await initiateSession(
      createIdentity(),
      bundleWith({ ...oneTime, lastResort: false }),
      utf8.encode("replayed id"),
    );
    await expect(respondToFirstMessage(bobIdentity, store, again.envelope)).rejects.toThrow();

    for (const text of ["last resort", "last resort again"]) {
      const started = await initiateSession(
        createIdentity(),
        bundleWith({
          keyId: lastResort.keyId,
          publicKey: lastResort.publicKey,
          signature: lastResort.signature,
          lastResort: true,
        }),
        utf8.encode(text),
      );
      const { plaintext, postQuantum } = await respondToFirstMessage(
        bobIdentity,
        store,
        started.envelope,
      );
      expect({ text: new TextDecoder().decode(plaintext), postQuantum }).toEqual({
        text,
        postQuantum: true,
      });
    }
    expect(await store.removeKemPreKey?.(lastResort.keyId)).toBe(false);
    expect(bob.kemLastResortPreKey).toBe(lastResort);
  });
});
