import {
  decodeBase64,
  ed25519KeyPairFromSeed,
  encodeBase64,
  portableEd25519,
} from "@svc/canonical";
import { parseSth, sthMessage, sthToJson } from "@svc/kt-verify";
import { formatVerifierKey, openNote, parseVerifierKey, signNote } from "@svc/signed-note";
import { describe, expect, it } from "vitest";
import spec from "../../kt-verify/src/fixtures/spec-sth.json" with { type: "json" };
import { createSthSigner } from "./signer.js";

describe("createSthSigner", () => {
  const signer = createSthSigner(decodeBase64(spec.ktOperator.seed, 32));

  it("reproduces the spec STH vector (D8) with node:crypto", () => {
    expect(encodeBase64(signer.publicKey)).toBe(spec.ktOperator.publicKey);
    expect(encodeBase64(signer.logId)).toBe(spec.ktOperator.logId);
    const vector = parseSth(spec.sth.sth);
    const signed = signer.sign({
      treeSize: vector.treeSize,
      timestampMs: vector.timestampMs,
      rootHash: vector.rootHash,
      indexRoot: vector.indexRoot,
    });
    expect(sthToJson(signed)).toEqual(spec.sth.sth);
    expect(portableEd25519.verify(signed.signature, sthMessage(signed), signer.publicKey)).toBe(
      true,
    );
  });

  it("derives the same public key as tweetnacl for any seed", () => {
    for (let n = 0; n < 5; n++) {
      const seed = new Uint8Array(32).fill(n * 37);
      expect(createSthSigner(seed).publicKey).toEqual(ed25519KeyPairFromSeed(seed).publicKey);
    }
  });

  it("signs checkpoint notes with node:crypto, byte for byte as the portable signer does", () => {
    const text = "example.com/log\n7\nq2y3tZ8+Gk1A4lwDdCbZ0K6h1Ap3yr5e9pMxbWW2p2Q=\n";
    const fast = signer.noteSigner("example.com/log");
    expect(fast.sign).toBeDefined();
    const { sign: _sign, ...portable } = fast;
    expect(signNote(text, [fast])).toBe(signNote(text, [portable]));
    const verifier = parseVerifierKey(formatVerifierKey(fast.name, fast.publicKey));
    expect(openNote(signNote(text, [fast]), [verifier]).text).toBe(text);
  });

  it("refuses a seed that is not 32 bytes", () => {
    expect(() => createSthSigner(new Uint8Array(31))).toThrow(RangeError);
    expect(() => createSthSigner("seed" as never)).toThrow(TypeError);
  });
});
