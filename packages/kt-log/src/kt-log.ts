import { equalBytes } from "@svc/canonical";
import type { Storage } from "@svc/db";
import {
  decodeLeafV2,
  defaultOrigin,
  deviceListCommitment,
  deviceListSubject,
  type KtProof,
  type KtProofBody,
  type SignedTreeHead,
} from "@svc/kt-verify";
import {
  assembleProof,
  consistencyProofPlan,
  emptyMapRoot,
  emptyRoot,
  inclusionProofPlan,
  type MapRows,
  mapProofFromRows,
  mapRowCoords,
  proofPlanNodes,
} from "@svc/merkle";
import { createBatcher } from "@svc/node-kit";
import { isValidKeyName } from "@svc/signed-note";
import {
  type Appended,
  appendGuarded,
  appendLocked,
  changeCommitment,
  type KtChange,
  type RightEdge,
} from "./append-batch.js";
import { KtLogError } from "./errors.js";
import type { CurrentIdentities, IdentityKeys } from "./identity-keys.js";
import { distinct, pathContinues, readRowsFor, shallowDepth } from "./index-map-rows.js";
import {
  insertLogIdentity,
  insertSth,
  lockSequencer,
  readLatestLeaf,
  readLeaves,
  readLogIdentity,
  readMapRows,
  readProofState,
  readSth,
  readSubtrees,
  type StoredLeaf,
  updateSth,
} from "./log-store.js";
import { migrateToVrf } from "./migrate-to-vrf.js";
import { proofShows, RecentProofs } from "./recent-proofs.js";
import type { SthSigner } from "./signer.js";
import { type AddressIndex, VrfIndexes } from "./vrf-indexes.js";
import { Checkpoints } from "./witnesses/checkpoints.js";
import { type WitnessEndpoint, type WitnessEvent, Witnessing } from "./witnesses/witnessing.js";

export interface KtLogOptions {
  storage: Storage;
  signer: SthSigner;
  /** The operator's VRF secret key (32 bytes): map keys are VRF outputs of addresses. */
  vrfSecretKey: Uint8Array;
  now?: () => number;
  /** Called once per STH the log signs (every append, the size-0 head, refreshes). */
  onPublish?: (sth: SignedTreeHead) => void;
  /** Most changes appended in one transaction; default 256. */
  maxBatch?: number;
  /** Addresses whose latest proof is kept for reuse; 10,000. */
  cachedProofs?: number;
  /**
   * How long ago a kept proof's STH may have been the latest for {@link KtLog.proofShowing} to
   * answer it without reading the database; default 1000 ms.
   */
  proofLagMs?: number;
  /** Most leaves one {@link KtLog.leaves} call returns; default {@link MAX_LEAVES_PER_READ}. */
  leavesPerRead?: number;
  /** The checkpoints' origin line and note key name; default `defaultOrigin(logId)`. */
  origin?: string;
  /** Witnesses each new tree head is sent to before its appends resolve. */
  witnesses?: readonly WitnessEndpoint[];
  /** Per witness submission; default 3 s. */
  witnessTimeoutMs?: number;
  onWitness?: (event: WitnessEvent) => void;
  /** For tests: how witnesses are reached. */
  fetch?: typeof fetch;
  /** For test vectors: where leaf commitment openings come from; default 32 random bytes. */
  newOpening?: () => Uint8Array;
  /**
   * The directory's current identities, read in each append's own sequencing: an identity or
   * tombstone change that is no longer its address's current state is not appended (see
   * Appended), so the log's latest leaf of an address is the state committed last even when
   * instances append in another order than they committed.
   */
  currentIdentities?: CurrentIdentities;
}

/** Leaves per GET /v1/kt/leaves answer. */
export const MAX_LEAVES_PER_READ = 1000;

/**
 * The index map's format, recorded with the log: 3 = the compressed map keyed by VRF indexes over
 * v2 leaves; 2 = the compressed map keyed by SHA-256(address) over v1 leaves (migrated to 3 at
 * start, see migrate-to-vrf.ts); 1 = the uncompressed 256-level map of early development builds.
 */
export const INDEX_MAP_FORMAT = 3;

/** How long aging proofs are gathered before they are made again together. */
const RENEWAL_GATHER_MS = 50;

/** Most proofs made from one set of reads. */
const PROOFS_PER_BATCH = 64;

