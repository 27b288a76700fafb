import { createRequire } from "node:module";
import type { ScalarMultiply } from "@svc/vrf";

/** The libsodium function used, as sodium-native exposes it. */
interface SodiumScalarMult {
  /** q = n·p for p of the prime-order subgroup; throws for others and a zero product. */
  crypto_scalarmult_ed25519_noclamp(q: Uint8Array, n: Uint8Array, p: Uint8Array): void;
}

/**
 * libsodium's constant-time edwards25519 scalar multiplication (sodium-native, an optional
 * dependency) for the VRF prover's x·H and k·H: about 60 µs where @noble/curves takes over a
 * millisecond, so proving an address's index stops dominating an identity change. Undefined
 * where sodium-native does not load (the prover then uses noble).
 */
export function sodiumMultiply(): ScalarMultiply | undefined {
  let sodium: SodiumScalarMult;
  try {
    sodium = createRequire(import.meta.url)("sodium-native") as SodiumScalarMult;
  } catch {
    return undefined;
  }
  return (scalar, point) => {
    const product = new Uint8Array(32);
    sodium.crypto_scalarmult_ed25519_noclamp(product, scalar, point);
    return product;
  };
}
