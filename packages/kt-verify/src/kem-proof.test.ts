import { sha256 } from "@noble/hashes/sha2.js";
import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import {
  type KtClaim,
  type KtKemClaim,
  ktProofToJson,
  parseKtProof,
  verifyKtProofBody,
} from "./proof.js";
import { memoryStore } from "./store.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";
import { KtVerifier } from "./verifier.js";

const NOW = 1_763_780_000_000;

/** Stand-ins of ML-KEM-1024 public keys (1568 bytes): the log sees only their SHA-256. */
const kemKey = (n: number) => new Uint8Array(1568).fill(n);
const kemKeyHash = (n: number) => sha256(kemKey(n));

const keysOf = (n: number) => ({ identitySigningKey: key32(n), identityDHKey: key32(n + 1) });

/** dave registers with KEM key 1 and replaces it with KEM key 2; erin has no KEM key. */
function pqLog(): FakeLog {
  const log = new FakeLog(undefined, () => NOW);
  const dave = { kind: "identity", address: "dave", ...keysOf(1), timestampMs: NOW } as const;
  log.appendV2({ ...dave, kemKeyHash: kemKeyHash(1) });
  log.appendV2({ kind: "identity", address: "erin", ...keysOf(3), timestampMs: NOW });
  log.appendV2({ ...dave, kemKeyHash: kemKeyHash(2) });
  return log;
}

type ProofJson = { sth: Record<string, unknown>; body: Record<string, unknown> };
const proofOf = (log: FakeLog, address: string) => log.proofJson(address) as ProofJson;
const withBody = (proof: ProofJson, body: Record<string, unknown>): ProofJson => ({
  ...proof,
  body: { ...proof.body, ...body },
});

