import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { type Ed25519Verifier, encodeBase64Url, strictEd25519 } from "@svc/canonical";
import { LruMap } from "@svc/node-kit";

export interface NodeEd25519Options {
  /** Most public keys kept as parsed KeyObjects (least recently used evicted); default 10000. */
  maxCachedKeys?: number;
}

/** node:crypto (OpenSSL) verifier with the same strict pre-checks as `portableEd25519`. */
export function nodeEd25519(options: NodeEd25519Options = {}): Ed25519Verifier {
  const maxCachedKeys = options.maxCachedKeys ?? 10_000;
  if (!Number.isSafeInteger(maxCachedKeys) || maxCachedKeys < 1) {
    throw new RangeError("maxCachedKeys must be a positive integer");
  }
  const keys = new LruMap<string, KeyObject>(maxCachedKeys);

  function keyObject(publicKey: Uint8Array): KeyObject {
    const x = encodeBase64Url(publicKey);
    const cached = keys.get(x);
    if (cached !== undefined) return cached;
    const created = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
    keys.set(x, created);
    return created;
  }

  return strictEd25519((signature, message, publicKey) => {
    try {
      return verify(null, message, keyObject(publicKey), signature);
    } catch {
      // OpenSSL refuses some keys (e.g. y not on the curve) by throwing; that is a failed check.
      return false;
    }
  });
}
