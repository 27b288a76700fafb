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
import { vrfProofToHash, vrfProve, vrfPublicKey } from "@svc/vrf";
import { checkpointText, defaultOrigin } from "../checkpoint.js";
import { encodeLeaf, type KtLeaf } from "../leaf.js";
import { encodeLeafV2, leafCommitment } from "../leaf-v2.js";
import type { LogClient } from "../log-client.js";
import { indexProofToJson } from "../proof.js";
import { logIdOf, type SignedTreeHead, sthMessage, sthToJson } from "../sth.js";

/** A format-3 change: what {@link FakeLog.appendV2} commits to in a v2 leaf. */
export type KtChangeV2 =
  | {
      kind: "identity";
      address: string;
      identitySigningKey: Uint8Array;
      identityDHKey: Uint8Array;
      /** SHA-256 of the identity's last-resort KEM key, when the leaf commits one. */
      kemKeyHash?: Uint8Array;
      timestampMs: number;
    }
  | { kind: "tombstone"; address: string; timestampMs: number };

/**
 * An in-memory key-transparency log built from @svc/merkle's reference structures, signing like
 * the server does: tests of the verifier drive it, fork it and shrink it at will. `append` adds
 * v1 leaves (format 2, map keyed by SHA-256(address)); `appendV2` adds v2 leaves (format 3, map
 * keyed by VRF index); from the first v2 leaf on, STHs commit to the format-3 map, as the
 * server's do after its migration.
 */
export class FakeLog {
  readonly publicKey: Uint8Array;
  readonly tree = new MemoryTree();
  /** The format-2 map: SHA-256(address) -> leaf hash of the latest v1 leaf. */
  readonly map = new SparseMerkleMap();
  /** The format-3 map: VRF index -> leaf hash of the latest v2 leaf. */
  readonly map3 = new SparseMerkleMap();
  readonly leaves: Uint8Array[] = [];
  readonly sths: SignedTreeHead[] = [];
  /** The VRF key of the format-3 index. */
  readonly vrfSecretKey: Uint8Array;
  readonly vrfPublicKey: Uint8Array;
  readonly #latest = new Map<string, number>();
  /** Latest v2 leaf of each address: its leaf index, opening and committed KEM key hash. */
  readonly #latestV2 = new Map<
    string,
    { leafIndex: number; opening: Uint8Array; kemKeyHash?: Uint8Array | undefined }
  >();
  #openings = 0;
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
    this.vrfSecretKey = sha256(Uint8Array.of(...seed, 0x76));
    this.vrfPublicKey = vrfPublicKey(this.vrfSecretKey);
    this.sths.push(this.sign(0, this.tree.root(0), emptyMapRoot()));
  }

  get size(): number {
    return this.tree.size;
  }

  /** Whether the log holds a v2 leaf, and so signs format-3 index roots. */
  get format3(): boolean {
    return this.#latestV2.size > 0;
  }

  /** The index root its STHs sign: format 3 once there is a v2 leaf, else format 2. */
  indexRoot(): Uint8Array {
    return this.format3 ? this.map3.root() : this.map.root();
  }

  append(leaf: KtLeaf): number {
    const bytes = encodeLeaf(leaf);
    const index = this.tree.append(bytes);
    this.leaves.push(bytes);
    this.map.set(mapKey(leaf.address), leafHash(bytes));
    this.#latest.set(leaf.address, index);
    this.sths.push(this.sign(this.size, this.tree.root(), this.indexRoot()));
    return index;
  }

  /** The VRF proof of an (normalized) address under the log's VRF key. */
  vrfProof(address: string): Uint8Array {
    return vrfProve(this.vrfSecretKey, new TextEncoder().encode(address));
  }

  /** The VRF index of an (normalized) address: the first 32 bytes of its VRF output. */
  vrfIndexOf(address: string): Uint8Array {
    return vrfProofToHash(this.vrfProof(address)).slice(0, 32);
  }

  /** Appends a v2 leaf (fresh opening unless given) and signs the format-3 STH of the new size. */
  appendV2(change: KtChangeV2, opening: Uint8Array = this.#nextOpening()): number {
    const keys =
      change.kind === "identity"
        ? {
            identitySigningKey: change.identitySigningKey,
            identityDHKey: change.identityDHKey,
            kemKeyHash: change.kemKeyHash,
          }
        : undefined;
    const bytes = encodeLeafV2({
      kind: change.kind,
      index: this.vrfIndexOf(change.address),
      commitment: leafCommitment(opening, change.address, keys),
      timestampMs: change.timestampMs,
    });
    const leafIndex = this.tree.append(bytes);
    this.leaves.push(bytes);
    this.map3.set(this.vrfIndexOf(change.address), leafHash(bytes));
    this.#latestV2.set(change.address, { leafIndex, opening, kemKeyHash: keys?.kemKeyHash });
    this.sths.push(this.sign(this.size, this.tree.root(), this.indexRoot()));
    return leafIndex;
  }

  #nextOpening(): Uint8Array {
    return sha256(Uint8Array.of(...this.#seed, 0x6f, this.#openings++));
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

  /**
   * The `ktProof` JSON a server would attach for `address` at the latest size: format 3 once the
   * log holds a v2 leaf (an address without one is then absent), else format 2.
   */
  proofJson(address: string): Record<string, unknown> {
    if (this.format3) return this.#proofJsonV2(address);
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

  #proofJsonV2(address: string): Record<string, unknown> {
    const vrfProof = encodeBase64(this.vrfProof(address));
    const indexProof = indexProofToJson(this.map3.prove(this.vrfIndexOf(address)));
    const sth = sthToJson(this.latestSth());
    const checkpoint = this.checkpoint();
    const latest = this.#latestV2.get(address);
    if (latest === undefined) {
      return { sth, body: { type: "absence", indexProof, vrfProof }, checkpoint };
    }
    const leaf = this.leaves[latest.leafIndex] as Uint8Array;
    return {
      sth,
      checkpoint,
      body: {
        type: leaf[15] === 2 ? "tombstone" : "inclusion",
        leaf: encodeBase64(leaf),
        leafIndex: latest.leafIndex,
        auditPath: this.tree.inclusionProof(latest.leafIndex).map(encodeBase64),
        indexProof,
        vrfProof,
        opening: encodeBase64(latest.opening),
        ...(latest.kemKeyHash ? { kemKeyHash: encodeBase64(latest.kemKeyHash) } : {}),
      },
    };
  }

  /** The log's client; `withVrfKey` false for a log from before the private index. */
  client(withVrfKey = true): LogClient {
    return {
      logPublicKey: async () => this.publicKey,
      logId: async () => ({
        logId: logIdOf(this.publicKey),
        publicKey: this.publicKey,
        ...(withVrfKey ? { vrfPublicKey: this.vrfPublicKey } : {}),
      }),
      vrf: async (address) => ({
        address,
        index: this.vrfIndexOf(address),
        vrfProof: this.vrfProof(address),
      }),
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
