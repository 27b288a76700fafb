import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { LIMITS, type OneTimePreKeyJson } from "@svc/protocol";
import { createOneTimePreKey, type PreKeyStore } from "@svc/ratchet";
import type { StoredState } from "./state.js";

/**
 * One-time private keys kept at most: keys a server handed out for a message that never came stay
 * behind, so the oldest are dropped past this (twice what a server queues for one address).
 */
export const MAX_LOCAL_ONE_TIME_PREKEYS = 2 * LIMITS.prekeysQueued;

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
  };
}
