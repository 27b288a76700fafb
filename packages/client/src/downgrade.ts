import { ClientError } from "./errors.js";
import { dictionary, type PeerKeys, type StoredState } from "./state.js";
import { sameKeys } from "./trust.js";

/** The part of a bundle that says whether the peer can do PQXDH. */
type BundleKeys = PeerKeys & { kemPreKey?: unknown };

/**
 * Refuses a bundle served without a KEM prekey for a peer once seen with one under the same
 * identity keys: only a peer's new identity (which trust() decides on) may come without one.
 */
export function refuseDowngrade(state: StoredState, peer: string, bundle: BundleKeys): void {
  const trusted = state.peers[peer];
  if (bundle.kemPreKey !== undefined || state.postQuantumPeers?.[peer] !== true) return;
  if (trusted === undefined || !sameKeys(trusted, bundle)) return;
  throw pqDowngrade(
    peer,
    "it was served with an ML-KEM prekey before, under the same identity keys",
  );
}

/** Remembers that the trusted identity of `peer` has KEM prekeys, once a bundle shows one. */
export function rememberPostQuantum(state: StoredState, peer: string, bundle: BundleKeys): void {
  const trusted = state.peers[peer];
  if (bundle.kemPreKey === undefined || trusted === undefined || !sameKeys(trusted, bundle)) return;
  state.postQuantumPeers ??= dictionary();
  state.postQuantumPeers[peer] = true;
}

/** Forgets it: the peer's identity keys were replaced (trust() accepted others). */
export function forgetPostQuantum(state: StoredState, peer: string): void {
  delete state.postQuantumPeers?.[peer];
}

export function pqDowngrade(peer: string, why: string, cause?: unknown): ClientError {
  return new ClientError(
    "PQ_DOWNGRADE",
    `the bundle of ${peer} carries no ML-KEM prekey, but ${why}: refused rather than fall back to classic X3DH`,
    cause === undefined ? {} : { cause },
  );
}
