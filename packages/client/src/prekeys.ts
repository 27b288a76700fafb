import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { type KemPreKey, type KemPreKeyJson, LIMITS, type OneTimePreKeyJson } from "@svc/protocol";
import { createKemPreKey, createOneTimePreKey, type PreKeyStore } from "@svc/ratchet";
import { dictionary, identityOf, type StoredKemPreKey, type StoredState } from "./state.js";

/**
 * One-time private keys kept at most: keys a server handed out for a message that never came stay
 * behind, so the oldest are dropped past this (twice what a server queues for one address).
 */
export const MAX_LOCAL_ONE_TIME_PREKEYS = 2 * LIMITS.prekeysQueued;

/** One-time KEM seeds kept at most, for the same reason (twice what a server queues). */
export const MAX_LOCAL_KEM_PREKEYS = 2 * LIMITS.kemPreKeysQueued;

/**
 * `count` new one-time prekeys, their private keys added to `state` (to be saved before the
 * public keys are uploaded, so that every key a server hands out has its private key here).
 */
export function addOneTimePreKeys(state: StoredState, count: number): OneTimePreKeyJson[] {
  const created: OneTimePreKeyJson[] = [];
  for (let i = 0; i < count; i++) {
    const keyId = state.nextOneTimePreKeyId++;
    const key = createOneTimePreKey(keyId);
    state.oneTimePreKeys[keyId] = {
      publicKey: encodeBase64(key.publicKey),
      privateKey: encodeBase64(key.privateKey),
    };
    created.push({ keyId, publicKey: encodeBase64(key.publicKey) });
  }
  const ids = Object.keys(state.oneTimePreKeys).map(Number);
  const excess = ids.length - MAX_LOCAL_ONE_TIME_PREKEYS;
  if (excess > 0) {
    for (const id of ids.sort((a, b) => a - b).slice(0, excess)) delete state.oneTimePreKeys[id];
  }
  return created;
}

/**
 * `count` new one-time ML-KEM-1024 prekeys, signed by the identity; only their seeds are kept
 * in `state` (to be saved before the entries are uploaded).
 */
export function addKemPreKeys(state: StoredState, count: number): KemPreKeyJson[] {
  const identity = identityOf(state);
  state.kemPreKeys ??= dictionary();
  const seeds = state.kemPreKeys;
  const created: KemPreKeyJson[] = [];
  for (let i = 0; i < count; i++) {
    const keyId = nextKemPreKeyId(state);
    const key = createKemPreKey(identity, keyId);
    seeds[keyId] = encodeBase64(key.seed);
    created.push(encodedKemPreKey(key));
  }
  const ids = Object.keys(seeds).map(Number);
  const excess = ids.length - MAX_LOCAL_KEM_PREKEYS;
  if (excess > 0) {
    for (const id of ids.sort((a, b) => a - b).slice(0, excess)) delete seeds[id];
  }
  return created;
}

/**
 * The last-resort KEM prekey, created in `state` if it has none (a state written before KEM
 * prekeys, or a new identity).
 */
export function kemLastResortPreKeyOf(state: StoredState): StoredKemPreKey {
  if (state.kemLastResortPreKey === undefined) {
    const key = createKemPreKey(identityOf(state), nextKemPreKeyId(state));
    state.kemLastResortPreKey = {
      ...encodedKemPreKey(key),
      seed: encodeBase64(key.seed),
      uploaded: false,
    };
  }
  return state.kemLastResortPreKey;
}

/** The entry a register or replenish carries for a KEM prekey. */
export function kemEntry(key: StoredKemPreKey): KemPreKeyJson {
  return { keyId: key.keyId, publicKey: key.publicKey, signature: key.signature };
}

function encodedKemPreKey(key: KemPreKey): KemPreKeyJson {
  return {
    keyId: key.keyId,
    publicKey: encodeBase64(key.publicKey),
    signature: encodeBase64(key.signature),
  };
}

function nextKemPreKeyId(state: StoredState): number {
  const keyId = state.nextKemPreKeyId ?? 1;
  state.nextKemPreKeyId = keyId + 1;
  return keyId;
}

/** The ratchet's PreKeyStore over the state; a removal is saved with the session it started. */
export function preKeyStoreOf(state: StoredState): PreKeyStore {
  return {
    signedPreKey(keyId) {
      const key = state.signedPreKeys.find((k) => k.keyId === keyId);
      return key && decodeBase64(key.privateKey, 32);
    },
    oneTimePreKey(keyId) {
      const key = state.oneTimePreKeys[keyId];
      return key && decodeBase64(key.privateKey, 32);
    },
    removeOneTimePreKey(keyId) {
      if (state.oneTimePreKeys[keyId] === undefined) return false;
      delete state.oneTimePreKeys[keyId];
      return true;
    },
    kemPreKey(keyId, lastResort) {
      if (lastResort) {
        const key = state.kemLastResortPreKey;
        return key?.keyId === keyId ? decodeBase64(key.seed, KEM_SEED_SIZE) : undefined;
      }
      const seed = state.kemPreKeys?.[keyId];
      return seed === undefined ? undefined : decodeBase64(seed, KEM_SEED_SIZE);
    },
    // One-time keys only: the last-resort key is never removed.
    removeKemPreKey(keyId) {
      if (state.kemPreKeys?.[keyId] === undefined) return false;
      delete state.kemPreKeys[keyId];
      return true;
    },
  };
}

/** An ML-KEM keygen seed: d || z, 32 bytes each (FIPS 203). */
const KEM_SEED_SIZE = 64;
