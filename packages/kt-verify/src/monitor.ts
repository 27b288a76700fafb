import { encodeBase64, equalBytes, isValidAddress, normalizeAddress } from "@svc/canonical";
import { CompactRange, leafHash, mapKey, SparseMerkleMap, verifyConsistency } from "@svc/merkle";
import { KtVerifyError } from "./errors.js";
import { decodeLeaf } from "./leaf.js";
import type { LogClient } from "./log-client.js";
import { verifySthSignature } from "./signature.js";
import { logIdOf, type SignedTreeHead } from "./sth.js";

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
      identitySigningKey?: string;
      identityDHKey?: string;
    };

export interface KtMonitorOptions {
  client: LogClient;
  /** The operator key the log's STHs must be signed with. */
  logPublicKey: Uint8Array;
  /** Addresses whose key changes are reported (normalized here). */
  watch?: readonly string[];
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
  readonly #index = new SparseMerkleMap();
  #trusted: SignedTreeHead | undefined;
  #failure: KtVerifyError | undefined;
  #queue: Promise<unknown> = Promise.resolve();

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
    if (!(options.logPublicKey instanceof Uint8Array)) {
      throw new TypeError("options.logPublicKey must be a Uint8Array");
    }
    if (options.logPublicKey.length !== 32) {
      throw new RangeError("options.logPublicKey must be 32 bytes");
    }
    this.#client = options.client;
    this.#logPublicKey = options.logPublicKey;
    this.#logId = logIdOf(options.logPublicKey);
    this.#watch = new Set((options.watch ?? []).map(watchedAddress));
    this.#onEvent = options.onEvent;
  }

  /** The last STH that checked out. */
  get trusted(): SignedTreeHead | undefined {
    return this.#trusted;
  }

  /** One poll: fetch the latest STH, check it, replay the new leaves. Polls run one at a time. */
  step(): Promise<SignedTreeHead> {
    const run = this.#queue.then(() => this.#poll());
    this.#queue = run.catch(() => undefined);
    return run;
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
    const changes = await this.#replay(sth.treeSize);
    if (!equalBytes(this.#range.root(), sth.rootHash)) {
      throw new KtVerifyError(
        "KT_BAD_PROOF",
        `the leaves served do not hash to the root at size ${sth.treeSize}`,
      );
    }
    if (!equalBytes(this.#index.root(), sth.indexRoot)) {
      throw new KtVerifyError(
        "KT_BAD_PROOF",
        `the leaves served do not give the indexRoot at size ${sth.treeSize}`,
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
    for (const change of changes) this.#onEvent(change);
    return sth;
  }

  async #replay(treeSize: number): Promise<KtMonitorEvent[]> {
    const changes: KtMonitorEvent[] = [];
    while (this.#range.size < treeSize) {
      const leaves = await this.#client.leaves(this.#range.size, treeSize);
      for (const bytes of leaves) {
        const leaf = decodeLeaf(bytes);
        const hash = leafHash(bytes);
        const leafIndex = this.#range.size;
        this.#range.append(hash);
        this.#index.set(mapKey(leaf.address), hash);
        if (!this.#watch.has(leaf.address)) continue;
        changes.push({
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
    }
    return changes;
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
