import { vrfProofToHash, vrfProve } from "@svc/vrf";
import type { Appended } from "../append-batch.js";

/** Test keys: a 32-byte array filled with `n`. */
export const key32 = (n: number): Uint8Array => new Uint8Array(32).fill(n);

export const identityChange = (address: string, n: number) => ({
  kind: "identity" as const,
  address,
  identitySigningKey: key32(n),
  identityDHKey: key32(n + 1),
});

/** The VRF key of test logs. */
export const vrfSecretKey = key32(77);

/** `address`'s map key under {@link vrfSecretKey}: the first 32 bytes of its VRF output. */
export const indexFor = (address: string): Uint8Array =>
  vrfProofToHash(vrfProve(vrfSecretKey, new TextEncoder().encode(address))).slice(0, 32);

/** An append's result, which must have logged a leaf of its own. */
export function loggedLeaf(appended: Appended): Extract<Appended, { superseded?: undefined }> {
  if (appended.superseded) throw new Error("the change was superseded, not logged");
  return appended;
}