const claim = (n: number, kemPreKey?: KtKemClaim): KtClaim => ({
  type: "inclusion",
  ...keysOf(n),
  ...(kemPreKey === undefined ? {} : { kemPreKey }),
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

async function refusal(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    if (error instanceof KtVerifyError) return error.code;
    throw error;
  }
  return undefined;
}

describe("a proof body's kemKeyHash", () => {
  const log = pqLog();

  it("is parsed strictly and written back as it came", () => {
    const dave = proofOf(log, "dave");
    expect(dave.body.kemKeyHash).toBe(encodeBase64(kemKeyHash(2)));
    const parsed = parseKtProof(dave);
    expect(parsed.body).toMatchObject({ kemKeyHash: kemKeyHash(2) });
    expect(ktProofToJson(parsed)).toEqual(dave);
    expect(ktProofToJson(parseKtProof(proofOf(log, "erin"))).body).not.toHaveProperty("kemKeyHash");
    for (const bad of [encodeBase64(new Uint8Array(31)), "not base64!", 42, null]) {
      expect(codeOf(() => parseKtProof(withBody(dave, { kemKeyHash: bad })))).toBe("KT_MALFORMED");
    }
  });

  it("belongs to a format-3 inclusion body only", () => {
    const kem = encodeBase64(kemKeyHash(2));
    const dave = proofOf(log, "dave");
    const { vrfProof: _v, opening: _o, ...format2 } = dave.body;
    for (const body of [
      { ...dave.body, type: "tombstone", kemKeyHash: kem },
      { ...format2, kemKeyHash: kem },
      { ...proofOf(log, "nobody").body, kemKeyHash: kem },
    ]) {
      expect(codeOf(() => parseKtProof({ ...dave, body }))).toBe("KT_MALFORMED");
    }
  });
});

describe("verifyKtProofBody with a leaf that commits a KEM key", () => {
  const log = pqLog();
  const verify = (address: string, proof: unknown, kemClaim: KtClaim) =>
    verifyKtProofBody(address, parseKtProof(proof), kemClaim, log.vrfPublicKey);
  const lastResort = (n: number): KtKemClaim => ({ lastResort: true, keyHash: kemKeyHash(n) });

  it("accepts the logged last-resort key or a one-time key, and says the leaf commits one", () => {
    for (const kemPreKey of [lastResort(2), { lastResort: false } as const]) {
      const verified = verify("dave", proofOf(log, "dave"), claim(1, kemPreKey));
      expect(verified).toMatchObject({ format: 3, leafIndex: 2, kemCommitted: true });
      if (verified.format !== 3) throw new Error("format 3 expected");
      expect(verified.kemKeyHash).toEqual(kemKeyHash(2));
    }
  });

  it("refuses another last-resort key (the replaced one too): KT_KEM_MISMATCH", () => {
    for (const n of [1, 3]) {
      expect(codeOf(() => verify("dave", proofOf(log, "dave"), claim(1, lastResort(n))))).toBe(
        "KT_KEM_MISMATCH",
      );
    }
  });

  it("refuses an answer without a KEM prekey: KT_KEM_MISSING", () => {
    expect(codeOf(() => verify("dave", proofOf(log, "dave"), claim(1)))).toBe("KT_KEM_MISSING");
  });

  it("refuses a body whose kemKeyHash was stripped or swapped: the commitment covers it", () => {
    const dave = proofOf(log, "dave");
    const { kemKeyHash: _dropped, ...stripped } = dave.body;
    for (const forged of [
      { ...dave, body: stripped },
      withBody(dave, { kemKeyHash: encodeBase64(kemKeyHash(9)) }),
    ]) {
      for (const kemPreKey of [undefined, lastResort(9), { lastResort: false } as const]) {
        expect(codeOf(() => verify("dave", forged, claim(1, kemPreKey)))).toBe("KT_KEY_MISMATCH");
      }
    }
  });

  it("under a leaf that commits none: a last-resort key is KT_KEM_MISMATCH, the rest as before", () => {
    const erin = proofOf(log, "erin");
    expect(codeOf(() => verify("erin", erin, claim(3, lastResort(2))))).toBe("KT_KEM_MISMATCH");
    for (const kemPreKey of [undefined, { lastResort: false } as const]) {
      const verified = verify("erin", erin, claim(3, kemPreKey));
      expect(verified).toMatchObject({ format: 3, leafIndex: 1, kemCommitted: false });
      expect(verified).not.toHaveProperty("kemKeyHash");
    }
  });

  it("gives tombstones and absences kemCommitted false", () => {
    const gone = new FakeLog(undefined, () => NOW);
    gone.appendV2({
      kind: "identity",
      address: "dave",
      ...keysOf(1),
      kemKeyHash: kemKeyHash(1),
      timestampMs: NOW,
    });
    gone.appendV2({ kind: "tombstone", address: "dave", timestampMs: NOW });
    const key = gone.vrfPublicKey;
    const tombstone = verifyKtProofBody(
      "dave",
      parseKtProof(gone.proofJson("dave")),
      { type: "tombstone" },
      key,
    );
    const absence = verifyKtProofBody(
      "nobody",
      parseKtProof(gone.proofJson("nobody")),
      { type: "absence" },
      key,
    );
    expect(tombstone.kemCommitted).toBe(false);
    expect(absence.kemCommitted).toBe(false);
  });
});

/** A 200 bundle as the server answers it, with the members KtVerifier reads. */
function bundleOf(
  log: FakeLog,
  address: string,
  n: number,
  kemPreKey?: { key: number; lastResort: boolean },
): Record<string, unknown> {
  return {
    ...Object.fromEntries(Object.entries(keysOf(n)).map(([k, v]) => [k, encodeBase64(v)])),
    signedPreKey: { keyId: 1, publicKey: encodeBase64(key32(9)), signature: "" },
    ...(kemPreKey === undefined
      ? {}
      : {
          kemPreKey: {
            keyId: 7,
            publicKey: encodeBase64(kemKey(kemPreKey.key)),
            signature: encodeBase64(new Uint8Array(64)),
            lastResort: kemPreKey.lastResort,
          },
        }),
    ktProof: log.proofJson(address),
  };
}

describe("KtVerifier.verifyBundle and a bundle's kemPreKey", () => {
  const verifierOf = (log: FakeLog, format3 = true) =>
    new KtVerifier({
      logPublicKey: log.publicKey,
      ...(format3 ? { vrfPublicKey: log.vrfPublicKey } : {}),
      client: log.client(),
      store: memoryStore(),
      now: () => NOW,
    });

  it("accepts the logged last-resort key and one-time keys; kemCommitted tells the caller", async () => {
    const log = pqLog();
    const verifier = verifierOf(log);
    const lastResort = await verifier.verifyBundle(
      "dave",
      bundleOf(log, "dave", 1, { key: 2, lastResort: true }),
    );
    expect(lastResort).toMatchObject({ type: "inclusion", kemCommitted: true });
    const oneTime = await verifier.verifyBundle(
      "dave",
      bundleOf(log, "dave", 1, { key: 5, lastResort: false }),
    );
    expect(oneTime.kemCommitted).toBe(true);
    const classic = await verifier.verifyBundle("erin", bundleOf(log, "erin", 3));
    expect(classic.kemCommitted).toBe(false);
  });

  it("refuses the replaced key (KT_KEM_MISMATCH) and a stripped kemPreKey (KT_KEM_MISSING), trusting no STH", async () => {
    const log = pqLog();
    const verifier = verifierOf(log);
    expect(
      await refusal(
        verifier.verifyBundle("dave", bundleOf(log, "dave", 1, { key: 1, lastResort: true })),
      ),
    ).toBe("KT_KEM_MISMATCH");
    expect(await refusal(verifier.verifyBundle("dave", bundleOf(log, "dave", 1)))).toBe(
      "KT_KEM_MISSING",
    );
    expect(
      await refusal(
        verifier.verifyBundle("erin", bundleOf(log, "erin", 3, { key: 2, lastResort: true })),
      ),
    ).toBe("KT_KEM_MISMATCH");
    expect(await verifier.trustedSth()).toBeUndefined();
  });

  it("refuses a kemPreKey that is not the documented shape: KT_MALFORMED", async () => {
    const log = pqLog();
    const good = bundleOf(log, "dave", 1, { key: 2, lastResort: true });
    const entry = good.kemPreKey as Record<string, unknown>;
    for (const kemPreKey of [
      null,
      "key",
      { ...entry, lastResort: "yes" },
      { ...entry, publicKey: 7 },
      { ...entry, publicKey: "%%" },
    ]) {
      expect(await refusal(verifierOf(log).verifyBundle("dave", { ...good, kemPreKey }))).toBe(
        "KT_MALFORMED",
      );
    }
  });

  it("checks no KEM key against a format-2 log, which commits none", async () => {
    const legacy = new FakeLog(undefined, () => NOW);
    legacy.append({ kind: "identity", address: "dave", ...keysOf(1), timestampMs: NOW });
    const verifier = verifierOf(legacy, false);
    for (const kemPreKey of [undefined, { key: 2, lastResort: true }]) {
      expect(
        await verifier.verifyBundle("dave", bundleOf(legacy, "dave", 1, kemPreKey)),
      ).toMatchObject({ format: 2, kemCommitted: false });
    }
  });

  it("keeps the key hash it checked: the proof's kemKeyHash is SHA-256 of the bundle's key", async () => {
    const log = pqLog();
    const body = bundleOf(log, "dave", 1, { key: 2, lastResort: true });
    const verified = await verifierOf(log).verifyBundle("dave", body);
    if (verified.format !== 3) throw new Error("format 3 expected");
    const publicKey = decodeBase64((body.kemPreKey as { publicKey: string }).publicKey);
    expect(verified.kemKeyHash).toEqual(sha256(publicKey));
  });
});
