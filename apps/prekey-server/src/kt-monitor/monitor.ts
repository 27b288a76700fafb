import { encodeBase64 } from "@svc/canonical";
import {
  decodeLeaf,
  KtVerifyError,
  type LogClient,
  logIdOf,
  type SignedTreeHead,
  verifySthSignature,
} from "@svc/kt-verify";
import {
  CompactRange,
  equalBytes,
  leafHash,
  mapKey,
  SparseMerkleMap,
  verifyConsistency,
} from "@svc/merkle";

/** What the monitor reports, one JSON object per line. */
export type MonitorEvent =
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
  /** Normalized addresses whose key changes are reported. */
  watch: readonly string[];
  onEvent: (event: MonitorEvent) => void;
}

/**
 * Follows a log as an auditor: replays every leaf, checks that each new STH is signed, extends
 * the previous one (consistency proof), and has exactly the log root and index root of the leaves
 * served; reports the changes of watched addresses once the STH covering them checked out.
 * Any failed check throws KtVerifyError (KT_FORK, KT_LOG_SHRANK, KT_BAD_SIGNATURE, ...).
 */
export class KtMonitor {
  readonly #options: KtMonitorOptions;
  readonly #logId: Uint8Array;
  readonly #watch: ReadonlySet<string>;
  readonly #range = new CompactRange();
  readonly #index = new SparseMerkleMap();
  #trusted: SignedTreeHead | undefined;

  constructor(options: KtMonitorOptions) {
    this.#options = options;
    this.#logId = logIdOf(options.logPublicKey);
    this.#watch = new Set(options.watch);
  }

  /** The last STH that checked out. */
  get trusted(): SignedTreeHead | undefined {
    return this.#trusted;
  }

  /** One poll: fetch the latest STH, check it, replay the new leaves. */
  async step(): Promise<SignedTreeHead> {
    const { client } = this.#options;
    const sth = await client.sth();
    if (!equalBytes(sth.logId, this.#logId)) {
      throw new KtVerifyError("KT_WRONG_LOG", "the STH names another log");
    }
    if (!(await verifySthSignature(sth, this.#options.logPublicKey))) {
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
      const proof = await client.consistency(trusted.treeSize, sth.treeSize);
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
    this.#options.onEvent({
      event: "sth",
      treeSize: sth.treeSize,
      timestampMs: sth.timestampMs,
      rootHash: encodeBase64(sth.rootHash),
      indexRoot: encodeBase64(sth.indexRoot),
    });
    for (const change of changes) this.#options.onEvent(change);
    return sth;
  }

  async #replay(treeSize: number): Promise<MonitorEvent[]> {
    const changes: MonitorEvent[] = [];
    while (this.#range.size < treeSize) {
      const leaves = await this.#options.client.leaves(this.#range.size, treeSize);
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
