import { vrfProve, vrfPublicKey, vrfVerify } from "@svc/vrf";
import { describe, expect, it } from "vitest";
import { verifiedVrfOutput } from "./vrf-outputs.js";

const utf8 = new TextEncoder();
const secretKey = new Uint8Array(32).fill(7);
const publicKey = vrfPublicKey(secretKey);
const alpha = utf8.encode("devices/alice@example.org");
const proof = vrfProve(secretKey, alpha);

describe("verifiedVrfOutput", () => {
  it("gives vrfVerify's answer, the first time and when it answers from what it kept", () => {
    const beta = vrfVerify(publicKey, alpha, proof);
    expect(beta).toBeDefined();
    expect(verifiedVrfOutput(publicKey, alpha, proof)).toEqual(beta);
    const again = verifiedVrfOutput(publicKey, alpha, proof) as Uint8Array;
    expect(again).toEqual(beta);
    again.fill(0);
    expect(verifiedVrfOutput(publicKey, alpha, proof)).toEqual(beta);
  });

  it("still refuses a proof of another input, another key's or a changed proof", () => {
    verifiedVrfOutput(publicKey, alpha, proof);
    expect(verifiedVrfOutput(publicKey, utf8.encode("devices/bob@example.org"), proof)).toBe(
      undefined,
    );
    expect(verifiedVrfOutput(vrfPublicKey(new Uint8Array(32).fill(8)), alpha, proof)).toBe(
      undefined,
    );
    const changed = proof.slice();
    changed[40] = (changed[40] as number) ^ 1;
    expect(verifiedVrfOutput(publicKey, alpha, changed)).toBe(undefined);
  });
});
