import { ed25519KeyPairFromSeed, ed25519Sign } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { nodeEd25519 } from "./node-crypto.js";

describe("nodeEd25519", () => {
  it("keeps verifying correctly as the key cache evicts", () => {
    const verifier = nodeEd25519({ maxCachedKeys: 2 });
    const msg = new Uint8Array([9]);
    const seeds = [1, 2, 3, 1, 3, 2].map((n) => new Uint8Array(32).fill(n));
    for (const seed of seeds) {
      const { publicKey } = ed25519KeyPairFromSeed(seed);
      expect(verifier.verify(ed25519Sign(msg, seed), msg, publicKey)).toBe(true);
      expect(verifier.verify(ed25519Sign(new Uint8Array([8]), seed), msg, publicKey)).toBe(false);
    }
  });

  it("rejects a bad cache size with RangeError", () => {
    expect(() => nodeEd25519({ maxCachedKeys: 0 })).toThrow(RangeError);
    expect(() => nodeEd25519({ maxCachedKeys: 1.5 })).toThrow(RangeError);
  });
});
