import { sha256 } from "@noble/hashes/sha2.js";
import type { PreKeyBundleKeys } from "@svc/protocol";
import {
  createIdentity,
  createOneTimePreKey,
  createSignedPreKey,
  type Identity,
} from "../identity.js";
import { MemoryPreKeyStore } from "../prekey-store.js";
import type { RandomBytes } from "../random.js";

const utf8 = new TextEncoder();

/** SHA-256 in counter mode over a label: reproducible "random" bytes for tests and vectors. */
export function seededRandom(label: string): RandomBytes {
  const seed = utf8.encode(`svc-ratchet-seed:${label}`);
  let counter = 0;
  return (length) => {
    const out = new Uint8Array(length);
    for (let offset = 0; offset < length; offset += 32) {
      const block = new Uint8Array(seed.length + 4);
      block.set(seed);
      new DataView(block.buffer).setUint32(seed.length, counter++);
      out.set(sha256(block).subarray(0, Math.min(32, length - offset)), offset);
    }
    return out;
  };
}

export interface Responder {
  identity: Identity;
  store: MemoryPreKeyStore;
  /** A bundle with the next one-time prekey, as the directory would hand it out. */
  bundle(options?: { oneTime?: boolean }): PreKeyBundleKeys;
}

/** A responder with signed prekey 1 and one-time prekeys 100, 101, ... created on demand. */
export function makeResponder(label: string): Responder {
  const random = seededRandom(label);
  const identity = createIdentity({ random });
  const signed = createSignedPreKey(identity, 1, { random });
  const store = new MemoryPreKeyStore();
  store.addSignedPreKey(signed);
  let nextOneTime = 100;
  return {
    identity,
    store,
    bundle({ oneTime = true } = {}) {
      const bundle: PreKeyBundleKeys = {
        identitySigningKey: identity.identitySigningKey,
        identityDHKey: identity.identityDHKey,
        signedPreKey: {
          keyId: signed.keyId,
          publicKey: signed.publicKey,
          signature: signed.signature,
        },
      };
      if (oneTime) {
        const key = createOneTimePreKey(nextOneTime++, { random });
        store.addOneTimePreKey(key);
        bundle.oneTimePreKey = { keyId: key.keyId, publicKey: key.publicKey };
      }
      return bundle;
    },
  };
}
