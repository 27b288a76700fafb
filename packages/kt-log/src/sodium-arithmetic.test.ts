import { ed25519 } from "@noble/curves/ed25519.js";
import { nobleArithmetic, vrfProofToHash, vrfProve, vrfProver } from "@svc/vrf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sodiumArithmetic } from "./sodium-arithmetic.js";

const arithmetic = sodiumArithmetic();

/** A point of order 8 (RFC 8032's small-order list). */
const TORSION_8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a";

describe.runIf(arithmetic !== undefined)("sodiumArithmetic", () => {
  it("multiplies as @noble/curves does, so the prover's proofs and outputs are vrfProve's", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 64 }),
        (sk, alpha) => {
          const proof = vrfProve(sk, alpha);
          expect(vrfProver(sk, arithmetic).prove(alpha)).toEqual(proof);
          expect(vrfProver(sk, arithmetic).proveWithOutput(alpha)).toEqual({
            proof,
            beta: vrfProofToHash(proof),
          });
        },
      ),
      { numRuns: 50 },
    );
  });

  it("clears cofactors as @noble/curves does, for any curve point, and refuses other strings", () => {
    const noble = (bytes: Uint8Array) => {
      try {
        return ed25519.Point.fromBytes(bytes, false).clearCofactor().toBytes();
      } catch {
        return undefined;
      }
    };
    // A point of order 8, to give points a torsion component.
    const torsion = ed25519.Point.fromBytes(Uint8Array.from(Buffer.from(TORSION_8, "hex")));
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        // Canonical y only: that is the contract (the prover refuses y >= p before).
        bytes[31] = (bytes[31] ?? 0) & 0xef;
        expect(arithmetic?.clearCofactor?.(bytes)).toEqual(noble(bytes));
        const mixed = noble(bytes) && ed25519.Point.fromBytes(bytes).add(torsion).toBytes();
        if (mixed) expect(arithmetic?.clearCofactor?.(mixed)).toEqual(noble(mixed));
      }),
      { numRuns: 300 },
    );
    for (let i = 0; i < 8; i++) {
      const small = torsion.multiply(BigInt(i + 1)).toBytes();
      expect(arithmetic?.clearCofactor?.(small)).toEqual(ed25519.Point.ZERO.toBytes());
    }
  });

  it("refuses a point outside the prime-order subgroup instead of multiplying it", () => {
    // The point (0, -1), of order 2, in RFC 8032 encoding.
    const smallOrder = new Uint8Array(32);
    smallOrder[0] = 0xec;
    smallOrder.fill(0xff, 1, 31);
    smallOrder[31] = 0x7f;
    const scalar = new Uint8Array(32).fill(1);
    expect(() => arithmetic?.multiply(scalar, smallOrder)).toThrow();
    expect(() => nobleArithmetic.multiply(scalar, smallOrder)).not.toThrow();
    expect(arithmetic?.multiplyBase(scalar)).toEqual(nobleArithmetic.multiplyBase(scalar));
  });
});

describe("sodiumArithmetic where sodium-native loads", () => {
  it("is available in this repository's install (an optional dependency that CI installs)", () => {
    expect(arithmetic?.multiplyBase).toBeTypeOf("function");
  });
});
