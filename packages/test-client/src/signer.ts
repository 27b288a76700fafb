import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519KeyPairFromSeed, ed25519Sign, encodeBase64 } from "@svc/canonical";
import { signedBodyMessage } from "@svc/protocol";

/** An Ed25519 key that signs requests: portable here, node:crypto in `@svc/test-client/node`. */
export interface Signer {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export type SignerFromSeed = (seed: Uint8Array) => Signer;

/** Signs with @svc/canonical's portable Ed25519 (tweetnacl): the reference, and slow. */
export function seedSigner(seed: Uint8Array): Signer {
  return {
    seed,
    publicKey: ed25519KeyPairFromSeed(seed).publicKey,
    sign: (message) => ed25519Sign(message, seed),
  };
}

/** A deterministic 32-byte seed: SHA-256 of the label. */
export function seedOf(label: string): Uint8Array {
  return sha256(new TextEncoder().encode(label));
}

/** D3: `fields` (with their signedAt) plus the signature binding them to method and path. */
export function signedBodyBy<T extends Record<string, unknown>>(
  signer: Signer,
  method: string,
  path: string,
  fields: T,
): T & { signature: string } {
  const signature = encodeBase64(signer.sign(signedBodyMessage(method, path, fields)));
  return { ...fields, signature };
}
