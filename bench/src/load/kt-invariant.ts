import {
  bytesToHex,
  decodeBase64,
  ed25519KeyPairFromSeed,
  encodeBase64,
  equalBytes,
} from "@svc/canonical";
import {
  decodeLeafV2,
  isLeafV2,
  KtMonitor,
  KtVerifyError,
  type LogClient,
  leafCommitment,
  parseKtProof,
  type SignedTreeHead,
  verifyKtProofBody,
  verifySthSignature,
  vrfIndex,
} from "@svc/kt-verify";
import { leafHash, MemoryTree, SparseMerkleMap, verifyInclusion } from "@svc/merkle";
import type { InvariantResult } from "./invariants.js";
import type { Recorder } from "./recorder.js";

const EXAMPLES = 5;
/** VRF look-ups in flight at once while indexing the run's addresses. */
const VRF_CONCURRENCY = 16;

export interface KtCheckInput {
  recorder: Pick<
    Recorder,
    "identities" | "identitiesUncertain" | "bundleProofs" | "bundlesWithoutProof"
  >;
  /** The log as one instance serves it, read after the load. */
  client: LogClient;
  logPublicKey: Uint8Array;
  /**
   * The deployment's VRF secret key (SVC_KT_VRF_KEY, 32 bytes): the harness is the operator. Its
   * public key is the one the log's indexes and proofs must verify under.
   */
  vrfSecretKey: Uint8Array;
  /** Each instance's latest tree head at the end, besides those the bundles carried. */
  latestSths: readonly SignedTreeHead[];
}

/**
 * The key-transparency log (map format 3, protocol.md §9 "Private index") after the load,
 * audited as `svc-kt monitor` does and more:
 * - the final STH is signed by the log, and the leaves served hash to its root and index root;
 * - every leaf's inclusion proof (computed from the leaves) verifies against that root;
 * - every leaf is a v2 identity leaf at the VRF index of an identity registered during the run
 *   (indexes of the run's addresses verified under the deployment's VRF key), every such
 *   identity is logged exactly once, and no other index is;
 * - every tree head served during the run (in bundle proofs, and each instance's latest) is
 *   signed and is a prefix of the final log: same root and format-3 index root at its size;
 * - every bundle proof verifies for the bundle it came with under the VRF key, and names the
 *   final log's leaf; its opening shows that leaf committing to the keys the address
 *   registered. Leaves do not show keys: the keys of addresses no bundle was fetched for go
 *   unchecked.
 */