const LEAF_KIND_OFFSET = 15;
const TOMBSTONE = 2;

/** Any 32 bytes: append checks a change's address and keys by committing to them. */
const OPENING_CHECK = new Uint8Array(32);

/**
 * The key-transparency log over the database: appends are sequenced across instances by an
 * advisory lock and batched within one; every change gets its own signed tree head, published
 * (committed) before `append` resolves.
 */
export class KtLog {
  readonly #storage: Storage;
  readonly #signer: SthSigner;
  readonly #now: () => number;
  readonly #onPublish: (sth: SignedTreeHead) => void;
  readonly #maxBatch: number;
  readonly #leavesPerRead: number;
  readonly #appendChange: (change: KtChange) => Promise<Appended>;
  readonly #proofs: RecentProofs;
  readonly #prove: (address: string) => Promise<KtProof>;
  readonly #indexes: VrfIndexes;
  readonly #newOpening: (() => Uint8Array) | undefined;
  readonly #currentIdentities: CurrentIdentities | undefined;
  readonly #checkpoints: Checkpoints;
  readonly #append: typeof appendLocked;
  readonly #witnessing: Witnessing | undefined;
  #edge: RightEdge | undefined;
  #readingLatest = false;
  /** Addresses whose kept proofs are gathered for the next renewal, and those being renewed. */
  readonly #aging = new Set<string>();
  readonly #renewing = new Set<string>();
  #renewal: ReturnType<typeof setTimeout> | undefined;

