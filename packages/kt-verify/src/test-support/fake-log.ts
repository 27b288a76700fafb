import { ed25519KeyPairFromSeed, ed25519Sign, encodeBase64 } from "@svc/canonical";
import { emptyMapRoot, leafHash, MemoryTree, mapKey, SparseMerkleMap } from "@svc/merkle";
import { encodeLeaf, type KtLeaf } from "../leaf.js";
import type { LogClient } from "../log-client.js";
import { indexProofToJson } from "../proof.js";
import { logIdOf, type SignedTreeHead, sthMessage, sthToJson } from "../sth.js";

/**
 * An in-memory key-transparency log built from @svc/merkle's reference structures, signing like
 * the server does: tests of the verifier drive it, fork it and shrink it at will.
 */
export class FakeLog {
  readonly publicKey: Uint8Array;
  readonly tree = new MemoryTree();
  readonly map = new SparseMerkleMap();
  readonly leaves: Uint8Array[] = [];
  readonly sths: SignedTreeHead[] = [];
  readonly #latest = new Map<string, number>();
  readonly #seed: Uint8Array;
  now: () => number;

  constructor(seed: Uint8Array = new Uint8Array(32).fill(7), now: () => number = Date.now) {
    this.#seed = seed;
    this.publicKey = ed25519KeyPairFromSeed(seed).publicKey;
    this.now = now;
    this.sths.push(this.sign(0, this.tree.root(0), emptyMapRoot()));
  }

  get size(): number {
    return this.tree.size;
  }

  append(leaf: KtLeaf): number {
    const bytes = encodeLeaf(leaf);
    const index = this.tree.append(bytes);
    this.leaves.push(bytes);
    this.map.set(mapKey(leaf.address), leafHash(bytes));
    this.#latest.set(leaf.address, index);
    this.sths.push(this.sign(this.size, this.tree.root(), this.map.root()));
    return index;
  }

  sign(treeSize: number, rootHash: Uint8Array, indexRoot: Uint8Array, timestampMs = this.now()) {
    const head = { treeSize, timestampMs, rootHash, indexRoot, logId: logIdOf(this.publicKey) };
    return { ...head, signature: ed25519Sign(sthMessage(head), this.#seed) };
  }

  latestSth(): SignedTreeHead {
    return this.sths[this.sths.length - 1] as SignedTreeHead;
  }

  /** The `ktProof` JSON a server would attach for `address` at the latest size. */
  proofJson(address: string): Record<string, unknown> {
    const key = mapKey(address);
    const indexProofJson = indexProofToJson(this.map.prove(key));
    const sth = sthToJson(this.latestSth());
    const index = this.#latest.get(address);
    if (index === undefined) return { sth, body: { type: "absence", indexProof: indexProofJson } };
    const leaf = this.leaves[index] as Uint8Array;
    const tombstone = leaf[15] === 2;
    return {
      sth,
      body: {
        type: tombstone ? "tombstone" : "inclusion",
        leaf: encodeBase64(leaf),
        leafIndex: index,
        auditPath: this.tree.inclusionProof(index).map(encodeBase64),
        indexProof: indexProofJson,
      },
    };
  }

  client(): LogClient {
    return {
      logPublicKey: async () => this.publicKey,
      sth: async (treeSize) => {
        const sth = this.sths[treeSize ?? this.size];
        if (sth === undefined) throw new Error("no such STH");
        return sth;
      },
      consistency: async (from, to) => this.tree.consistencyProof(from, to),
      leaves: async (start, end) => this.leaves.slice(start, Math.min(end, start + 1000)),
    };
  }
}

/** A 32-byte key filled with `n`, for readable tests. */
export const key32 = (n: number): Uint8Array => new Uint8Array(32).fill(n);
