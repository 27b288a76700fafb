import { normalizeAddress } from "@svc/canonical";
import { verifiedVrfOutput } from "./vrf-outputs.js";

/** Bytes of an address's index in a format-3 log: the first half of its VRF output. */
export const VRF_INDEX_LENGTH = 32;

const utf8 = new TextEncoder();

/**
 * The format-3 map key of `address`: the first 32 bytes of ECVRF_verify(vrfPublicKey, vrfProof,
 * UTF-8 of the normalized address) (RFC 9381, docs/protocol.md §9 "Private index"), or undefined
 * when the proof does not verify for that address under that key (never a throw for any bytes).
 * An address that is not valid is a RangeError; arguments of another type a TypeError.
 */
export function vrfIndex(
  vrfPublicKey: Uint8Array,
  vrfProof: Uint8Array,
  address: string,
): Uint8Array | undefined {
  if (!(vrfPublicKey instanceof Uint8Array)) {
    throw new TypeError("vrfPublicKey must be a Uint8Array");
  }
  if (!(vrfProof instanceof Uint8Array)) throw new TypeError("vrfProof must be a Uint8Array");
  if (typeof address !== "string") throw new TypeError("address must be a string");
  let normalized: string;
  try {
    normalized = normalizeAddress(address);
  } catch {
    throw new RangeError("address must be a valid address");
  }
  const beta = verifiedVrfOutput(vrfPublicKey, utf8.encode(normalized), vrfProof);
  return beta?.slice(0, VRF_INDEX_LENGTH);
}
