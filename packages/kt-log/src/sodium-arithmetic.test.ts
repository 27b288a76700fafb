import { nobleArithmetic, vrfProve, vrfProver } from "@svc/vrf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sodiumArithmetic } from "./sodium-arithmetic.js";

const arithmetic = sodiumArithmetic();

describe.runIf(arithmetic !== undefined)("sodiumArithmetic", () => {
  it("multiplies as @noble/curves does, so the prover's proofs are vrfProve's", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 64 }),
        (sk, alpha) => {
          expect(vrfProver(sk, arithmetic).prove(alpha)).toEqual(vrfProve(sk, alpha));
        },
      ),
      { numRuns: 50 },
    );
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
