import { ed25519KeyPairFromSeed, ed25519Sign } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { defaultSthVerifier } from "./signature.js";

const seed = new Uint8Array(32).fill(7);
const { publicKey } = ed25519KeyPairFromSeed(seed);
const message = new TextEncoder().encode("tree head 42");
const signature = ed25519Sign(message, seed);

describe("defaultSthVerifier", () => {
  it("answers the same for a signature it has verified before, and never for other inputs", async () => {
    expect(await defaultSthVerifier(signature, message, publicKey)).toBe(true);
    expect(await defaultSthVerifier(signature, message, publicKey)).toBe(true);
    const otherMessage = new TextEncoder().encode("tree head 43");
    expect(await defaultSthVerifier(signature, otherMessage, publicKey)).toBe(false);
    const flipped = signature.slice();
    flipped[5] = (flipped[5] as number) ^ 1;
    expect(await defaultSthVerifier(flipped, message, publicKey)).toBe(false);
    const otherKey = ed25519KeyPairFromSeed(new Uint8Array(32).fill(8)).publicKey;
    expect(await defaultSthVerifier(signature, message, otherKey)).toBe(false);
    expect(await defaultSthVerifier(signature.subarray(1), message, publicKey)).toBe(false);
  });
});