export async function checkKtLog(input: KtCheckInput): Promise<InvariantResult> {
  const { recorder, client, logPublicKey } = input;
  const examples: string[] = [];
  let violations = 0;
  const violation = (text: string) => {
    violations++;
    if (examples.length < EXAMPLES) examples.push(text);
  };
  const name = "every KT leaf consistent with the final STH";
  // The ECVRF-EDWARDS25519 public key is the RFC 8032 Ed25519 public key of the secret.
  const vrfPublicKey = ed25519KeyPairFromSeed(input.vrfSecretKey).publicKey;

  const leaves: Uint8Array[] = [];
  const recording: LogClient = {
    ...client,
    leaves: async (start, end) => {
      const page = await client.leaves(start, end);
      leaves.push(...page);
      return page;
    },
  };
  const monitor = new KtMonitor({
    client: recording,
    logPublicKey,
    vrfPublicKey,
    onEvent: () => {},
  });
  let sth: SignedTreeHead;
  try {
    sth = await monitor.step();
  } catch (error) {
    return {
      name,
      passed: false,
      violations: 1,
      detail: `final STH: ${describe(error)}`,
      examples,
    };
  }
  if (client.logId !== undefined) {
    try {
      const announced = (await client.logId()).vrfPublicKey;
      if (announced === undefined || !equalBytes(announced, vrfPublicKey)) {
        violation("GET /v1/kt/log_id does not announce the deployment's VRF public key");
      }
    } catch (error) {
      violation(`GET /v1/kt/log_id: ${describe(error)}`);
    }
  }

  const tree = new MemoryTree();
  for (const leaf of leaves) tree.append(leaf);
  for (let i = 0; i < leaves.length; i++) {
    const proof = tree.inclusionProof(i, sth.treeSize);
    if (!verifyInclusion(tree.leafHash(i), i, sth.treeSize, proof, sth.rootHash)) {
      violation(`leaf ${i} is not included in the final STH`);
    }
  }

  // Every address the run knows of, registered or not, so that a leaf can be named.
  const known = new Set([
    ...recorder.identities.keys(),
    ...recorder.identitiesUncertain,
    ...recorder.bundleProofs.map((recorded) => recorded.address),
  ]);
  const addressAt = await indexAddresses(known, client, vrfPublicKey, violation);

  const logged = new Map<string, number>();
  for (const [i, bytes] of leaves.entries()) {
    let leaf: ReturnType<typeof decodeLeafV2>;
    try {
      leaf = decodeLeafV2(bytes);
    } catch (error) {
      violation(`leaf ${i}: not a v2 leaf (${describe(error)})`);
      continue;
    }
    const address = addressAt.get(bytesToHex(leaf.index));
    const named = address ?? `index ${bytesToHex(leaf.index).slice(0, 16)}…`;
    if (address !== undefined) {
      logged.set(address, (logged.get(address) ?? 0) + 1);
    }
    if (leaf.kind !== "identity") violation(`leaf ${i}: a tombstone of ${named}`);
    else if (address === undefined) {
      violation(`leaf ${i}: ${named}, the index of no address the run registered`);
    } else if (!recorder.identities.has(address) && !recorder.identitiesUncertain.has(address)) {
      violation(`leaf ${i}: ${address}, which nobody registered`);
    }
  }
  for (const address of recorder.identities.keys()) {
    const times = logged.get(address) ?? 0;
    if (times !== 1) violation(`${address} registered, logged ${times} times`);
  }

  const served = new Map<string, SignedTreeHead>();
  const proofs = [];
  for (const recorded of recorder.bundleProofs) {
    try {
      const proof = parseKtProof(recorded.ktProof);
      proofs.push({ recorded, proof });
      served.set(sthKey(proof.sth), proof.sth);
    } catch (error) {
      violation(`bundle proof of ${recorded.address}: ${describe(error)}`);
    }
  }
  for (const latest of input.latestSths) served.set(sthKey(latest), latest);
  await checkServedSths([...served.values()], leaves, sth, logPublicKey, violation);

  /** Leaves whose commitment was opened against the keys their address registered. */
  const keysChecked = new Set<number>();
  for (const { recorded, proof } of proofs) {
    try {
      const verified = verifyKtProofBody(
        recorded.address,
        proof,
        {
          type: "inclusion",
          identitySigningKey: decodeBase64(recorded.identitySigningKey),
          identityDHKey: decodeBase64(recorded.identityDHKey),
        },
        vrfPublicKey,
      );
      const index = verified.leafIndex ?? -1;
      const body = proof.body;
      if (body.type === "absence") continue;
      if (!equalBytes(body.leaf, leaves[index] ?? new Uint8Array(0))) {
        violation(`bundle proof of ${recorded.address}: leaf ${index} is not the log's`);
        continue;
      }
      const registered = recorder.identities.get(recorded.address);
      if (registered === undefined || body.opening === undefined || keysChecked.has(index)) {
        continue;
      }
      keysChecked.add(index);
      const commitment = leafCommitment(body.opening, recorded.address, {
        identitySigningKey: decodeBase64(registered.identitySigningKey),
        identityDHKey: decodeBase64(registered.identityDHKey),
      });
      if (!equalBytes(commitment, decodeLeafV2(body.leaf).commitment)) {
        violation(`leaf ${index}: ${recorded.address} committed to other keys than it registered`);
      }
    } catch (error) {
      violation(`bundle proof of ${recorded.address}: ${describe(error)}`);
    }
  }
  if (recorder.bundlesWithoutProof > 0) {
    violation(`${recorder.bundlesWithoutProof} bundle answers carried no ktProof`);
    violations += recorder.bundlesWithoutProof - 1;
  }

  return {
    name,
    passed: violations === 0,
    violations,
    detail:
      `final STH at size ${sth.treeSize} signed, its root and format-3 index root rebuilt from ` +
      `the leaves; ${leaves.length} inclusion proofs checked; ${recorder.identities.size} ` +
      `identities registered, each logged once at its VRF index (${addressAt.size} indexes ` +
      `verified under the VRF key); leaves show no keys: the keys of the ${keysChecked.size} addresses fetched checked ` +
      `through their bundle proofs' commitments; ${served.size} tree ` +
      `heads served during the run, each signed and a prefix of the final log; ${proofs.length} ` +
      `bundle proofs verified (${recorder.bundlesWithoutProof} bundles without one)`,
    examples,
  };
}

