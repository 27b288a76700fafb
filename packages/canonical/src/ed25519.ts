import { ed25519 } from "@noble/curves/ed25519.js";
import nacl from "tweetnacl";
import { assertBytes } from "./bytes.js";
import { passesStrictEd25519Checks } from "./ed25519-strict.js";

export interface Ed25519Verifier {
  /** Strict RFC 8032 verification; false (never a throw) for any malformed signature or key. */
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

export interface Ed25519KeyPair {
  publicKey: Uint8Array;
  /** tweetnacl's 64-byte secret key: seed followed by the public key. */
  secretKey: Uint8Array;
}

/**
 * A verifier around a curve check that may assume well-formed input: every verifier takes the
 * same argument types and the same RFC 8032 pre-checks before its own arithmetic.
 */
export function strictEd25519(
  verifyWellFormed: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean,
): Ed25519Verifier {
  return {
    verify(signature, message, publicKey) {
      assertBytes("signature", signature);
      assertBytes("message", message);
      assertBytes("publicKey", publicKey);
      if (!passesStrictEd25519Checks(signature, publicKey)) return false;
      return verifyWellFormed(signature, message, publicKey);
    },
  };
}

/** tweetnacl plus the S < L and canonical-encoding checks it lacks. */
export const portableEd25519: Ed25519Verifier = strictEd25519((signature, message, publicKey) =>
  nacl.sign.detached.verify(message, signature, publicKey),
);

export function ed25519KeyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
  requireSeed(seed);
  const publicKey = ed25519.getPublicKey(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed);
  secretKey.set(publicKey, 32);
  return { publicKey, secretKey };
}

/**
 * Deterministic RFC 8032 signature (64 bytes). Signed with @noble/curves: a dozen times faster
 * than tweetnacl here, which a client pays twice per message (the deposit and the ack).
 */
export function ed25519Sign(message: Uint8Array, seed: Uint8Array): Uint8Array {
  assertBytes("message", message);
  requireSeed(seed);
  return ed25519.sign(message, seed);
}

/** RFC 7748 X25519 public key of a 32-byte private key (clamped as usual). */
export function x25519PublicKeyFromSeed(seed: Uint8Array): Uint8Array {
  requireSeed(seed);
  return nacl.scalarMult.base(seed);
}

function requireSeed(seed: Uint8Array): void {
  assertBytes("seed", seed);
  if (seed.length !== 32) throw new RangeError("seed must be 32 bytes");
}
