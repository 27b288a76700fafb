import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { vrfProofToHash, vrfProve, vrfVerify } from "./ecvrf.js";
import vectorFile from "./fixtures/rfc9381-vectors.json" with { type: "json" };
import { nobleArithmetic, type ScalarArithmetic, vrfProver } from "./prover.js";
import { stringToPoint } from "./suite.js";
import { hex, unhex } from "./test-support/encodings.js";

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe("vrfProver", () => {
  it("reproduces RFC 9381 B.3's proofs, with exactly x*H and k*H, then k*B, to its arithmetic", () => {
    for (const vector of vectorFile.vectors) {
      const calls: string[] = [];
      const counting: ScalarArithmetic = {
        multiply(scalar, point) {
          calls.push(hex(point));
          return nobleArithmetic.multiply(scalar, point);
        },
        multiplyBase(scalar) {
          calls.push("B");
          return nobleArithmetic.multiplyBase(scalar);
        },
      };
      const prover = vrfProver(unhex(vector.sk), counting);
      expect(hex(prover.publicKey)).toBe(vector.pk);
      expect(hex(prover.prove(unhex(vector.alpha)))).toBe(vector.pi);
      expect(calls).toEqual([vector.h, "B", vector.h]);
    }
  });

  it("gives vrfProve's proof whatever the (correct) multiply, and a wrong one makes proofs that fail", () => {
    fc.assert(
      fc.property(bytes32, fc.uint8Array({ maxLength: 64 }), (sk, alpha) => {
        const proof = vrfProver(sk).prove(alpha);
        expect(proof).toEqual(vrfProve(sk, alpha));
        const prover = vrfProver(sk, {
          ...nobleArithmetic,
          multiply: (scalar, point) =>
            nobleArithmetic.multiply(
              scalar.map((b, i) => (i === 0 ? b ^ 1 : b)),
              point,
            ),
        });
        expect(vrfVerify(prover.publicKey, alpha, prover.prove(alpha))).toBeUndefined();
      }),
      { numRuns: 20 },
    );
  });

  it("gives with each proof the output vrfProofToHash gives for it: RFC 9381 B.3's beta, any key", () => {
    for (const vector of vectorFile.vectors) {
      const { proof, beta } = vrfProver(unhex(vector.sk)).proveWithOutput(unhex(vector.alpha));
      expect(hex(proof)).toBe(vector.pi);
      expect(hex(beta)).toBe(vector.beta);
    }
    fc.assert(
      fc.property(bytes32, fc.uint8Array({ maxLength: 64 }), (sk, alpha) => {
        const { proof, beta } = vrfProver(sk).proveWithOutput(alpha);
        expect(proof).toEqual(vrfProve(sk, alpha));
        expect(beta).toEqual(vrfProofToHash(proof));
      }),
      { numRuns: 20 },
    );
  });

  it("clears cofactors through its arithmetic when it can: H's candidates, then Gamma", () => {
    for (const vector of vectorFile.vectors) {
      const cleared: string[] = [];
      const clearing: ScalarArithmetic = {
        ...nobleArithmetic,
        clearCofactor(point) {
          cleared.push(hex(point));
          return stringToPoint(point)?.clearCofactor().toBytes();
        },
      };
      const { proof, beta } = vrfProver(unhex(vector.sk), clearing).proveWithOutput(
        unhex(vector.alpha),
      );
      expect(hex(proof)).toBe(vector.pi);
      expect(hex(beta)).toBe(vector.beta);
      expect(cleared.at(-1)).toBe(vector.pi.slice(0, 64));
      expect(cleared.length).toBeGreaterThanOrEqual(2);
    }
  });

  it("refuses bad arguments, naming them", () => {
    expect(() => vrfProver(new Uint8Array(31))).toThrow(/secretKey/);
    expect(() => vrfProver(new Uint8Array(32), 5 as never)).toThrow(/arithmetic/);
    expect(() =>
      vrfProver(new Uint8Array(32), { multiply: () => new Uint8Array(32) } as never),
    ).toThrow(/multiplyBase/);
    expect(() => vrfProver(new Uint8Array(32)).prove("a" as never)).toThrow(/alpha/);
  });
});
