import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, decodeBase64, encodeBase64 } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import { type KtClaim, ktProofToJson, parseKtProof, verifyKtProofBody } from "./proof.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";

type ProofJson = { sth: Record<string, unknown>; body: Record<string, unknown> };

/** Six identities, the third deleted: every leaf a v2 leaf (format 3). */
function privateLog(): FakeLog {
  const log = new FakeLog();
  for (let i = 0; i < 6; i++) {
    log.appendV2({
      kind: "identity",
      address: `user${i}`,
      identitySigningKey: key32(i),
      identityDHKey: key32(100 + i),
      timestampMs: 1000 + i,
    });
  }
  log.appendV2({ kind: "tombstone", address: "user2", timestampMs: 2000 });
  return log;
}

const live = (i: number): Extract<KtClaim, { type: "inclusion" }> => ({
  type: "inclusion",
  identitySigningKey: key32(i),
  identityDHKey: key32(100 + i),
});

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    if (error instanceof KtVerifyError) return error.code;
    throw error;
  }
  return undefined;
}

function errorOf(work: () => unknown): KtVerifyError {
  try {
    work();
  } catch (error) {
    if (error instanceof KtVerifyError) return error;
    throw error;
  }
  throw new Error("it did not throw");
}

const json = (log: FakeLog, address: string) => log.proofJson(address) as ProofJson;

function flip(b64: string, bit: number): string {
  const bytes = decodeBase64(b64);
  const at = (bit >> 3) % bytes.length;
  bytes[at] = (bytes[at] as number) ^ (1 << (bit & 7));
  return encodeBase64(bytes);
}

