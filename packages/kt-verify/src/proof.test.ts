import { encodeBase64 } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import { type KtClaim, parseKtProof, verifyKtProofBody } from "./proof.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";

function smallLog(): FakeLog {
  const log = new FakeLog();
  for (let i = 0; i < 6; i++) {
    log.append({
      kind: "identity",
      address: `user${i}`,
      identitySigningKey: key32(i),
      identityDHKey: key32(100 + i),
      timestampMs: 1000 + i,
    });
  }
  log.append({ kind: "tombstone", address: "user2", timestampMs: 2000 });
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

describe("verifyKtProofBody", () => {
  const log = smallLog();

  it("accepts inclusion, tombstone and absence proofs for what they claim", () => {
    const inclusion = verifyKtProofBody("user3", parseKtProof(log.proofJson("user3")), live(3));
    expect(inclusion).toMatchObject({ type: "inclusion", leafIndex: 3 });
    expect(inclusion.leaf).toMatchObject({ kind: "identity", address: "user3", timestampMs: 1003 });
    const tombstone = verifyKtProofBody("user2", parseKtProof(log.proofJson("user2")), {
      type: "tombstone",
    });
    expect(tombstone).toMatchObject({ type: "tombstone", leafIndex: 6 });
    const absence = verifyKtProofBody("nobody", parseKtProof(log.proofJson("nobody")), {
      type: "absence",
    });
    expect(absence.type).toBe("absence");
  });

  it("normalizes the address it is asked about (NFKC)", () => {
    expect(() =>
      verifyKtProofBody("ｕser3", parseKtProof(log.proofJson("user3")), live(3)),
    ).not.toThrow();
  });

  it("refuses keys other than the logged ones, and another address's proof", () => {
    const proof = parseKtProof(log.proofJson("user3"));
    expect(codeOf(() => verifyKtProofBody("user3", proof, live(4)))).toBe("KT_KEY_MISMATCH");
    expect(codeOf(() => verifyKtProofBody("user4", proof, live(3)))).toBe("KT_KEY_MISMATCH");
    expect(
      codeOf(() => verifyKtProofBody("user3", proof, { ...live(3), identityDHKey: key32(99) })),
    ).toBe("KT_KEY_MISMATCH");
  });

  it("refuses a proof of another type than the claim", () => {
    expect(
      codeOf(() => verifyKtProofBody("user2", parseKtProof(log.proofJson("user2")), live(2))),
    ).toBe("KT_KEY_MISMATCH");
    expect(
      codeOf(() =>
        verifyKtProofBody("user1", parseKtProof(log.proofJson("user1")), { type: "absence" }),
      ),
    ).toBe("KT_KEY_MISMATCH");
  });

  it("refuses an absence proof for a registered address", () => {
    const json = log.proofJson("user1") as { sth: unknown; body: { indexProof: unknown } };
    const forged = { sth: json.sth, body: { type: "absence", indexProof: json.body.indexProof } };
    expect(
      codeOf(() => verifyKtProofBody("user1", parseKtProof(forged), { type: "absence" })),
    ).toBe("KT_BAD_PROOF");
  });

  it("refuses a tombstone type carrying an identity leaf", () => {
    const json = log.proofJson("user1") as { sth: unknown; body: Record<string, unknown> };
    const forged = { sth: json.sth, body: { ...json.body, type: "tombstone" } };
    expect(
      codeOf(() => verifyKtProofBody("user1", parseKtProof(forged), { type: "tombstone" })),
    ).toBe("KT_KEY_MISMATCH");
  });

  it("refuses every flipped bit of the audit path, index proof and roots", () => {
    const json = log.proofJson("user3") as {
      sth: Record<string, unknown>;
      body: Record<string, unknown>;
    };
    const body = json.body as {
      auditPath: string[];
      leafIndex: number;
      indexProof: { siblings: string[] };
    };
    const flip = (b64: string, bit: number) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      bytes[bit >> 3] = (bytes[bit >> 3] as number) ^ (1 << (bit & 7));
      return encodeBase64(bytes);
    };
    fc.assert(
      fc.property(fc.nat(255), fc.nat(100), (bit, pick) => {
        const variants = [
          {
            ...json,
            body: {
              ...body,
              auditPath: body.auditPath.map((h, i) =>
                i === pick % body.auditPath.length ? flip(h, bit) : h,
              ),
            },
          },
          {
            ...json,
            body: {
              ...body,
              indexProof: {
                ...body.indexProof,
                siblings: body.indexProof.siblings.map((h, i) =>
                  i === pick % body.indexProof.siblings.length ? flip(h, bit) : h,
                ),
              },
            },
          },
          { ...json, sth: { ...json.sth, rootHash: flip(json.sth.rootHash as string, bit) } },
          { ...json, sth: { ...json.sth, indexRoot: flip(json.sth.indexRoot as string, bit) } },
          { ...json, body: { ...body, leafIndex: body.leafIndex + 1 } },
        ];
        for (const variant of variants) {
          expect(codeOf(() => verifyKtProofBody("user3", parseKtProof(variant), live(3)))).toBe(
            "KT_BAD_PROOF",
          );
        }
      }),
      { numRuns: 50 },
    );
  });

  it("refuses a tampered leaf timestamp (inclusion fails)", () => {
    const json = log.proofJson("user3") as { sth: unknown; body: { leaf: string } };
    const leaf = Uint8Array.from(atob(json.body.leaf), (c) => c.charCodeAt(0));
    leaf[leaf.length - 1] = (leaf[leaf.length - 1] as number) ^ 1;
    const forged = { ...json, body: { ...json.body, leaf: encodeBase64(leaf) } };
    expect(codeOf(() => verifyKtProofBody("user3", parseKtProof(forged), live(3)))).toBe(
      "KT_BAD_PROOF",
    );
  });
});