  private constructor(options: KtLogOptions) {
    this.#storage = options.storage;
    this.#signer = options.signer;
    this.#now = options.now ?? Date.now;
    this.#onPublish = options.onPublish ?? (() => {});
    this.#maxBatch = options.maxBatch ?? 256;
    this.#leavesPerRead = options.leavesPerRead ?? MAX_LEAVES_PER_READ;
    this.#proofs = new RecentProofs(options.cachedProofs ?? 10_000, options.proofLagMs ?? 1000);
    this.#indexes = new VrfIndexes(options.vrfSecretKey);
    this.#newOpening = options.newOpening;
    this.#currentIdentities = options.currentIdentities;
    // The embedded database has one session, which a transaction would hold across round trips
    // while every bundle pop waited; one process reaches it, so there is no other instance to
    // take turns with.
    this.#append = this.#storage.kind === "pglite" ? appendGuarded : appendLocked;
    const origin = options.origin ?? defaultOrigin(this.#signer.logId);
    if (!isValidKeyName(origin)) {
      throw new RangeError("origin must be a note key name: not empty, no '+' and no spaces");
    }
    this.#checkpoints = new Checkpoints({
      db: this.#storage.db,
      origin,
      signer: this.#signer.noteSigner(origin),
      now: this.#now,
    });
    this.#witnessing =
      options.witnesses && options.witnesses.length > 0
        ? new Witnessing({
            db: this.#storage.db,
            witnesses: options.witnesses,
            checkpoints: this.#checkpoints,
            consistency: async (from, to) => (await this.consistencyProof(from, to)).proof,
            now: this.#now,
            ...(options.witnessTimeoutMs === undefined
              ? {}
              : { timeoutMs: options.witnessTimeoutMs }),
            ...(options.onWitness ? { onEvent: options.onWitness } : {}),
            ...(options.fetch ? { fetch: options.fetch } : {}),
          })
        : undefined;
    this.#prove = createBatcher((addresses: string[]) => this.#proveBatch(addresses), {
      concurrency: this.#storage.batchConcurrency,
      maxBatch: PROOFS_PER_BATCH,
    });
    for (const [name, value] of [
      ["maxBatch", this.#maxBatch],
      ["leavesPerRead", this.#leavesPerRead],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`${name} must be a positive integer`);
      }
    }
    this.#appendChange = createBatcher((changes: KtChange[]) => this.#appendBatch(changes), {
      concurrency: 1,
      maxBatch: this.#maxBatch,
      start: "now",
    });
  }

  /**
   * Opens the log, creating it (identity row and the size-0 STH) on first start. Refuses a
   * database whose log was created with another operator key.
   */
  static async open(options: KtLogOptions): Promise<KtLog> {
    const log = new KtLog(options);
    const published = await log.#storage.db.transaction(async (tx) => {
      await lockSequencer(tx);
      const signer = log.#signer;
      const stored = await readLogIdentity(tx);
      const vrfPublicKey = log.#indexes.publicKey;
      if (stored === undefined) {
        await insertLogIdentity(
          tx,
          {
            logId: signer.logId,
            publicKey: signer.publicKey,
            indexMapFormat: INDEX_MAP_FORMAT,
            vrfPublicKey,
          },
          log.#now(),
        );
      } else if (!equalBytes(stored.logId, signer.logId)) {
        throw new KtLogError(
          "SVC_INTERNAL",
          "this database's key-transparency log was created with another signing key " +
            `(logId ${Buffer.from(stored.logId).toString("base64")}); every instance must use ` +
            "the same SVC_KT_SIGNING_KEY",
        );
      } else if (stored.indexMapFormat === 2) {
        return migrateToVrf(tx, signer, log.#indexes, log.#now());
      } else if (stored.indexMapFormat !== INDEX_MAP_FORMAT) {
        throw new KtLogError(
          "SVC_INTERNAL",
          `this database's key-transparency log hashes its index map in format ${stored.indexMapFormat} ` +
            `(a development build); this build writes format ${INDEX_MAP_FORMAT} and cannot extend ` +
            "it: start on a new database, or empty its kt_* tables (docs/operations.md)",
        );
      } else if (stored.vrfPublicKey === null || !equalBytes(stored.vrfPublicKey, vrfPublicKey)) {
        throw new KtLogError(
          "SVC_INTERNAL",
          "this database's key-transparency log was created with another VRF key; every " +
            "instance must use the same SVC_KT_VRF_KEY",
        );
      }
      if ((await readSth(tx, signer.logId, 0)) !== undefined) return undefined;
      const sth = signer.sign({
        treeSize: 0,
        timestampMs: log.#now(),
        rootHash: emptyRoot(),
        indexRoot: emptyMapRoot(),
      });
      await insertSth(tx, sth);
      return [sth];
    });
    for (const sth of published ?? []) log.#onPublish(sth);
    return log;
  }

  get publicKey(): Uint8Array {
    return this.#signer.publicKey.slice();
  }

  get logId(): Uint8Array {
    return this.#signer.logId.slice();
  }

  /** The VRF public key the map's keys verify under. */
  get vrfPublicKey(): Uint8Array {
    return this.#indexes.publicKey.slice();
  }

  /** `address`'s map key and its VRF proof (GET /v1/kt/vrf/{address}); `address` normalized. */
  async vrfIndex(address: string): Promise<AddressIndex> {
    const [found] = await this.#indexes.lookup(this.#storage.db, [address]);
    return found as AddressIndex;
  }

  /** The origin line of the log's checkpoints, also the key name of their signature. */
  get origin(): string {
    return this.#checkpoints.origin;
  }

  /** The checkpoint of `sth`, signed by the operator, with its size's stored cosignatures. */
  checkpointFor(sth: SignedTreeHead): Promise<string> {
    return this.#checkpoints.cosigned(sth);
  }

  /**
   * Sends the latest checkpoint to each witness without a cosignature of the latest size, or
   * whose cosignature is `maxAgeMs` old: witnesses that were down, and fresh cosignature
   * timestamps for an idle log. Resolves when every witness has answered or failed.
   */
  async witnessLatest(maxAgeMs: number): Promise<void> {
    if (this.#witnessing === undefined) return;
    await this.#witnessing.catchUp(await this.latestSth(), maxAgeMs);
  }

  /**
   * Logs one identity change; resolves once its leaf and STH are committed, or once the change is
   * found superseded (see Appended). A change that cannot be encoded (bad address or key) is
   * refused here, so it never fails a batch of others.
   */
  append(change: KtChange): Promise<Appended> {
    try {
      changeCommitment(change, OPENING_CHECK);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#appendChange(change);
  }

  async latestSth(): Promise<SignedTreeHead> {
    const sth = await readSth(this.#storage.db, this.#signer.logId);
    if (sth === undefined) throw new KtLogError("SVC_STH_NOT_FOUND", "the log has no STH");
    return sth;
  }

  async sthAt(treeSize: number): Promise<SignedTreeHead> {
    const sth = await readSth(this.#storage.db, this.#signer.logId, treeSize);
    if (sth === undefined) throw new KtLogError("SVC_STH_NOT_FOUND", `no STH at size ${treeSize}`);
    return sth;
  }

  /** RFC 9162 consistency proof from `from` to `to` (default: the latest size). */
  async consistencyProof(
    from: number,
    to?: number,
  ): Promise<{ fromTreeSize: number; toTreeSize: number; proof: Uint8Array[] }> {
    const latest = (await this.latestSth()).treeSize;
    const target = to ?? latest;
    if (target > latest) throw badRequest(`to (${target}) is past the latest size (${latest})`);
    if (from > target) throw badRequest(`from (${from}) must not exceed to (${target})`);
    const plan = consistencyProofPlan(from, target);
    const nodes = await readSubtrees(this.#storage.db, proofPlanNodes(plan));
    return { fromTreeSize: from, toTreeSize: target, proof: assembleProof(plan, nodes) };
  }

  /** Leaves from `start`, up to `end` (default: the latest size), at most `leavesPerRead`. */
  async leaves(start: number, end?: number): Promise<{ start: number; leaves: Uint8Array[] }> {
    const latest = (await this.latestSth()).treeSize;
    const last = end ?? latest;
    if (last > latest) throw badRequest(`end (${last}) is past the latest size (${latest})`);
    if (start > last) throw badRequest(`start (${start}) must not exceed end (${last})`);
    const leaves = await readLeaves(
      this.#storage.db,
      start,
      Math.min(last, start + this.#leavesPerRead),
    );
    return { start, leaves };
  }

  /**
   * The proof for `address` under the latest STH, read from one snapshot: inclusion of its
   * latest leaf (an identity or a tombstone), or absence from the index. Concurrent calls share
   * their reads (createBatcher): each batch's reads start after all of its calls arrived, so a
   * proof always reflects every change committed before it was asked for.
   */
  proofFor(address: string): Promise<KtProof> {
    return this.#prove(address);
  }

  /**
   * The proof that version `listHash` of `account`'s device list is the latest the log holds (or,
   * without `listHash`, that the account never had one), under the latest STH; undefined when the
   * log shows something else (a version being appended, or one written since the caller read).
   */
  async deviceListProof(
    account: string,
    listHash: Uint8Array | undefined,
  ): Promise<KtProof | undefined> {
    const proof = await this.proofFor(deviceListSubject(account));
    const { body } = proof;
    if (listHash === undefined) return body.type === "absence" ? proof : undefined;
    if (body.type !== "inclusion" || body.opening === undefined) return undefined;
    const commitment = deviceListCommitment(body.opening, account, listHash);
    return equalBytes(decodeLeafV2(body.leaf).commitment, commitment) ? proof : undefined;
  }

  /**
   * A proof of what the caller read for `address`: `identity`'s keys, or undefined when the
   * address is not registered. A kept proof that shows exactly that, under an STH that was the
   * latest at most `proofLagMs` ago, is answered without reading the database; any other answer
   * is proved afresh under the latest STH, so a bundle read after a change proves that change.
   * Undefined when even the latest STH does not show it (the change is not logged yet).
   */
  async proofShowing(
    address: string,
    identity: IdentityKeys | undefined,
  ): Promise<KtProof | undefined> {
    const now = performance.now();
    if (this.#proofs.latestAging(now)) this.#readLatestAside();
    const kept = this.#proofs.showing(address, identity, now);
    if (kept !== undefined) {
      if (this.#proofs.aging(address, now)) this.#renewAside(address);
      return kept;
    }
    const fresh = await this.proofFor(address);
    return proofShows(fresh, address, identity) ? fresh : undefined;
  }

  /**
   * Reads the latest STH for the kept proofs, and its checkpoint's cosignatures, beside the
   * requests, one read at a time: while fetches come, none of them waits for either.
   */
  #readLatestAside(): void {
    if (this.#readingLatest) return;
    this.#readingLatest = true;
    const readAt = performance.now();
    readSth(this.#storage.db, this.#signer.logId)
      .then(async (sth) => {
        if (sth === undefined) return;
        this.#proofs.sawLatest(sth, readAt);
        await this.#checkpoints.reread(sth);
      })
      // A failed read only leaves the kept proofs and notes to age: the next request reads.
      .catch(() => {})
      .finally(() => {
        this.#readingLatest = false;
      });
  }

  /**
   * Makes `address`'s proof again under the latest STH, and reads that STH's cosigned checkpoint,
   * beside the requests, while its kept proof still answers them: fetches of an address whose
   * proof ages as the log grows do not wait for the new one. Addresses found aging within
   * {@link RENEWAL_GATHER_MS} are renewed together, in one batch of reads.
   */
  #renewAside(address: string): void {
    if (this.#renewing.has(address) || this.#aging.has(address)) return;
    this.#aging.add(address);
    if (this.#renewal !== undefined) return;
    this.#renewal = setTimeout(() => {
      this.#renewal = undefined;
      const addresses = [...this.#aging];
      this.#aging.clear();
      for (const renewed of addresses) this.#renewing.add(renewed);
      const heads = new Set<SignedTreeHead>();
      Promise.all(
        addresses.map((renewed) => this.proofFor(renewed).then((proof) => heads.add(proof.sth))),
      )
        .then(() => Promise.all([...heads].map((sth) => this.#checkpoints.cosigned(sth))))
        // A failed renewal leaves the kept proofs to age: the fetch after the lag proves afresh.
        .catch(() => {})
        .finally(() => {
          for (const renewed of addresses) this.#renewing.delete(renewed);
        });
    }, RENEWAL_GATHER_MS);
    this.#renewal.unref();
  }

  async #proveBatch(addresses: string[]): Promise<KtProof[]> {
    const readAt = performance.now();
    // The cheap read first: while no change has grown the log, the bodies made earlier still
    // hold. Skipped when the log is known to have grown past every body kept for these addresses.
    const latest = addresses.every((address) => this.#proofs.outgrown(address))
      ? undefined
      : await this.latestSth();
    if (latest !== undefined) this.#proofs.sawLatest(latest, readAt);
    const proofs = addresses.map((address): KtProof | undefined => {
      if (latest === undefined) return undefined;
      const body = this.#proofs.bodyAt(address, latest.treeSize);
      return body && { sth: latest, body };
    });
    const missing = addresses.filter((_, i) => proofs[i] === undefined);
    const made =
      missing.length === 0
        ? []
        : await this.#makeProofs(missing, shallowDepth(this.#proofs.knownSize + missing.length));
    if (made[0] !== undefined) this.#proofs.sawLatest(made[0].sth, readAt);
    const answered = proofs.map((proof) => proof ?? (made.shift() as KtProof));
    for (const [i, proof] of answered.entries()) {
      this.#proofs.remember(addresses[i] as string, proof, readAt);
    }
    return answered;
  }

  /**
   * Proofs for `addresses` made afresh, all under the STH of one snapshot; map paths read down
   * to `depth` (the few that go deeper are read again in a transaction of their own).
   */
  async #makeProofs(addresses: string[], depth: number): Promise<KtProof[]> {
    const db = this.#storage.db;
    const vrf = await this.#indexes.lookup(db, addresses);
    const keys = vrf.map((v) => v.index);
    const state = await readProofState(
      db,
      this.#signer.logId,
      addresses,
      distinct(keys.flatMap((key) => mapRowCoords(key, 0, depth))),
    );
    const { sth, leaves, mapRows } = state;
    if (sth === undefined) throw new KtLogError("SVC_STH_NOT_FOUND", "the log has no STH");
    // Subtree hashes may be read afterwards and outside the snapshot: the nodes a proof at the
    // STH's size needs are complete subtrees, never rewritten.
    const plans = addresses.map((_, i) => {
      const leaf = leaves.get(i);
      return leaf && inclusionProofPlan(leaf.leafIndex, sth.treeSize);
    });
    const nodes = await readSubtrees(
      db,
      plans.flatMap((plan) => (plan ? proofPlanNodes(plan) : [])),
    );
    return Promise.all(
      addresses.map((address, i) => {
        const key = keys[i] as Uint8Array;
        if (pathContinues(key, depth, mapRows)) {
          return this.#proofInOneSnapshot(address, vrf[i] as AddressIndex);
        }
        return proofFrom(vrf[i] as AddressIndex, sth, leaves.get(i), mapRows, nodes);
      }),
    );
  }

  #proofInOneSnapshot(address: string, vrf: AddressIndex): Promise<KtProof> {
    return this.#storage.db.transaction(
      async (tx) => {
        const key = vrf.index;
        const sth = await readSth(tx, this.#signer.logId);
        if (sth === undefined) throw new KtLogError("SVC_STH_NOT_FOUND", "the log has no STH");
        const leaf = await readLatestLeaf(tx, address, sth.treeSize);
        const mapRows = await readRowsFor([key], shallowDepth(sth.treeSize), (coords) =>
          readMapRows(tx, coords),
        );
        const plan = leaf && inclusionProofPlan(leaf.leafIndex, sth.treeSize);
        const nodes = await readSubtrees(tx, plan ? proofPlanNodes(plan) : []);
        return proofFrom(vrf, sth, leaf, mapRows, nodes);
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    );
  }

  /**
   * Re-signs the latest STH with the current time when it is `maxAgeMs` old or older, so clients
   * (which refuse STHs older than their maxStaleMs) keep accepting an idle log.
   */
  async refresh(maxAgeMs: number): Promise<SignedTreeHead | undefined> {
    const refreshed = await this.#storage.db.transaction(async (tx) => {
      await lockSequencer(tx);
      const latest = await readSth(tx, this.#signer.logId);
      const now = this.#now();
      if (latest === undefined || now - latest.timestampMs < maxAgeMs) return undefined;
      const sth = this.#signer.sign({ ...latest, timestampMs: Math.max(now, latest.timestampMs) });
      await updateSth(tx, sth);
      return sth;
    });
    if (refreshed !== undefined) {
      this.#proofs.sawLatest(refreshed, performance.now());
      this.#onPublish(refreshed);
    }
    return refreshed;
  }

  /** Appends a batch of changes, in the order they came. */
  async #appendBatch(changes: KtChange[]): Promise<Appended[]> {
    try {
      // Looked up (or proved) for the whole batch at once.
      const vrf = await this.#indexes.lookup(
        this.#storage.db,
        changes.map((change) => change.address),
      );
      const { appended, edge } = await this.#append(this.#storage.db, {
        signer: this.#signer,
        changes: changes.map((change, i) => ({ ...change, vrf: vrf[i] as AddressIndex })),
        timestamp: this.#now(),
        edge: this.#edge,
        ...(this.#newOpening ? { newOpening: this.#newOpening } : {}),
        ...(this.#currentIdentities ? { currentIdentities: this.#currentIdentities } : {}),
      });
      this.#edge = edge;
      const signed = appended.filter((result) => !result.superseded);
      const newest = signed[signed.length - 1]?.sth;
      if (newest === undefined) return appended;
      // Committed first: a witness must never hold a size the database could still lose.
      await this.#witnessing?.publish(newest);
      this.#proofs.sawLatest(newest, performance.now());
      for (const result of signed) this.#onPublish(result.sth);
      return appended;
    } catch (error) {
      this.#edge = undefined;
      throw error;
    }
  }
}

/**
 * The proof for an address (its VRF index and proof) from what was read: its latest leaf under
 * `sth` with the leaf's opening, map rows, subtree hashes.
 */
function proofFrom(
  vrf: AddressIndex,
  sth: SignedTreeHead,
  leaf: StoredLeaf | undefined,
  mapRows: MapRows,
  nodes: Map<string, Uint8Array>,
): KtProof {
  const indexProof = mapProofFromRows(vrf.index, mapRows);
  if (leaf === undefined) {
    return { sth, body: { type: "absence", indexProof, vrfProof: vrf.proof } as KtProofBody };
  }
  if (!leaf.opening) throw new Error(`leaf ${leaf.leafIndex} is not a v2 leaf`);
  const auditPath = assembleProof(inclusionProofPlan(leaf.leafIndex, sth.treeSize), nodes);
  const tombstone = leaf.leaf[LEAF_KIND_OFFSET] === TOMBSTONE;
  return {
    sth,
    body: {
      type: tombstone ? "tombstone" : "inclusion",
      leaf: leaf.leaf,
      leafIndex: leaf.leafIndex,
      auditPath,
      indexProof,
      vrfProof: vrf.proof,
      opening: leaf.opening,
      ...(leaf.kemKeyHash && !tombstone ? { kemKeyHash: leaf.kemKeyHash } : {}),
    } as KtProofBody,
  };
}

function badRequest(message: string): KtLogError {
  return new KtLogError("SVC_BAD_REQUEST", message);
}