describe("verifyKtProofBody, format 3 (a pinned VRF key)", () => {
  const log = privateLog();
  const vrf = log.vrfPublicKey;
  const verify = (address: string, proof: unknown, claim: KtClaim, key = vrf) =>
    verifyKtProofBody(address, parseKtProof(proof), claim, key);

  it("accepts inclusion, tombstone and absence proofs keyed by the VRF index", () => {
    const inclusion = verify("user3", json(log, "user3"), live(3));
    expect(inclusion).toMatchObject({ format: 3, type: "inclusion", leafIndex: 3 });
    if (inclusion.format !== 3) throw new Error("format 3 expected");
    expect(inclusion.index).toEqual(log.vrfIndexOf("user3"));
    expect(inclusion.leaf).toMatchObject({ kind: "identity", timestampMs: 1003 });
    expect(inclusion.leaf?.index).toEqual(log.vrfIndexOf("user3"));
    expect(inclusion.leaf).not.toHaveProperty("address");
    const tombstone = verify("user2", json(log, "user2"), { type: "tombstone" });
    expect(tombstone).toMatchObject({ format: 3, type: "tombstone", leafIndex: 6 });
    const absence = verify("nobody", json(log, "nobody"), { type: "absence" });
    expect(absence).toMatchObject({ format: 3, type: "absence" });
    if (absence.format !== 3) throw new Error("format 3 expected");
    expect(absence.index).toEqual(log.vrfIndexOf("nobody"));
  });

  it("normalizes the address before computing its index (NFKC)", () => {
    expect(verify("\uff55ser3", json(log, "user3"), live(3)).type).toBe("inclusion");
  });

  it("refuses a format-2 proof when a VRF key is pinned: no downgrade", () => {
    const legacy = new FakeLog();
    legacy.append({
      kind: "identity",
      address: "user1",
      identitySigningKey: key32(1),
      identityDHKey: key32(101),
      timestampMs: 1,
    });
    legacy.append({ kind: "tombstone", address: "user1", timestampMs: 2 });
    legacy.append({ kind: "identity", address: "user4", ...live(4), timestampMs: 3 });
    expect(codeOf(() => verify("user4", json(legacy, "user4"), live(4)))).toBe("KT_MALFORMED");
    expect(codeOf(() => verify("user1", json(legacy, "user1"), { type: "tombstone" }))).toBe(
      "KT_MALFORMED",
    );
    expect(codeOf(() => verify("x", json(legacy, "x"), { type: "absence" }))).toBe("KT_MALFORMED");
    // A format-2 leaf dressed up with format-3 members is still not a v2 leaf.
    const dressed = json(legacy, "user4");
    const v3 = json(log, "user4");
    const forged = {
      ...dressed,
      body: { ...dressed.body, vrfProof: v3.body.vrfProof, opening: v3.body.opening },
    };
    expect(codeOf(() => verify("user4", forged, live(4)))).toBe("KT_MALFORMED");
  });

  it("refuses a format-3 proof without a VRF key, saying it needs one", () => {
    const error = errorOf(() =>
      verifyKtProofBody("user3", parseKtProof(json(log, "user3")), live(3)),
    );
    expect(error.code).toBe("KT_MALFORMED");
    expect(error.message).toMatch(/VRF/);
  });

  it("refuses a body without vrfProof or opening (KT_MALFORMED)", () => {
    const proof = json(log, "user3");
    const { vrfProof: _v, opening: _o, ...bare } = proof.body;
    expect(codeOf(() => verify("user3", { ...proof, body: bare }, live(3)))).toBe("KT_MALFORMED");
    const absence = json(log, "nobody");
    const { vrfProof: _a, ...bareAbsence } = absence.body;
    expect(
      codeOf(() => verify("nobody", { ...absence, body: bareAbsence }, { type: "absence" })),
    ).toBe("KT_MALFORMED");
  });

  it("refuses a VRF proof of another address (KT_BAD_PROOF naming the VRF)", () => {
    const proof = json(log, "user3");
    const other = json(log, "user4");
    const forged = { ...proof, body: { ...proof.body, vrfProof: other.body.vrfProof } };
    const error = errorOf(() => verify("user3", forged, live(3)));
    expect(error.code).toBe("KT_BAD_PROOF");
    expect(error.message).toMatch(/VRF/);
    // user4's whole proof asked about user3: the VRF proof is user4's.
    expect(codeOf(() => verify("user3", other, live(4)))).toBe("KT_BAD_PROOF");
    // An absence proof carrying a registered address's VRF proof.
    const absence = json(log, "nobody");
    const swapped = { ...absence, body: { ...absence.body, vrfProof: proof.body.vrfProof } };
    expect(codeOf(() => verify("nobody", swapped, { type: "absence" }))).toBe("KT_BAD_PROOF");
  });

  it("refuses proofs under another VRF key", () => {
    const other = new FakeLog(new Uint8Array(32).fill(9));
    expect(codeOf(() => verify("user3", json(log, "user3"), live(3), other.vrfPublicKey))).toBe(
      "KT_BAD_PROOF",
    );
  });

  it("refuses a leaf at another address's index, even with a commitment to this one", () => {
    // user4's leaf, audit path and index proof, with user3's own VRF proof and opening.
    const mine = json(log, "user3");
    const theirs = json(log, "user4");
    const forged = {
      ...theirs,
      body: { ...theirs.body, vrfProof: mine.body.vrfProof, opening: mine.body.opening },
    };
    const error = errorOf(() => verify("user3", forged, live(3)));
    expect(error.code).toBe("KT_BAD_PROOF");
    expect(error.message).toMatch(/index/);
  });

  it("refuses other keys, another opening and another kind (KT_KEY_MISMATCH)", () => {
    const proof = json(log, "user3");
    expect(codeOf(() => verify("user3", proof, live(4)))).toBe("KT_KEY_MISMATCH");
    expect(codeOf(() => verify("user3", proof, { ...live(3), identityDHKey: key32(99) }))).toBe(
      "KT_KEY_MISMATCH",
    );
    const reopened = { ...proof, body: { ...proof.body, opening: encodeBase64(key32(5)) } };
    expect(codeOf(() => verify("user3", reopened, live(3)))).toBe("KT_KEY_MISMATCH");
    const asTombstone = { ...proof, body: { ...proof.body, type: "tombstone" } };
    expect(codeOf(() => verify("user3", asTombstone, { type: "tombstone" }))).toBe(
      "KT_KEY_MISMATCH",
    );
    expect(codeOf(() => verify("user2", json(log, "user2"), live(2)))).toBe("KT_KEY_MISMATCH");
  });

  it("refuses an absence proof for a registered address", () => {
    const proof = json(log, "user1");
    const forged = {
      ...proof,
      body: { type: "absence", indexProof: proof.body.indexProof, vrfProof: proof.body.vrfProof },
    };
    expect(codeOf(() => verify("user1", forged, { type: "absence" }))).toBe("KT_BAD_PROOF");
  });

  it("refuses every flipped bit of a v2 proof with KtVerifyError only", () => {
    const inclusion = json(log, "user3");
    const absence = json(log, "absent-one");
    const body = inclusion.body as {
      auditPath: string[];
      indexProof: { siblings: string[]; bitmap: string };
      vrfProof: string;
      opening: string;
      leaf: string;
    };
    const absent = absence.body as { indexProof: Record<string, unknown>; vrfProof: string };
    const withSiblings = (i: { siblings: string[] }, pick: number, bit: number) => ({
      ...i,
      siblings: i.siblings.map((h, j) => (j === pick % i.siblings.length ? flip(h, bit) : h)),
    });
    fc.assert(
      fc.property(fc.nat(639), fc.nat(100), (bit, pick) => {
        const inclusionVariants = [
          { ...body, vrfProof: flip(body.vrfProof, bit) },
          { ...body, opening: flip(body.opening, bit) },
          { ...body, leaf: flip(body.leaf, bit) },
          {
            ...body,
            auditPath: body.auditPath.map((h, i) =>
              i === pick % body.auditPath.length ? flip(h, bit) : h,
            ),
          },
          { ...body, indexProof: withSiblings(body.indexProof, pick, bit) },
          {
            ...body,
            indexProof: { ...body.indexProof, bitmap: flip(body.indexProof.bitmap, bit) },
          },
        ].map((b) => ({ ...inclusion, body: b }));
        const sthVariants = ["rootHash", "indexRoot"].map((member) => ({
          ...inclusion,
          sth: { ...inclusion.sth, [member]: flip(inclusion.sth[member] as string, bit) },
        }));
        for (const variant of [...inclusionVariants, ...sthVariants]) {
          expect(codeOf(() => verify("user3", variant, live(3)))).toMatch(/^KT_/);
        }
        const other = absent.indexProof.other as { key: string; value: string };
        const absenceVariants = [
          { ...absent, vrfProof: flip(absent.vrfProof, bit) },
          {
            ...absent,
            indexProof: withSiblings(absent.indexProof as { siblings: string[] }, pick, bit),
          },
          {
            ...absent,
            indexProof: { ...absent.indexProof, other: { ...other, key: flip(other.key, bit) } },
          },
          {
            ...absent,
            indexProof: {
              ...absent.indexProof,
              other: { ...other, value: flip(other.value, bit) },
            },
          },
        ].map((b) => ({ ...absence, body: b }));
        for (const variant of absenceVariants) {
          expect(codeOf(() => verify("absent-one", variant, { type: "absence" }))).toMatch(/^KT_/);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("proves a random address absent without revealing the registered ones", () => {
    const registered = ["user0", "user1", "user2", "user3", "user4", "user5"];
    const hashes = new Set(registered.map((a) => bytesToHex(sha256(new TextEncoder().encode(a)))));
    const indexes = new Set(registered.map((a) => bytesToHex(log.vrfIndexOf(a))));
    let neighbours = 0;
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9][a-z0-9.]{0,15}@example\.org$/), (address) => {
        const proof = json(log, address);
        const verified = verify(address, proof, { type: "absence" });
        expect(verified.type).toBe("absence");
        const other = (proof.body.indexProof as { other?: { key: string; value: string } }).other;
        if (other === undefined) return;
        neighbours++;
        const key = bytesToHex(decodeBase64(other.key));
        const value = bytesToHex(decodeBase64(other.value));
        // The neighbour is a VRF index and a leaf hash, not SHA-256 of a registered address.
        expect(hashes.has(key)).toBe(false);
        expect(hashes.has(value)).toBe(false);
        expect(indexes.has(key)).toBe(true);
      }),
      { numRuns: 30 },
    );
    expect(neighbours).toBeGreaterThan(0);
  });
});

describe("parseKtProof and ktProofToJson, format 3", () => {
  const log = privateLog();

  it("round-trip vrfProof and opening", () => {
    for (const address of ["user3", "user2", "nobody"]) {
      const wire = json(log, address);
      const parsed = parseKtProof(wire);
      expect(parsed.body.vrfProof).toEqual(log.vrfProof(address));
      expect(ktProofToJson(parsed)).toEqual(wire);
      expect(parseKtProof(ktProofToJson(parsed))).toEqual(parsed);
    }
  });

  const inclusion = json(log, "user3");
  const absence = json(log, "nobody");
  const { opening: _opening, ...withoutOpening } = inclusion.body;
  const { vrfProof: _vrfProof, ...withoutVrfProof } = inclusion.body;
  it.each([
    ["a short vrfProof", { ...inclusion.body, vrfProof: encodeBase64(key32(1)) }],
    ["a vrfProof that is not base64", { ...inclusion.body, vrfProof: "!!" }],
    ["a long opening", { ...inclusion.body, opening: encodeBase64(new Uint8Array(33)) }],
    ["an opening that is a number", { ...inclusion.body, opening: 7 }],
    ["vrfProof without opening", withoutOpening],
    ["opening without vrfProof", withoutVrfProof],
    [
      "an absence vrfProof of 79 bytes",
      { ...absence.body, vrfProof: encodeBase64(new Uint8Array(79)) },
    ],
  ])("%s is KT_MALFORMED", (_, body) => {
    expect(codeOf(() => parseKtProof({ ...inclusion, body }))).toBe("KT_MALFORMED");
  });
});
