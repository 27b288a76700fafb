import { equalBytes } from "@svc/canonical";
import {
  decodeLeafV2,
  type KtProof,
  type KtProofBody,
  leafCommitment,
  type SignedTreeHead,
} from "@svc/kt-verify";
import { type IdentityKeys, sameIdentity, sameKemKeyHash } from "./identity-keys.js";
import { type CachedProof, ProofCache } from "./proof-cache.js";

/**
 * The proofs made lately, and the latest STH as last read, each with the time it was read
 * (`performance.now()`): what a proof may be served from without reading the database, as long
 * as its STH was the latest at most `lagMs` ago.
 */
export class RecentProofs {
  readonly #proofs: ProofCache;
  readonly #lagMs: number;
  #latest: { sth: SignedTreeHead; readAt: number } | undefined;

  constructor(capacity: number, lagMs: number) {
    if (!Number.isFinite(lagMs) || lagMs < 0) {
      throw new RangeError("proofLagMs must be a non-negative number");
    }
    this.#proofs = new ProofCache(capacity);
    this.#lagMs = lagMs;
  }

  /** Records an STH read as the latest at `readAt`; an older head than the one known is ignored. */
  sawLatest(sth: SignedTreeHead, readAt: number): void {
    const known = this.#latest;
    if (known === undefined || isNewer(sth, known.sth)) {
      this.#latest = { sth, readAt: Math.max(readAt, known?.readAt ?? readAt) };
    } else if (sth.treeSize === known.sth.treeSize && sth.timestampMs === known.sth.timestampMs) {
      // The same head again: keep the object answers already use, read more recently.
      known.readAt = Math.max(readAt, known.readAt);
    }
  }

  /** The size of the latest STH known; 0 before any. */
  get knownSize(): number {
    return this.#latest?.sth.treeSize ?? 0;
  }

  /** True when the latest STH was read more than half the lag ago: time to read it again. */
  latestAging(now: number): boolean {
    return this.#latest === undefined || now - this.#latest.readAt > this.#lagMs / 2;
  }

  bodyAt(address: string, treeSize: number): KtProofBody | undefined {
    return this.#proofs.bodyAt(address, treeSize);
  }

  remember(address: string, proof: KtProof, readAt: number): void {
    this.#proofs.set(address, proof.sth, proof.body, readAt);
  }

  /**
   * `address`'s kept proof if it shows `identity` (see {@link proofShows}) and its STH was the
   * latest at most the lag ago: read so itself, or of the same size as the latest STH read since
   * (served under that one, the fresher signature).
   */
  showing(address: string, identity: IdentityKeys | undefined, now: number): KtProof | undefined {
    const entry = this.#proofs.get(address);
    if (entry === undefined || !this.#shows(entry, address, identity)) return undefined;
    const latest = this.#latest;
    if (
      latest !== undefined &&
      now - latest.readAt < this.#lagMs &&
      latest.sth.treeSize === entry.proof.sth.treeSize
    ) {
      return { sth: latest.sth, body: entry.proof.body };
    }
    return now - entry.readAt < this.#lagMs ? entry.proof : undefined;
  }

  /**
   * True when `address`'s kept proof is past three quarters of the lag and the log has grown past
   * its size: time to make it again, before fetches have to wait for that.
   */
  aging(address: string, now: number): boolean {
    const entry = this.#proofs.peek(address);
    if (entry === undefined || now - entry.readAt <= (this.#lagMs * 3) / 4) return false;
    return this.#latest === undefined || this.#latest.sth.treeSize !== entry.proof.sth.treeSize;
  }

  /** True when no body kept for `address` can be at the latest size known: none, or older. */
  outgrown(address: string): boolean {
    const entry = this.#proofs.peek(address);
    return (
      entry === undefined ||
      (this.#latest !== undefined && entry.proof.sth.treeSize < this.#latest.sth.treeSize)
    );
  }

  /** proofShows, remembering the keys an entry was last found to show: most fetches hash nothing. */
  #shows(entry: CachedProof, address: string, identity: IdentityKeys | undefined): boolean {
    const shown = entry.shown;
    if (identity !== undefined && shown !== undefined && sameIdentity(shown, identity)) return true;
    if (!proofShows(entry.proof, address, identity)) return false;
    if (identity !== undefined) {
      const { identitySigningKey, identityDHKey, kemKeyHash } = identity;
      entry.shown = { identitySigningKey, identityDHKey, kemKeyHash };
    }
    return true;
  }
}

/**
 * Whether `proof` shows `address` as `identity` says: an identity leaf committing to exactly
 * these keys and last-resort KEM key hash (or none, when `identity` has none), or (undefined) a
 * tombstone or absence.
 */
export function proofShows(
  proof: KtProof,
  address: string,
  identity: IdentityKeys | undefined,
): boolean {
  const { body } = proof;
  if (identity === undefined) return body.type !== "inclusion";
  if (body.type !== "inclusion" || body.opening === undefined) return false;
  if (!sameKemKeyHash(body.kemKeyHash, identity.kemKeyHash)) return false;
  const { commitment } = decodeLeafV2(body.leaf);
  return equalBytes(commitment, leafCommitment(body.opening, address, identity));
}

function isNewer(sth: SignedTreeHead, than: SignedTreeHead): boolean {
  return (
    sth.treeSize > than.treeSize ||
    (sth.treeSize === than.treeSize && sth.timestampMs > than.timestampMs)
  );
}