/**
 * Each address's VRF index (hex) -> the address. The index is taken from the log's VRF proof
 * (GET /v1/kt/vrf/{address}) verified under the deployment's VRF public key: ECVRF outputs are
 * unique, so it is the index ECVRF_prove under the secret key gives, and a log answering
 * another one, or none, is a violation.
 */
async function indexAddresses(
  addresses: ReadonlySet<string>,
  client: LogClient,
  vrfPublicKey: Uint8Array,
  violation: (text: string) => void,
): Promise<Map<string, string>> {
  const byIndex = new Map<string, string>();
  const lookUp = client.vrf?.bind(client);
  if (lookUp === undefined) {
    violation("the log client cannot fetch VRF proofs (GET /v1/kt/vrf): no leaf can be named");
    return byIndex;
  }
  const queue = [...addresses];
  const worker = async () => {
    for (let address = queue.shift(); address !== undefined; address = queue.shift()) {
      try {
        const answer = await lookUp(address);
        const index = vrfIndex(vrfPublicKey, answer.vrfProof, address);
        if (index === undefined) {
          violation(`VRF proof of ${address} does not verify under the deployment's VRF key`);
        } else if (!equalBytes(index, answer.index)) {
          violation(`GET /v1/kt/vrf/${address} answered another index than its proof's`);
        } else {
          byIndex.set(bytesToHex(index), address);
        }
      } catch (error) {
        violation(`VRF index of ${address}: ${describe(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: VRF_CONCURRENCY }, worker));
  return byIndex;
}

/** Each STH signed, and the final log at its size has its root and format-3 index root. */
async function checkServedSths(
  sths: SignedTreeHead[],
  leaves: readonly Uint8Array[],
  final: SignedTreeHead,
  logPublicKey: Uint8Array,
  violation: (text: string) => void,
): Promise<void> {
  const bySize = new Map<number, SignedTreeHead[]>();
  for (const sth of sths) {
    if (!(await verifySthSignature(sth, logPublicKey))) {
      violation(`STH at size ${sth.treeSize} served with a bad signature`);
    }
    if (sth.treeSize > final.treeSize) {
      violation(`STH at size ${sth.treeSize} is past the final size ${final.treeSize}`);
      continue;
    }
    bySize.set(sth.treeSize, [...(bySize.get(sth.treeSize) ?? []), sth]);
  }
  const tree = new MemoryTree();
  // Map format 3: VRF index -> leaf hash of the latest v2 leaf (v1 leaves, already reported
  // above, are not in it).
  const index = new SparseMerkleMap();
  const compare = (size: number) => {
    for (const sth of bySize.get(size) ?? []) {
      if (!equalBytes(tree.root(), sth.rootHash) || !equalBytes(index.root(), sth.indexRoot)) {
        violation(`STH at size ${size} is not a prefix of the final log`);
      }
    }
  };
  compare(0);
  for (const leaf of leaves) {
    const hash = leafHash(leaf);
    tree.appendLeafHash(hash);
    if (isLeafV2(leaf)) {
      try {
        index.set(decodeLeafV2(leaf).index, hash);
      } catch {
        // Malformed: reported with the leaves.
      }
    }
    compare(tree.size);
  }
}

const sthKey = (sth: SignedTreeHead) =>
  `${sth.treeSize}:${sth.timestampMs}:${encodeBase64(sth.rootHash)}:${encodeBase64(sth.signature)}`;

function describe(error: unknown): string {
  if (error instanceof KtVerifyError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
