/**
 * RFC 9381 Appendix B.3 (ECVRF-EDWARDS25519-SHA512-TAI, Examples 16-18), every intermediate value
 * included. Source: https://www.rfc-editor.org/rfc/rfc9381#appendix-B.3, copied as data from
 * facebook/akd akd_core/src/ecvrf/tests.rs (commit 4df9723c552712566b0164c11b9893364ec2d5ae); see
 * the `about` of fixtures/rfc9381-vectors.json.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { challengeGeneration } from "./challenge.js";
import { vrfProofToHash, vrfProve, vrfPublicKey, vrfVerify } from "./ecvrf.js";
import { encodeToCurve } from "./encode-to-curve.js";
import vectorFile from "./fixtures/rfc9381-vectors.json" with { type: "json" };
import { nonceGeneration, nonceHash } from "./nonce.js";
import { decodeProof } from "./proof.js";
import { Point } from "./suite.js";
import { hex, unhex } from "./test-support/encodings.js";

const { vectors } = vectorFile;

describe.each(vectors)("RFC 9381 B.3 example $example", (vector) => {
  const sk = unhex(vector.sk);
  const pk = unhex(vector.pk);
  const alpha = unhex(vector.alpha);
  const pi = unhex(vector.pi);
  const expanded = ed25519.utils.getExtendedPublicKey(sk);

  it("derives PK and the secret scalar x (RFC 8032 section 5.1.5)", () => {
    expect(hex(vrfPublicKey(sk))).toBe(vector.pk);
    expect(hex(expanded.head)).toBe(vector.x);
  });

  it("encodes alpha to H by try-and-increment, at the listed ctr", () => {
    const h = encodeToCurve(pk, alpha);
    expect(h && hex(h.toBytes())).toBe(vector.h);
    // Section 5.4.1.1 step by step: each try below ctr gives no point (or one of small order),
    // and the try at ctr gives H after the cofactor.
    const tryPoint = (ctr: number) => {
      const hash = sha512(Uint8Array.from([0x03, 0x01, ...pk, ...alpha, ctr, 0x00]));
      try {
        return Point.fromBytes(hash.subarray(0, 32)).clearCofactor();
      } catch {
        return undefined;
      }
    };
    for (let ctr = 0; ctr < vector.ctr; ctr++) expect(tryPoint(ctr)?.is0() ?? true).toBe(true);
    expect(hex(tryPoint(vector.ctr)?.toBytes() ?? new Uint8Array())).toBe(vector.h);
  });

  it("derives the nonce k, U = k*B and V = k*H", () => {
    const h = Point.fromBytes(unhex(vector.h));
    expect(hex(nonceHash(expanded.prefix, h.toBytes()))).toBe(vector.k);
    const k = nonceGeneration(expanded.prefix, h.toBytes());
    expect(hex(Point.BASE.multiply(k).toBytes())).toBe(vector.u);
    expect(hex(h.multiply(k).toBytes())).toBe(vector.v);
  });

  it("proves pi, whose c is the challenge of (Y, H, Gamma, U, V)", () => {
    expect(hex(vrfProve(sk, alpha))).toBe(vector.pi);
    const decoded = decodeProof(pi);
    expect(decoded).toBeDefined();
    const points = [pk, unhex(vector.h), pi.subarray(0, 32), unhex(vector.u), unhex(vector.v)];
    const [y, h, gamma, u, v] = points.map((p) => Point.fromBytes(p)) as [
      Point,
      Point,
      Point,
      Point,
      Point,
    ];
    expect(challengeGeneration([y, h, gamma, u, v])).toBe(decoded?.c);
  });

  it("hashes pi to beta and verifies it", () => {
    expect(hex(vrfProofToHash(pi))).toBe(vector.beta);
    const beta = vrfVerify(pk, alpha, pi);
    expect(beta && hex(beta)).toBe(vector.beta);
  });
});
