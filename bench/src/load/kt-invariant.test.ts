import { ed25519KeyPairFromSeed, ed25519Sign, encodeBase64, hexToBytes } from "@svc/canonical";
import {
  encodeLeafV2,
  ktProofToJson,
  type LogClient,
  leafCommitment,
  logIdOf,
  type SignedTreeHead,
  sthMessage,
  vrfIndex,
} from "@svc/kt-verify";
import { leafHash, MemoryTree, SparseMerkleMap } from "@svc/merkle";
import { describe, expect, it } from "vitest";
import { checkKtLog } from "./kt-invariant.js";
import { Recorder } from "./recorder.js";

const SEED = new Uint8Array(32).fill(9);
const LOG_KEY = ed25519KeyPairFromSeed(SEED).publicKey;
/** The test log's VRF secret key; its ECVRF public key is its Ed25519 public key. */
const VRF_SECRET_KEY = new Uint8Array(32).fill(7);
const VRF_PUBLIC_KEY = ed25519KeyPairFromSeed(VRF_SECRET_KEY).publicKey;
/**
 * ECVRF proofs under VRF_SECRET_KEY of the UTF-8 addresses: @svc/vrf's
 * `vrfProve(VRF_SECRET_KEY, alpha)` (the bench does not depend on @svc/vrf). Each is verified by
 * `vrfIndex` below before use, so a wrong one fails every test.
 */
const VRF_PROOFS: Record<string, string> = {
  "alice:1":
    "e51a768fdb3c1a2300536915d88f62acf623fe6ad610b0f09462d577fbd51305" +
    "33bffe16d3694520b968a30545fa042d9564e5d8c068c16d3056a40471536f77" +
    "fdb3bb2f26551a62f96b2f56f7f4dc04",
  "bob:1":
    "5e46d2989693f1fb5f10610d91eedc84a9adeeaf5f7bc480b5d5fe08e56e8719" +
    "694a63fead4c5edee856d61f24c23754a424186d35b2ba1cd4f4203f5a65ffb0" +
    "b11703ed3418c3f132340b0fb15a9f0c",
  "carol:1":
    "7a20968acfd607992a3c3326ae0b6ce31b1f9135fc40ee94705d08e800df2e08" +
    "4426fb21d34c56002ebcaefb067b06f779cfe29ac24b81beb05fc6a906681b75" +
    "2dbc6ae1a9a9938042012f1297776c0f",
};
const key = (n: number) => new Uint8Array(32).fill(n);

function vrfOf(address: string): { index: Uint8Array; vrfProof: Uint8Array } {
  const hex = VRF_PROOFS[address];
  if (hex === undefined) throw new Error(`no test VRF proof for ${address}`);
  const vrfProof = hexToBytes(hex);
  const index = vrfIndex(VRF_PUBLIC_KEY, vrfProof, address);
  if (index === undefined) throw new Error(`the test VRF proof of ${address} does not verify`);
  return { index, vrfProof };
}

/** A format-3 log signed as the server signs it, one STH per size, serving what a test gives it. */
class TestLog {
  readonly tree = new MemoryTree();
  readonly map = new SparseMerkleMap();
  readonly leaves: Uint8Array[] = [];
  readonly openings: Uint8Array[] = [];
  readonly sths: SignedTreeHead[] = [
    sign(0, new MemoryTree().root(), new SparseMerkleMap().root()),
  ];

  /** An identity leaf of `address` committing to key(n) and key(n + 1). */
  append(address: string, n: number): void {
    const opening = key(200 + this.leaves.length);
    const leaf = encodeLeafV2({
      kind: "identity",
      index: vrfOf(address).index,
      commitment: leafCommitment(opening, address, {
        identitySigningKey: key(n),
        identityDHKey: key(n + 1),
      }),
      timestampMs: 1_763_780_000_000 + n,
    });
    this.leaves.push(leaf);
    this.openings.push(opening);
    this.tree.append(leaf);
    this.map.set(vrfOf(address).index, leafHash(leaf));
    this.sths.push(sign(this.tree.size, this.tree.root(), this.map.root()));
  }

  /** The ktProof a bundle of `address` (leaf `index`) carries at the latest size. */
  proof(address: string, index: number): unknown {
    const { index: mapKey, vrfProof } = vrfOf(address);
    return ktProofToJson({
      sth: this.sths[this.tree.size] as SignedTreeHead,
      body: {
        type: "inclusion",
        leaf: this.leaves[index] as Uint8Array,
        leafIndex: index,
        auditPath: this.tree.inclusionProof(index),
        indexProof: this.map.prove(mapKey),
        vrfProof,
        opening: this.openings[index] as Uint8Array,
      },
    });
  }

