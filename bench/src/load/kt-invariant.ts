import { decodeBase64, encodeBase64, equalBytes } from "@svc/canonical";
import {
  decodeLeaf,
  KtMonitor,
  KtVerifyError,
  type LogClient,
  parseKtProof,
  type SignedTreeHead,
  verifyKtProofBody,
  verifySthSignature,
} from "@svc/kt-verify";
import { leafHash, MemoryTree, mapKey, SparseMerkleMap, verifyInclusion } from "@svc/merkle";
import type { InvariantResult } from "./invariants.js";
import type { Recorder } from "./recorder.js";

const EXAMPLES = 5;

export interface KtCheckInput {
  recorder: Pick<
    Recorder,
    "identities" | "identitiesUncertain" | "bundleProofs" | "bundlesWithoutProof"
  >;
  /** The log as one instance serves it, read after the load. */
  client: LogClient;
  logPublicKey: Uint8Array;
  /** Each instance's latest tree head at the end, besides those the bundles carried. */
  latestSths: readonly SignedTreeHead[];
}

/**
 * The key-transparency log after the load, audited as `svc-kt monitor` does and more:
 * - the final STH is signed by the log, and the leaves served hash to its root and index root;
 * - every leaf's inclusion proof (computed from the leaves) verifies against that root;
 * - every identity registered during the run is logged exactly once, with its keys, and no
 *   other address is;
 * - every tree head served during the run (in bundle proofs, and each instance's latest) is
 *   signed and is a prefix of the final log: same root and index root at its size;
 * - every bundle proof verifies for the bundle it came with, and names the final log's leaf.
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

  const leaves: Uint8Array[] = [];
  const recording: LogClient = {
    ...client,
    leaves: async (start, end) => {
      const page = await client.leaves(start, end);
      leaves.push(...page);
      return page;
    },
  };
  const monitor = new KtMonitor({ client: recording, logPublicKey, onEvent: () => {} });
  let sth: SignedTreeHead;
  try {
    sth = await monitor.step();
  } catch (error) {
    const reason = error instanceof KtVerifyError ? `${error.code}: ${error.message}` : error;
    return { name, passed: false, violations: 1, detail: `final STH: ${reason}`, examples };
  }

  const tree = new MemoryTree();
  for (const leaf of leaves) tree.append(leaf);
  for (let i = 0; i < leaves.length; i++) {
    const proof = tree.inclusionProof(i, sth.treeSize);
    if (!verifyInclusion(tree.leafHash(i), i, sth.treeSize, proof, sth.rootHash)) {
      violation(`leaf ${i} is not included in the final STH`);
    }
  }

  const logged = new Map<string, number>();
  for (const [i, bytes] of leaves.entries()) {
    const leaf = decodeLeaf(bytes);
    logged.set(leaf.address, (logged.get(leaf.address) ?? 0) + 1);
    const registered = recorder.identities.get(leaf.address);
    if (leaf.kind !== "identity") violation(`leaf ${i}: a tombstone of ${leaf.address}`);
    else if (registered === undefined) {
      if (!recorder.identitiesUncertain.has(leaf.address)) {
        violation(`leaf ${i}: ${leaf.address}, which nobody registered`);
      }
    } else if (
      encodeBase64(leaf.identitySigningKey) !== registered.identitySigningKey ||
      encodeBase64(leaf.identityDHKey) !== registered.identityDHKey
    ) {
      violation(`leaf ${i}: ${leaf.address} with other keys than it registered`);
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

  for (const { recorded, proof } of proofs) {
    try {
      const verified = verifyKtProofBody(recorded.address, proof, {
        type: "inclusion",
        identitySigningKey: decodeBase64(recorded.identitySigningKey),
        identityDHKey: decodeBase64(recorded.identityDHKey),
      });
      const index = verified.leafIndex ?? -1;
      if (
        proof.body.type !== "absence" &&
        !equalBytes(proof.body.leaf, leaves[index] ?? new Uint8Array(0))
      ) {
        violation(`bundle proof of ${recorded.address}: leaf ${index} is not the log's`);
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
      `final STH at size ${sth.treeSize} signed, its root and index root rebuilt from the ` +
      `leaves; ${leaves.length} inclusion proofs checked; ${recorder.identities.size} ` +
      `identities registered, each logged once with its keys; ${served.size} tree heads ` +
      `served during the run, each signed and a prefix of the final log; ${proofs.length} ` +
      `bundle proofs verified (${recorder.bundlesWithoutProof} bundles without one)`,
    examples,
  };
}

/** Each STH signed, and the final log at its size has its root and index root. */
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
    index.set(mapKey(decodeLeaf(leaf).address), hash);
    compare(tree.size);
  }
}

const sthKey = (sth: SignedTreeHead) =>
  `${sth.treeSize}:${sth.timestampMs}:${encodeBase64(sth.rootHash)}:${encodeBase64(sth.signature)}`;

function describe(error: unknown): string {
  if (error instanceof KtVerifyError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
