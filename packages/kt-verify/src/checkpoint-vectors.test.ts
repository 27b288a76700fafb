import { readFileSync, writeFileSync } from "node:fs";
import { decodeBase64, ed25519KeyPairFromSeed, encodeBase64 } from "@svc/canonical";
import {
  COSIGNATURE_V1_TYPE,
  cosign,
  formatSignerKey,
  formatVerifierKey,
  parseSignerKey,
  signNote,
} from "@svc/signed-note";
import { describe, expect, it } from "vitest";
import { checkpointText, defaultOrigin } from "./checkpoint.js";
import ktVectors from "./fixtures/kt-vectors.json" with { type: "json" };
import type { KtClaim } from "./proof.js";
import { parseSth } from "./sth.js";
import { memoryStore } from "./store.js";
import { KtVerifier } from "./verifier.js";

/**
 * witnessed-checkpoint.json: the checkpoint of kt-vectors.json's latest STH (docs/protocol.md
 * section 9, "Checkpoints and witnesses"), signed by its operator key and cosigned by two of
 * three witnesses at the STH's second. Ed25519 is deterministic, so the committed file must equal
 * what this code produces; UPDATE_KT_VECTORS=1 rewrites it.
 */
const FILE = new URL("./fixtures/witnessed-checkpoint.json", import.meta.url);
const sth = parseSth(ktVectors.sths[3]);
const operatorSeed = decodeBase64(ktVectors.operator.seed, 32);

function generate() {
  const origin = defaultOrigin(sth.logId);
  const text = checkpointText(origin, sth);
  const timestamp = Math.floor(sth.timestampMs / 1000);
  const witnesses = [1, 2, 3].map((n) => {
    const name = `witness${n}.example`;
    const seed = new Uint8Array(32).fill(0x40 + n);
    const publicKey = ed25519KeyPairFromSeed(seed).publicKey;
    return {
      name,
      seed: encodeBase64(seed),
      verifierKey: formatVerifierKey(name, publicKey, COSIGNATURE_V1_TYPE),
    };
  });
  const operator = parseSignerKey(formatSignerKey(origin, operatorSeed));
  const cosignatures = witnesses
    .slice(0, 2)
    .map((w) => cosign(text, w.name, decodeBase64(w.seed, 32), timestamp));
  return {
    about:
      "The checkpoint note of kt-vectors.json's STH at size 3 (docs/protocol.md section 9, " +
      "'Checkpoints and witnesses'): origin svc-kt/ + hex of the logId's first 8 bytes, signed " +
      "by the operator key of kt-vectors.json under that name (signed-note type 0x01), then " +
      "cosignature/v1 lines (type 0x04) of witness1 and witness2 at the STH's second; witness3 " +
      "did not cosign. Generated and re-checked by packages/kt-verify/src/checkpoint-vectors.test.ts.",
    treeSize: sth.treeSize,
    origin,
    text,
    timestamp,
    witnesses,
    note: signNote(text, [operator]) + cosignatures.join(""),
    policy: { origin, witnesses: witnesses.map((w) => w.verifierKey), threshold: 2 },
  };
}

describe("witnessed-checkpoint.json", () => {
  const generated = generate();

  it("is what this code produces", () => {
    if (process.env.UPDATE_KT_VECTORS === "1") {
      writeFileSync(FILE, `${JSON.stringify(generated, null, 2)}\n`);
    }
    expect(JSON.parse(readFileSync(FILE, "utf8"))).toEqual(generated);
    expect(generated.text).toBe(
      "svc-kt/ad1e6747346f561e\n3\nggr2UignlcE3ySqOlnvrdrCAG1fnU75c2Ixn9Yl6gqs=\n" +
        "indexRoot qfwiSRAyO0t0hji1N6QYhFLdNb0FH6QL810vCyyLfgc=\n",
    );
  });

  it("lets kt-vectors.json's proofs through a 2-of-3 policy, and not a 3-of-3 one", async () => {
    const bob = ktVectors.changes[1] as { identitySigningKey: string; identityDHKey: string };
    const claims: Record<string, KtClaim> = {
      inclusion: {
        type: "inclusion",
        identitySigningKey: decodeBase64(bob.identitySigningKey, 32),
        identityDHKey: decodeBase64(bob.identityDHKey, 32),
      },
      tombstone: { type: "tombstone" },
      absence: { type: "absence" },
    };
    const verifier = (threshold: number) =>
      new KtVerifier({
        logPublicKey: decodeBase64(ktVectors.operator.publicKey, 32),
        vrfPublicKey: decodeBase64(ktVectors.vrf.publicKey, 32),
        client: {
          logPublicKey: async () => decodeBase64(ktVectors.operator.publicKey, 32),
          sth: async () => sth,
          consistency: async () => [],
          leaves: async () => [],
          checkpoint: async () => generated.note,
        },
        store: memoryStore(),
        now: () => sth.timestampMs + 1000,
        witnessPolicy: { ...generated.policy, threshold },
      });
    const twoOfThree = verifier(2);
    for (const [type, { address, ktProof }] of Object.entries(ktVectors.proofs)) {
      const proof = { ...ktProof, checkpoint: generated.note };
      const verified = await twoOfThree.verifyProof(address, proof, claims[type] as KtClaim);
      expect(verified.type).toBe(type);
    }
    expect((await twoOfThree.refresh()).treeSize).toBe(3);
    await expect(verifier(3).refresh()).rejects.toMatchObject({ code: "KT_WITNESS_QUORUM" });
  });
});
