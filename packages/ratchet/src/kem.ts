import { ml_kem1024 } from "@noble/post-quantum/ml-kem.js";
import { ML_KEM_1024 } from "@svc/protocol";
import { RatchetError } from "./errors.js";
import { drawRandom, type RandomBytes } from "./random.js";

/** FIPS 203 ML-KEM.KeyGen_internal's input d || z: the decapsulation key is derived from it. */
export const KEM_SEED_SIZE = 64;
/** The randomness m of ML-KEM.Encaps_internal. */
const ENCAPSULATION_RANDOM_SIZE = 32;

export interface KemKeyPair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/** ML-KEM-1024.KeyGen from a 64-byte seed d || z. */
export function kemKeyPair(seed: Uint8Array): KemKeyPair {
  return ml_kem1024.keygen(seed);
}

/**
 * ML-KEM-1024.Encaps with 32 bytes of `random` as m. A key that fails FIPS 203's encapsulation
 * key check (a coefficient not reduced modulo q) is RATCHET_INVALID_KEY.
 */
export function kemEncapsulate(
  publicKey: Uint8Array,
  random: RandomBytes,
): { ciphertext: Uint8Array; sharedSecret: Uint8Array } {
  const m = drawRandom(random, ENCAPSULATION_RANDOM_SIZE);
  let result: { cipherText: Uint8Array; sharedSecret: Uint8Array };
  try {
    result = ml_kem1024.encapsulate(publicKey, m);
  } catch {
    throw new RatchetError("RATCHET_INVALID_KEY", "ML-KEM-1024 public key fails the modulus check");
  }
  return { ciphertext: result.cipherText, sharedSecret: result.sharedSecret };
}

/**
 * ML-KEM-1024.Decaps with the key pair of `seed`. A ciphertext that was not made for this key
 * yields an unrelated secret (implicit rejection), so the first message fails to decrypt.
 */
export function kemDecapsulate(seed: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  if (ciphertext.length !== ML_KEM_1024.ciphertext) {
    throw new RangeError(`ML-KEM-1024 ciphertext must be ${ML_KEM_1024.ciphertext} bytes`);
  }
  return ml_kem1024.decapsulate(ciphertext, kemKeyPair(seed).secretKey);
}