  client(served: Uint8Array[] = this.leaves): LogClient {
    return {
      logPublicKey: async () => LOG_KEY,
      logId: async () => ({
        logId: logIdOf(LOG_KEY),
        publicKey: LOG_KEY,
        vrfPublicKey: VRF_PUBLIC_KEY,
      }),
      vrf: async (address) => ({ address, ...vrfOf(address) }),
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

/**
 * alice:1 and bob:1 registered and logged (alice:1 committing to key(logged) and
 * key(logged + 1)); a bundle of each fetched after both registers, with the logged keys.
 */
function cleanRun(logged = 1): { log: TestLog; recorder: Recorder } {
  const log = new TestLog();
  const recorder = new Recorder();
  for (const [n, address] of ["alice:1", "bob:1"].entries()) {
    log.append(address, n === 0 ? logged : 10 * n + 1);
    recorder.identities.set(address, {
      identitySigningKey: encodeBase64(key(10 * n + 1)),
      identityDHKey: encodeBase64(key(10 * n + 2)),
    });
  }
  for (const [index, address] of ["alice:1", "bob:1"].entries()) {
    const n = index === 0 ? logged : 10 * index + 1;
    recorder.bundleProofs.push({
      address,
      ktProof: log.proof(address, index),
      identitySigningKey: encodeBase64(key(n)),
      identityDHKey: encodeBase64(key(n + 1)),
    });
  }
  return { log, recorder };
}

const check = (log: TestLog, recorder: Recorder, client = log.client()) =>
  checkKtLog({
    recorder,
    client,
    logPublicKey: LOG_KEY,
    vrfSecretKey: VRF_SECRET_KEY,
    latestSths: [log.sths[2] as SignedTreeHead],
  });

describe("checkKtLog", () => {
  it("passes a log that holds exactly the identities registered, proven as served", async () => {
    const { log, recorder } = cleanRun();
    const result = await check(log, recorder);
    expect(result).toMatchObject({ passed: true, violations: 0, examples: [] });
    expect(result.detail).toContain("final STH at size 2 signed");
    expect(result.detail).toContain("format-3 index root");
    expect(result.detail).toContain(
      "keys of the 2 addresses fetched checked through their bundle proofs' commitments",
    );
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

  it("reports a leaf at the index of no address the run knows", async () => {
    const { log, recorder } = cleanRun();
    recorder.identities.delete("bob:1");
    recorder.bundleProofs.pop();
    const result = await check(log, recorder);
    expect(result).toMatchObject({ passed: false, violations: 1 });
    expect(result.examples[0]).toMatch(/^leaf 1: index [0-9a-f]{16}…, the index of no address/);
  });

  it("reports a log whose indexes are not under the deployment's VRF key", async () => {
    const { log, recorder } = cleanRun();
    const result = await checkKtLog({
      recorder,
      client: log.client(),
      logPublicKey: LOG_KEY,
      vrfSecretKey: key(8),
      latestSths: [],
    });
    expect(result.passed).toBe(false);
    expect(result.examples).toContain(
      "GET /v1/kt/log_id does not announce the deployment's VRF public key",
    );
    expect(result.examples).toContain(
      "VRF proof of alice:1 does not verify under the deployment's VRF key",
    );
  });

  it("reports a tree head served during the run that the final log does not extend", async () => {
    const { log, recorder } = cleanRun();
    const fork = sign(1, key(7), key(8));
    const result = await checkKtLog({
      recorder,
      client: log.client(),
      logPublicKey: LOG_KEY,
      vrfSecretKey: VRF_SECRET_KEY,
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

  it("reports a leaf committing to other keys than registered, once its bundle proof is recorded", async () => {
    // alice:1 registered key(1) and key(2); the log commits to key(50) and key(51), and her
    // bundle carries those: its proof verifies, its opening shows the registered keys are not
    // the logged ones.
    const { log, recorder } = cleanRun(50);
    const result = await check(log, recorder);
    expect(result).toMatchObject({ passed: false, violations: 1 });
    expect(result.examples).toEqual(["leaf 0: alice:1 committed to other keys than it registered"]);

    // Without her bundle the leaf shows nothing of its keys: the detail says whose were checked.
    recorder.bundleProofs.shift();
    const unfetched = await check(log, recorder);
    expect(unfetched).toMatchObject({ passed: true, violations: 0 });
    expect(unfetched.detail).toContain("keys of the 1 addresses fetched checked");
  });
});
