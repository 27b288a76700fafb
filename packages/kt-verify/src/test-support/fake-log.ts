import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519KeyPairFromSeed, ed25519Sign, encodeBase64 } from "@svc/canonical";
import { emptyMapRoot, leafHash, MemoryTree, mapKey, SparseMerkleMap } from "@svc/merkle";
import {
  COSIGNATURE_V1_TYPE,
  cosign,
  formatSignerKey,
  formatVerifierKey,
  parseSignerKey,
  signNote,
} from "@svc/signed-note";
import { checkpointText, defaultOrigin } from "../checkpoint.js";
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
  /** The checkpoints' origin and the operator's key name (default: the log's default origin). */
  origin: string;
  /** The witnesses that cosign the checkpoints the log serves, at `now`. */
  witnesses: FakeWitness[] = [];

  constructor(seed: Uint8Array = new Uint8Array(32).fill(7), now: () => number = Date.now) {
    this.#seed = seed;
    this.publicKey = ed25519KeyPairFromSeed(seed).publicKey;
    this.now = now;
    this.origin = defaultOrigin(logIdOf(this.publicKey));
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

  /** The checkpoint note of the STH at `size`, signed by the operator, cosigned by `witnesses`. */
  checkpoint(size = this.size, witnesses = this.witnesses): string {
    const text = checkpointText(this.origin, this.sths[size] as SignedTreeHead);
    const seconds = Math.floor(this.now() / 1000);
    return this.signCheckpoint(text) + witnesses.map((w) => w.cosign(text, seconds)).join("");
  }

  /** Any note text signed by the operator key under `name` (default the origin). */
  signCheckpoint(text: string, name = this.origin): string {
    return signNote(text, [parseSignerKey(formatSignerKey(name, this.#seed))]);
  }

  /** The `ktProof` JSON a server would attach for `address` at the latest size. */
  proofJson(address: string): Record<string, unknown> {
    const key = mapKey(address);
    const indexProofJson = indexProofToJson(this.map.prove(key));
    const sth = sthToJson(this.latestSth());
    const checkpoint = this.checkpoint();
    const index = this.#latest.get(address);
    if (index === undefined) {
      return { sth, body: { type: "absence", indexProof: indexProofJson }, checkpoint };
    }
    const leaf = this.leaves[index] as Uint8Array;
    const tombstone = leaf[15] === 2;
    return {
      sth,
      checkpoint,
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
      checkpoint: async () => this.checkpoint(),
    };
  }
}

/** A witness's cosigning key (cosignature/v1, type 0x04). */
export class FakeWitness {
  readonly name: string;
  readonly #seed: Uint8Array;
  /** Its C2SP verifier key, as a witness policy lists it. */
  readonly verifierKey: string;

  constructor(name: string, seed: Uint8Array = sha256(new TextEncoder().encode(name))) {
    this.name = name;
    this.#seed = seed;
    const { publicKey } = ed25519KeyPairFromSeed(seed);
    this.verifierKey = formatVerifierKey(name, publicKey, COSIGNATURE_V1_TYPE);
  }

  /** Its cosignature line of a checkpoint text at `seconds` (POSIX). */
  cosign(text: string, seconds: number): string {
    return cosign(text, this.name, this.#seed, seconds);
  }
}

/** A 32-byte key filled with `n`, for readable tests. */
export const key32 = (n: number): Uint8Array => new Uint8Array(32).fill(n);
