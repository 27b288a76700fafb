import { bytesToHex } from "@svc/canonical";
import { vrfVerify } from "@svc/vrf";

/** How many verified VRF outputs are kept; the oldest goes first. */
const KEPT = 1024;
const kept = new Map<string, Uint8Array>();

/**
 * vrfVerify, remembering each output it verified. The VRF's proofs are deterministic (one proof
 * per key and input), so a client that checks the same account's or address's proof again — a
 * device list read on every send to an account — would redo the same curve arithmetic, most of
 * a proof check's time; the answer is a pure function of the three inputs, so keeping it is safe.
 */
export function verifiedVrfOutput(
  publicKey: Uint8Array,
  alpha: Uint8Array,
  proof: Uint8Array,
): Uint8Array | undefined {
  const key = `${bytesToHex(publicKey)}.${bytesToHex(proof)}.${bytesToHex(alpha)}`;
  const known = kept.get(key);
  if (known !== undefined) return known.slice();
  const beta = vrfVerify(publicKey, alpha, proof);
  if (beta === undefined) return undefined;
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(key, beta.slice());
  return beta;
}
