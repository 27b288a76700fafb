import { vrfProve } from "@svc/vrf";
import { indexOf } from "../vrf-indexes.js";

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

/** `address`'s map key under {@link vrfSecretKey}. */
export const indexFor = (address: string): Uint8Array =>
  indexOf(vrfProve(vrfSecretKey, new TextEncoder().encode(address)));
