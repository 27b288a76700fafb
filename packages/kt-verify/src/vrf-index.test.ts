import { vrfProofToHash, vrfProve, vrfPublicKey } from "@svc/vrf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { vrfIndex } from "./vrf-index.js";

const secretKey = new Uint8Array(32).fill(3);
const publicKey = vrfPublicKey(secretKey);
const utf8 = new TextEncoder();

describe("vrfIndex", () => {
  it("is the first 32 bytes of the VRF output of the normalized address", () => {
    const proof = vrfProve(secretKey, utf8.encode("alice@example.org:1"));
    const index = vrfIndex(publicKey, proof, "alice@example.org:1");
    expect(index).toEqual(vrfProofToHash(proof).slice(0, 32));
    expect(vrfIndex(publicKey, proof, "\uff41lice@example.org:1")).toEqual(index);
  });

  it("is undefined for another address, another key or other bytes, never a throw", () => {
    const proof = vrfProve(secretKey, utf8.encode("alice"));
    expect(vrfIndex(publicKey, proof, "bob")).toBeUndefined();
    expect(vrfIndex(vrfPublicKey(new Uint8Array(32).fill(4)), proof, "alice")).toBeUndefined();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.uint8Array({ maxLength: 40 }), (p, k) => {
        expect(vrfIndex(k, p, "alice")).toBeUndefined();
      }),
      { numRuns: 50 },
    );
  });

  it("names the bad argument", () => {
    const proof = vrfProve(secretKey, utf8.encode("alice"));
    expect(() => vrfIndex("key" as never, proof, "alice")).toThrow(TypeError);
    expect(() => vrfIndex(publicKey, [1] as never, "alice")).toThrow(/vrfProof/);
    expect(() => vrfIndex(publicKey, proof, 5 as never)).toThrow(TypeError);
    expect(() => vrfIndex(publicKey, proof, "not an address")).toThrow(RangeError);
  });
});
