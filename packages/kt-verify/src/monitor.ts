import {
  bytesToHex,
  encodeBase64,
  equalBytes,
  isValidAddress,
  normalizeAddress,
  SerialQueue,
} from "@svc/canonical";
import { CompactRange, leafHash, mapKey, SparseMerkleMap, verifyConsistency } from "@svc/merkle";
import { optionalKey, requireBytes } from "./arguments.js";
import { KtVerifyError } from "./errors.js";
import { decodeLeaf } from "./leaf.js";
import { decodeLeafV2, isLeafV2 } from "./leaf-v2.js";
import type { LogClient } from "./log-client.js";
import { verifySthSignature } from "./signature.js";
import { logIdOf, type SignedTreeHead } from "./sth.js";
import { vrfIndex } from "./vrf-index.js";

/** What a monitor reports: each verified tree head, then the watched addresses' changes in it. */
export type KtMonitorEvent =
  | {
      event: "sth";
      treeSize: number;
      timestampMs: number;
      rootHash: string;
      indexRoot: string;
    }
  | {
      event: "change";
      address: string;
      kind: "identity" | "tombstone";
      leafIndex: number;
      timestampMs: number;
      /**
       * The logged keys, base64: v1 leaves only. A v2 leaf (format 3) carries a commitment to
       * them, not the keys, so its change has none (fetch the bundle to see them).
       */
      identitySigningKey?: string;
      identityDHKey?: string;
      /**
       * A v2 identity leaf that follows another identity leaf of the address (no delete in
       * between): that leaf's index. The identity was logged again with a new commitment, which
       * covers the last-resort KEM key: the key was set or replaced.
       */
      previousLeafIndex?: number;
    };

export interface KtMonitorOptions {
  client: LogClient;
  /** The operator key the log's STHs must be signed with. */
  logPublicKey: Uint8Array;
  /** Addresses whose key changes are reported (normalized here). */
  watch?: readonly string[];
  /**
   * The log's VRF public key (32 bytes), under which the watched addresses' VRF proofs are
   * checked to find their v2 leaves. Without it, it is read from GET /v1/kt/log_id (the
   * client's `logId()`) when a v2 leaf first comes with addresses to watch.
   */
  vrfPublicKey?: Uint8Array;
  onEvent: (event: KtMonitorEvent) => void;
}

export interface KtMonitorFollowOptions {
  /** Pause between two polls. */
  intervalMs: number;
  /** Ends the polling; `follow` then resolves. */
  signal?: AbortSignal;
  /** An unreachable log (KT_FETCH_FAILED) is reported here and polled again. */
  onUnreachable?: (error: KtVerifyError) => void;
}

/**
 * Follows a log as an auditor: replays every leaf, checks that each new STH is signed, extends
 * the previous one (consistency proof), and has exactly the log root and index root of the leaves
 * served; reports the changes of watched addresses once the STH covering them checked out.
 * The index root is format 3 (VRF index -> leaf hash of the latest v2 leaf, over v2 leaves only)
 * for a tree holding a v2 leaf, else format 2 (SHA-256(address) -> latest v1 leaf). A watched
 * address's v2 leaves are found by its VRF index, fetched once (GET /v1/kt/vrf/{address}) and
 * verified under the VRF key (KT_BAD_PROOF if it does not verify).
 * Any failed check throws KtVerifyError (KT_FORK, KT_LOG_SHRANK, KT_BAD_SIGNATURE, ...), and every
 * later step throws it again: a log caught lying stays caught.
 */
export class KtMonitor {
  readonly #client: LogClient;
  readonly #logPublicKey: Uint8Array;
  readonly #logId: Uint8Array;
  readonly #watch: ReadonlySet<string>;
  readonly #onEvent: (event: KtMonitorEvent) => void;
  readonly #range = new CompactRange();
  /** Format 2: SHA-256(address) -> leaf hash of the address's latest v1 leaf. */
  readonly #index = new SparseMerkleMap();
  /** Format 3: VRF index -> leaf hash of the latest v2 leaf of that index. */
  readonly #privateIndex = new SparseMerkleMap();
  #sawLeafV2 = false;
  #vrfPublicKey: Uint8Array | undefined;
  /** The watched addresses by VRF index (hex), once fetched and verified. */
  #watchedIndexes: Map<string, string> | undefined;
  /** The latest v2 identity leaf of each watched index (hex) not deleted since. */
  readonly #watchedIdentities = new Map<string, number>();
  /** Changes replayed but not yet reported: their STH has not checked out yet. */
  #pending: KtMonitorEvent[] = [];
  #trusted: SignedTreeHead | undefined;
  #failure: KtVerifyError | undefined;
  readonly #queue = new SerialQueue();

