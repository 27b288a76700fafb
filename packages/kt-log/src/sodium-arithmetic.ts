import { createRequire } from "node:module";
import type { ScalarArithmetic } from "@svc/vrf";

/** The libsodium functions used, as sodium-native exposes them. */
interface SodiumPointArithmetic {
  /** q = n·p for p of the prime-order subgroup; throws for others and a zero product. */
  crypto_scalarmult_ed25519_noclamp(q: Uint8Array, n: Uint8Array, p: Uint8Array): void;
  /** q = n·B. */
  crypto_scalarmult_ed25519_base_noclamp(q: Uint8Array, n: Uint8Array): void;
  /** r = p + q for any points of the curve; throws when either encoding has no point. */
  crypto_core_ed25519_add(r: Uint8Array, p: Uint8Array, q: Uint8Array): void;
}

/**
 * libsodium's constant-time edwards25519 scalar multiplications (sodium-native, an optional
 * dependency) for the VRF prover's x·H, k·H and k·B: about 60 µs and 25 µs where @noble/curves
 * takes over a millisecond and about 0.15 ms, so proving an address's index stops dominating an
 * identity change; and its point addition for the cofactor multiples of H's candidates and of
 * Gamma (three additions, some 30 µs, against about 85 in @noble/curves). Undefined where
 * sodium-native does not load (the prover then uses noble).
 */
export function sodiumArithmetic(): ScalarArithmetic | undefined {
  let sodium: SodiumPointArithmetic;
  try {
    sodium = createRequire(import.meta.url)("sodium-native") as SodiumPointArithmetic;
  } catch {
    return undefined;
  }
  return {
    multiply(scalar, point) {
      const product = new Uint8Array(32);
      sodium.crypto_scalarmult_ed25519_noclamp(product, scalar, point);
      return product;
    },
    multiplyBase(scalar) {
      const product = new Uint8Array(32);
      sodium.crypto_scalarmult_ed25519_base_noclamp(product, scalar);
      return product;
    },
    clearCofactor(point) {
      const multiple = new Uint8Array(32);
      try {
        // 8P as three doublings; the first decodes the point (y reduced mod p, which the
        // prover's caller has already refused above p).
        sodium.crypto_core_ed25519_add(multiple, point, point);
      } catch {
        return undefined;
      }
      sodium.crypto_core_ed25519_add(multiple, multiple, multiple);
      sodium.crypto_core_ed25519_add(multiple, multiple, multiple);
      return multiple;
    },
  };
}
