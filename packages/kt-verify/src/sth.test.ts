import {
  decodeBase64,
  ed25519KeyPairFromSeed,
  ed25519Sign,
  encodeBase64,
  hexToBytes,
} from "@svc/canonical";
import { leafHash, rootFromLeafHashes } from "@svc/merkle";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import spec from "./fixtures/spec-sth.json" with { type: "json" };
import {
  defaultSthVerifier,
  portableSthVerifier,
  verifySthSignature,
  webCryptoEd25519,
} from "./signature.js";
import { DOMAIN_STH, logIdOf, parseSth, sthMessage, sthToJson } from "./sth.js";

const seed = decodeBase64(spec.ktOperator.seed, 32);
const publicKey = decodeBase64(spec.ktOperator.publicKey, 32);
const sth = parseSth(spec.sth.sth);

describe("spec vector: STH (D8)", () => {
  it("DOMAIN_STH is svc-kt-sth-v1 and a zero byte", () => {
    expect(DOMAIN_STH.length).toBe(14);
    expect(new TextDecoder().decode(DOMAIN_STH)).toBe("svc-kt-sth-v1\0");
  });

  it("logId is SHA-256 of the operator key", () => {
    expect(encodeBase64(logIdOf(publicKey))).toBe(spec.ktOperator.logId);
    expect(encodeBase64(ed25519KeyPairFromSeed(seed).publicKey)).toBe(spec.ktOperator.publicKey);
  });

  it("the vector's root is the RFC 9162 root of its leaves", () => {
    const leaves = spec.sth.leavesUtf8.map((s) => leafHash(new TextEncoder().encode(s)));
    expect(encodeBase64(rootFromLeafHashes(leaves))).toBe(spec.sth.sth.rootHash);
  });

  it("reproduces the message bytes and the signature", () => {
    const message = sthMessage(sth);
    expect(message).toEqual(hexToBytes(spec.sth.messageHex));
    expect(encodeBase64(ed25519Sign(message, seed))).toBe(spec.sth.sth.signature);
  });

  it.each([
    ["default (WebCrypto when present)", defaultSthVerifier],
    ["portable", portableSthVerifier],
  ])("%s verifier accepts the vector and rejects any flipped bit", async (_, verifier) => {
    expect(await verifySthSignature(sth, publicKey, verifier)).toBe(true);
    for (const field of ["signature", "rootHash", "indexRoot", "logId"] as const) {
      const bad = sth[field].slice();
      bad[3] = (bad[3] as number) ^ 1;
      expect(await verifySthSignature({ ...sth, [field]: bad }, publicKey, verifier)).toBe(false);
    }
    expect(await verifySthSignature({ ...sth, treeSize: 6 }, publicKey, verifier)).toBe(false);
    expect(await verifySthSignature({ ...sth, timestampMs: 1 }, publicKey, verifier)).toBe(false);
    expect(
      await verifySthSignature(sth, ed25519KeyPairFromSeed(new Uint8Array(32)).publicKey, verifier),
    ).toBe(false);
  });

  it("both verifiers refuse a malleable signature (S + L)", async () => {
    const L = hexToBytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
    const malleable = sth.signature.slice();
    let carry = 0;
    for (let i = 0; i < 32; i++) {
      const sum = (malleable[32 + i] as number) + (L[i] as number) + carry;
      malleable[32 + i] = sum & 0xff;
      carry = sum >> 8;
    }
    expect(carry).toBe(0);
    for (const verifier of [defaultSthVerifier, portableSthVerifier]) {
      expect(await verifySthSignature({ ...sth, signature: malleable }, publicKey, verifier)).toBe(
        false,
      );
    }
  });

  it("Node has WebCrypto Ed25519", async () => {
    expect(await webCryptoEd25519()).toBe(true);
  });
});

describe("parseSth", () => {
  it("round-trips the wire form", () => {
    expect(sthToJson(sth)).toEqual(spec.sth.sth);
  });

  it.each([
    ["not an object", null],
    ["array", []],
    ["missing member", { ...spec.sth.sth, rootHash: undefined }],
    ["fraction", { ...spec.sth.sth, treeSize: 1.5 }],
    ["negative", { ...spec.sth.sth, timestampMs: -1 }],
    ["unsafe integer", { ...spec.sth.sth, treeSize: 2 ** 53 }],
    ["string size", { ...spec.sth.sth, treeSize: "5" }],
    ["short hash", { ...spec.sth.sth, rootHash: encodeBase64(new Uint8Array(31)) }],
    ["unpadded base64", { ...spec.sth.sth, logId: spec.sth.sth.logId.replace("=", "") }],
    ["url alphabet", { ...spec.sth.sth, signature: spec.sth.sth.signature.replace("/", "_") }],
  ])("%s is KT_MALFORMED", (_, json) => {
    expect(() => parseSth(json)).toThrow(KtVerifyError);
    try {
      parseSth(json);
    } catch (error) {
      expect((error as KtVerifyError).code).toBe("KT_MALFORMED");
    }
  });

  it("sthMessage refuses bad arguments", () => {
    expect(() => sthMessage(null as never)).toThrow(TypeError);
    expect(() => sthMessage({ ...sth, rootHash: new Uint8Array(31) })).toThrow(RangeError);
    expect(() => sthMessage({ ...sth, logId: "x" as never })).toThrow(TypeError);
    expect(() => sthMessage({ ...sth, treeSize: -1 })).toThrow(RangeError);
    expect(() => logIdOf(new Uint8Array(31))).toThrow(RangeError);
  });
});
