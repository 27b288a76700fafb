import { sha512 } from "@noble/hashes/sha2.js";
import { Fn, stringToInt } from "./suite.js";

/**
 * ECVRF_nonce_generation_RFC8032 (RFC 9381 section 5.4.2.2): k = SHA-512(SHA-512(SK)[32..63] ||
 * h_string) as a little-endian integer mod q, as RFC 8032 derives its signing nonce. `prefix` is
 * SHA-512(SK)[32..63].
 */
export function nonceGeneration(prefix: Uint8Array, hString: Uint8Array): bigint {
  return Fn.create(stringToInt(nonceHash(prefix, hString)));
}

/** The 64-byte hash before its reduction mod q (the RFC's vectors list it as k). */
export function nonceHash(prefix: Uint8Array, hString: Uint8Array): Uint8Array {
  const input = new Uint8Array(prefix.length + hString.length);
  input.set(prefix);
  input.set(hString, prefix.length);
  return sha512(input);
}
