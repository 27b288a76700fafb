import { ed25519KeyPairFromSeed, ed25519Sign, encodeBase64 } from "@svc/canonical";
import {
  encodeLeaf,
  ktProofToJson,
  type LogClient,
  logIdOf,
  type SignedTreeHead,
  sthMessage,
} from "@svc/kt-verify";
import { leafHash, MemoryTree, mapKey, SparseMerkleMap } from "@svc/merkle";
import { describe, expect, it } from "vitest";
import { checkKtLog } from "./kt-invariant.js";
import { Recorder } from "./recorder.js";

const SEED = new Uint8Array(32).fill(9);
const LOG_KEY = ed25519KeyPairFromSeed(SEED).publicKey;
const key = (n: number) => new Uint8Array(32).fill(n);

/** A log signed as the server signs it, one STH per size, serving what a test gives it. */
class TestLog {
  readonly tree = new MemoryTree();
  readonly map = new SparseMerkleMap();
  readonly leaves: Uint8Array[] = [];
  readonly sths: SignedTreeHead[] = [
    sign(0, new MemoryTree().root(), new SparseMerkleMap().root()),
  ];

  append(address: string, n: number): void {
    const leaf = encodeLeaf({
      kind: "identity",
      address,
      identitySigningKey: key(n),
      identityDHKey: key(n + 1),
      timestampMs: 1_763_780_000_000 + n,
    });
    this.leaves.push(leaf);
    this.tree.append(leaf);
    this.map.set(mapKey(address), leafHash(leaf));
    this.sths.push(sign(this.tree.size, this.tree.root(), this.map.root()));
  }

  /** The ktProof a bundle of `address` (leaf `index`) carries at the latest size. */
  proof(address: string, index: number): unknown {
    return ktProofToJson({
      sth: this.sths[this.tree.size] as SignedTreeHead,
      body: {
        type: "inclusion",
        leaf: this.leaves[index] as Uint8Array,
        leafIndex: index,
        auditPath: this.tree.inclusionProof(index),
        indexProof: this.map.prove(mapKey(address)),
      },
    });
  }

  client(served: Uint8Array[] = this.leaves): LogClient {
    return {
      logPublicKey: async () => LOG_KEY,
      sth: async (size) => this.sths[size ?? this.tree.size] as SignedTreeHead,
      consistency: async (from, to) => this.tree.consistencyProof(from, to),
      leaves: async (start, end) => served.slice(start, end),
    };
  }
}

function sign(treeSize: number, rootHash: Uint8Array, indexRoot: Uint8Array): SignedTreeHead {
  const head = {
    treeSize,
    timestampMs: 1_763_780_000_000,
    rootHash,
    indexRoot,
    logId: logIdOf(LOG_KEY),
  };
  return { ...head, signature: ed25519Sign(sthMessage(head), SEED) };
}

/** alice:1 and bob:1 registered and logged; a bundle of each fetched after both registers. */
function cleanRun(): { log: TestLog; recorder: Recorder } {
  const log = new TestLog();
  const recorder = new Recorder();
  for (const [n, address] of ["alice:1", "bob:1"].entries()) {
    log.append(address, 10 * n + 1);
    recorder.identities.set(address, {
      identitySigningKey: encodeBase64(key(10 * n + 1)),
      identityDHKey: encodeBase64(key(10 * n + 2)),
    });
  }
  for (const [index, address] of ["alice:1", "bob:1"].entries()) {
    const { identitySigningKey, identityDHKey } = recorder.identities.get(address) ?? {};
    recorder.bundleProofs.push({
      address,
      ktProof: log.proof(address, index),
      identitySigningKey: identitySigningKey ?? "",
      identityDHKey: identityDHKey ?? "",
    });
  }
  return { log, recorder };
}

const check = (log: TestLog, recorder: Recorder, client = log.client()) =>
  checkKtLog({
    recorder,
    client,
    logPublicKey: LOG_KEY,
    latestSths: [log.sths[2] as SignedTreeHead],
  });

describe("checkKtLog", () => {
  it("passes a log that holds exactly the identities registered, proven as served", async () => {
    const { log, recorder } = cleanRun();
    const result = await check(log, recorder);
    expect(result).toMatchObject({ passed: true, violations: 0, examples: [] });
    expect(result.detail).toContain("final STH at size 2 signed");
    expect(result.detail).toContain("2 bundle proofs verified");
  });

  it("fails when the leaves served do not hash to the final STH", async () => {
    const { log, recorder } = cleanRun();
    const forged = [log.leaves[1] as Uint8Array, log.leaves[0] as Uint8Array];
    const result = await check(log, recorder, log.client(forged));
    expect(result.passed).toBe(false);
    expect(result.detail).toContain("KT_BAD_PROOF");
  });

  it("reports an identity registered but not logged, and a leaf nobody registered", async () => {
    const { log, recorder } = cleanRun();
    recorder.identities.set("carol:1", { identitySigningKey: "x", identityDHKey: "y" });
    recorder.identities.delete("bob:1");
    const result = await check(log, recorder);
    expect(result.passed).toBe(false);
    expect(result.examples).toContain("leaf 1: bob:1, which nobody registered");
    expect(result.examples).toContain("carol:1 registered, logged 0 times");
  });

  it("reports a tree head served during the run that the final log does not extend", async () => {
    const { log, recorder } = cleanRun();
    const fork = sign(1, key(7), key(8));
    const result = await checkKtLog({
      recorder,
      client: log.client(),
      logPublicKey: LOG_KEY,
      latestSths: [fork],
    });
    expect(result).toMatchObject({ passed: false, violations: 1 });
    expect(result.examples).toEqual(["STH at size 1 is not a prefix of the final log"]);
  });

  it("reports a bundle proof for other keys than the bundle's, and bundles without one", async () => {
    const { log, recorder } = cleanRun();
    const proof = recorder.bundleProofs[0];
    if (proof) proof.identityDHKey = encodeBase64(key(99));
    recorder.bundlesWithoutProof = 2;
    const result = await check(log, recorder);
    expect(result).toMatchObject({ passed: false, violations: 3 });
    expect(result.examples[0]).toContain("KT_KEY_MISMATCH");
    expect(result.examples[1]).toBe("2 bundle answers carried no ktProof");
  });
});