describe("parseKtProof", () => {
  const good = new FakeLog().proofJson("x") as { sth: unknown; body: Record<string, unknown> };
  const zeros = encodeBase64(new Uint8Array(32));
  const absence = (indexProof: Record<string, unknown>) => ({
    ...good,
    body: { type: "absence", indexProof: { depth: 0, bitmap: zeros, siblings: [], ...indexProof } },
  });

  it("reads an index proof with and without another key", () => {
    expect(parseKtProof(absence({})).body.indexProof).toEqual({
      depth: 0,
      bitmap: new Uint8Array(32),
      siblings: [],
    });
    const other = { key: new Uint8Array(32).fill(1), value: new Uint8Array(32).fill(2) };
    const withOther = absence({
      other: { key: encodeBase64(other.key), value: encodeBase64(other.value) },
    });
    expect(parseKtProof(withOther).body.indexProof.other).toEqual(other);
  });

  it.each([
    ["null", null],
    ["no body", { sth: good.sth }],
    ["unknown type", { ...good, body: { ...good.body, type: "other" } }],
    ["bitmap too short", absence({ bitmap: "AA==" })],
    ["siblings not an array", absence({ siblings: "x" })],
    ["no depth", absence({ depth: undefined })],
    ["depth past 256", absence({ depth: 257 })],
    ["depth not an integer", absence({ depth: 1.5 })],
    ["other not an object", absence({ other: "x" })],
    ["other null", absence({ other: null })],
    ["other key too short", absence({ other: { key: "AA==", value: zeros } })],
    ["other without value", absence({ other: { key: zeros } })],
    ["inclusion without leaf", { ...good, body: { ...good.body, type: "inclusion" } }],
  ])("%s is KT_MALFORMED", (_, json) => {
    expect(codeOf(() => parseKtProof(json))).toBe("KT_MALFORMED");
  });

  it("never throws anything but KtVerifyError on random JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        expect(codeOf(() => parseKtProof(json))).toBe("KT_MALFORMED");
      }),
    );
  });
});