  constructor(options: KtMonitorOptions) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("options must be an object");
    }
    if (typeof options.client !== "object" || options.client === null) {
      throw new TypeError("options.client must be a LogClient");
    }
    if (typeof options.onEvent !== "function") {
      throw new TypeError("options.onEvent must be a function");
    }
    requireBytes(options.logPublicKey, "options.logPublicKey", 32);
    this.#client = options.client;
    this.#logPublicKey = options.logPublicKey;
    this.#logId = logIdOf(options.logPublicKey);
    this.#watch = new Set((options.watch ?? []).map(watchedAddress));
    this.#vrfPublicKey = optionalKey(options.vrfPublicKey, "options.vrfPublicKey");
    this.#onEvent = options.onEvent;
  }

  /** The last STH that checked out. */
  get trusted(): SignedTreeHead | undefined {
    return this.#trusted;
  }

  /** One poll: fetch the latest STH, check it, replay the new leaves. Polls run one at a time. */
  step(): Promise<SignedTreeHead> {
    return this.#queue.run(() => this.#poll());
  }

  /** Polls until `signal` aborts; throws on the first failed check. */
  async follow(options: KtMonitorFollowOptions): Promise<void> {
    const { intervalMs, signal, onUnreachable } = options;
    if (!Number.isSafeInteger(intervalMs) || intervalMs < 1) {
      throw new RangeError("options.intervalMs must be a positive integer");
    }
    while (!signal?.aborted) {
      try {
        await this.step();
      } catch (error) {
        if (!(error instanceof KtVerifyError && error.code === "KT_FETCH_FAILED")) throw error;
        onUnreachable?.(error);
      }
      await sleep(intervalMs, signal);
    }
  }

  async #poll(): Promise<SignedTreeHead> {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      return await this.#check();
    } catch (error) {
      if (error instanceof KtVerifyError && error.code !== "KT_FETCH_FAILED") {
        this.#failure = error;
      }
      throw error;
    }
  }

  async #check(): Promise<SignedTreeHead> {
    const sth = await this.#client.sth();
    if (!equalBytes(sth.logId, this.#logId)) {
      throw new KtVerifyError("KT_WRONG_LOG", "the STH names another log");
    }
    if (!(await verifySthSignature(sth, this.#logPublicKey))) {
      throw new KtVerifyError(
        "KT_BAD_SIGNATURE",
        `STH at size ${sth.treeSize} is not signed by the log`,
      );
    }
    const trusted = this.#trusted;
    if (trusted !== undefined) {
      if (sth.treeSize < trusted.treeSize) {
        throw new KtVerifyError(
          "KT_LOG_SHRANK",
          `the log's latest size ${sth.treeSize} is below the ${trusted.treeSize} it signed before`,
        );
      }
      if (sth.treeSize === trusted.treeSize) {
        if (
          !equalBytes(sth.rootHash, trusted.rootHash) ||
          !equalBytes(sth.indexRoot, trusted.indexRoot)
        ) {
          throw new KtVerifyError("KT_FORK", `two different STHs at size ${sth.treeSize}`);
        }
        this.#trusted = sth;
        return sth;
      }
      const proof = await this.#client.consistency(trusted.treeSize, sth.treeSize);
      if (
        !verifyConsistency(trusted.treeSize, sth.treeSize, trusted.rootHash, sth.rootHash, proof)
      ) {
        throw new KtVerifyError(
          "KT_FORK",
          `the log at size ${sth.treeSize} does not extend its STH at size ${trusted.treeSize}`,
        );
      }
    }
    await this.#replay(sth.treeSize);
    if (!equalBytes(this.#range.root(), sth.rootHash)) {
      throw new KtVerifyError(
        "KT_BAD_PROOF",
        `the leaves served do not hash to the root at size ${sth.treeSize}`,
      );
    }
    const indexRoot = this.#sawLeafV2 ? this.#privateIndex.root() : this.#index.root();
    if (!equalBytes(indexRoot, sth.indexRoot)) {
      throw new KtVerifyError(
        "KT_BAD_PROOF",
        `the leaves served do not give the format-${this.#sawLeafV2 ? 3 : 2} indexRoot at size ${sth.treeSize}`,
      );
    }
    this.#trusted = sth;
    this.#onEvent({
      event: "sth",
      treeSize: sth.treeSize,
      timestampMs: sth.timestampMs,
      rootHash: encodeBase64(sth.rootHash),
      indexRoot: encodeBase64(sth.indexRoot),
    });
    const changes = this.#pending;
    this.#pending = [];
    for (const change of changes) this.#onEvent(change);
    return sth;
  }

  /**
   * Appends the leaves up to `treeSize` to the range and the maps, keeping the watched changes
   * in `#pending`. A fetch that fails part-way leaves everything before it applied and pending:
   * the next poll goes on from there.
   */
  async #replay(treeSize: number): Promise<void> {
    while (this.#range.size < treeSize) {
      const leaves = await this.#client.leaves(this.#range.size, treeSize);
      if (this.#watch.size > 0 && leaves.some(isLeafV2)) await this.#resolveWatchedIndexes();
      for (const bytes of leaves) {
        if (isLeafV2(bytes)) this.#replayLeafV2(bytes);
        else this.#replayLeafV1(bytes);
      }
    }
  }

  #replayLeafV2(bytes: Uint8Array): void {
    const leaf = decodeLeafV2(bytes);
    const hash = leafHash(bytes);
    const leafIndex = this.#range.size;
    this.#range.append(hash);
    this.#privateIndex.set(leaf.index, hash);
    this.#sawLeafV2 = true;
    const index = bytesToHex(leaf.index);
    const address = this.#watchedIndexes?.get(index);
    if (address === undefined) return;
    const previousLeafIndex = this.#watchedIdentities.get(index);
    if (leaf.kind === "identity") this.#watchedIdentities.set(index, leafIndex);
    else this.#watchedIdentities.delete(index);
    this.#pending.push({
      event: "change",
      address,
      kind: leaf.kind,
      leafIndex,
      timestampMs: leaf.timestampMs,
      ...(leaf.kind === "identity" && previousLeafIndex !== undefined ? { previousLeafIndex } : {}),
    });
  }

  #replayLeafV1(bytes: Uint8Array): void {
    const leaf = decodeLeaf(bytes);
    const hash = leafHash(bytes);
    const leafIndex = this.#range.size;
    this.#range.append(hash);
    this.#index.set(mapKey(leaf.address), hash);
    if (!this.#watch.has(leaf.address)) return;
    this.#pending.push({
      event: "change",
      address: leaf.address,
      kind: leaf.kind,
      leafIndex,
      timestampMs: leaf.timestampMs,
      ...(leaf.kind === "identity"
        ? {
            identitySigningKey: encodeBase64(leaf.identitySigningKey),
            identityDHKey: encodeBase64(leaf.identityDHKey),
          }
        : {}),
    });
  }

  /**
   * The watched addresses' VRF indexes, fetched once (GET /v1/kt/vrf/{address}) and each proof
   * verified under the VRF key (the option, else GET /v1/kt/log_id's).
   */
  async #resolveWatchedIndexes(): Promise<void> {
    if (this.#watchedIndexes !== undefined) return;
    const client = this.#client;
    if (typeof client.vrf !== "function") {
      throw new TypeError("options.client needs vrf() to watch addresses in a format-3 log");
    }
    const vrfPublicKey = this.#vrfPublicKey ?? (await this.#logVrfPublicKey());
    const indexes = new Map<string, string>();
    for (const address of this.#watch) {
      const answer = await client.vrf(address);
      const index = vrfIndex(vrfPublicKey, answer.vrfProof, address);
      if (index === undefined || !equalBytes(index, answer.index)) {
        throw new KtVerifyError(
          "KT_BAD_PROOF",
          `the VRF proof of ${address} does not verify under the log's VRF key`,
        );
      }
      indexes.set(bytesToHex(index), address);
    }
    this.#vrfPublicKey = vrfPublicKey;
    this.#watchedIndexes = indexes;
  }

  async #logVrfPublicKey(): Promise<Uint8Array> {
    if (typeof this.#client.logId !== "function") {
      throw new TypeError("options.vrfPublicKey, or a client with logId(), is needed");
    }
    const id = await this.#client.logId();
    if (!equalBytes(id.publicKey, this.#logPublicKey)) {
      throw new KtVerifyError("KT_WRONG_LOG", "GET /v1/kt/log_id names another operator key");
    }
    if (id.vrfPublicKey === undefined) {
      throw new KtVerifyError(
        "KT_MALFORMED",
        "the log has v2 leaves but GET /v1/kt/log_id names no vrfPublicKey",
      );
    }
    return id.vrfPublicKey;
  }
}

function watchedAddress(address: string): string {
  if (typeof address !== "string" || !isValidAddress(address)) {
    throw new TypeError(`options.watch: ${String(address)} is not a valid address`);
  }
  return normalizeAddress(address);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
