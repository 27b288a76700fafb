import { decodeBase64 } from "@svc/canonical";
import type { IdentityKeys } from "@svc/protocol";
import type { ApiAnswer } from "./api.js";
import { forgetPostQuantum, rememberPostQuantum } from "./downgrade.js";
import { ClientError } from "./errors.js";
import { identityFingerprint, safetyNumber } from "./safety-number.js";
import { dictionary, type PeerKeys, type StoredBundle, type StoredState } from "./state.js";

/** What trust() did. */
export interface TrustResult {
  address: string;
  /** False when the directory still has the keys trusted here (nothing was accepted). */
  changed: boolean;
  /** The fingerprint of the keys trusted before, null for a peer not known before. */
  previousFingerprint: string | null;
  /** The fingerprint of the keys trusted now. */
  fingerprint: string;
}

/** A safety number (docs/protocol.md §16) with a peer, from the keys trusted here. */
export interface SafetyNumberReport {
  address: string;
  /** 60 digits, the same on both sides. */
  safetyNumber: string;
  /** The peer's identity fingerprint. */
  fingerprint: string;
  /** This identity's fingerprint. */
  ownFingerprint: string;
  /** Other keys seen for the peer and not trusted yet (IDENTITY_CHANGED): their number. */
  changed?: { safetyNumber: string; fingerprint: string };
}

export function keysOf(stored: PeerKeys): IdentityKeys {
  return {
    identitySigningKey: decodeBase64(stored.identitySigningKey, 32),
    identityDHKey: decodeBase64(stored.identityDHKey, 32),
  };
}

/** Public keys, so a plain comparison of their (canonical, strict) base64 is enough. */
export function sameKeys(a: PeerKeys, b: PeerKeys): boolean {
  return a.identitySigningKey === b.identitySigningKey && a.identityDHKey === b.identityDHKey;
}

export function fingerprintOf(keys: PeerKeys): string {
  return identityFingerprint(keysOf(keys));
}

/** A bundle answer as kept for a later session: its keys, without the ktProof checked already. */
export function storedBundle(json: ApiAnswer<"keysBundle">): StoredBundle {
  return {
    identitySigningKey: json.identitySigningKey,
    identityDHKey: json.identityDHKey,
    signedPreKey: { ...json.signedPreKey },
    ...(json.oneTimePreKey ? { oneTimePreKey: { ...json.oneTimePreKey } } : {}),
    ...(json.kemPreKey ? { kemPreKey: { ...json.kemPreKey } } : {}),
  };
}

/** ClientError IDENTITY_CHANGED for `address`, naming both fingerprints. */
export function identityChanged(
  address: string,
  trusted: PeerKeys,
  seen: PeerKeys,
  where: string,
  options: { msgId?: string } = {},
): ClientError {
  const identityChange = {
    address,
    trustedFingerprint: fingerprintOf(trusted),
    newFingerprint: fingerprintOf(seen),
  };
  return new ClientError(
    "IDENTITY_CHANGED",
    `the identity keys of ${address} changed: trusted here ${identityChange.trustedFingerprint}, ${where} ${identityChange.newFingerprint}`,
    { ...options, identityChange },
  );
}

/** Sending to a peer with other keys seen and not decided on is refused. */
export function refuseIfChanged(state: StoredState, peer: string): void {
  const changed = state.changedPeers?.[peer];
  const trusted = state.peers[peer];
  if (changed === undefined || trusted === undefined) return;
  throw identityChanged(peer, trusted, changed, "now the directory has");
}

/** Remembers other keys the directory has for a known peer, and the verified bundle with them. */
export function recordChange(
  state: StoredState,
  peer: string,
  seen: PeerKeys,
  bundle: StoredBundle,
): void {
  state.changedPeers ??= dictionary();
  state.changedPeers[peer] = {
    identitySigningKey: seen.identitySigningKey,
    identityDHKey: seen.identityDHKey,
  };
  keepBundle(state, peer, bundle);
}

/** The bundle kept for `peer`'s next session, removed from the state; undefined if none. */
export function takeUnusedBundle(state: StoredState, peer: string): StoredBundle | undefined {
  const bundle = state.unusedBundles?.[peer];
  if (bundle !== undefined) delete state.unusedBundles?.[peer];
  return bundle;
}

/**
 * Trusts the keys the directory has for `peer`. A bundle a refused send kept is used as it is
 * (verified when it came); otherwise `fetchBundle` fetches one (KT-verified), which is kept for
 * the next session, so accepting a change uses up no one-time prekey that sending would not.
 * Accepting other keys drops the sessions made with the old ones: the next send starts afresh.
 */
export async function trustPeer(
  state: StoredState,
  peer: string,
  fetchBundle: () => Promise<StoredBundle>,
): Promise<TrustResult> {
  const trusted = state.peers[peer];
  const changed = state.changedPeers?.[peer];
  const kept = state.unusedBundles?.[peer];
  const bundle =
    changed !== undefined && kept !== undefined && sameKeys(kept, changed)
      ? kept
      : await fetchBundle();
  delete state.changedPeers?.[peer];
  const fingerprint = fingerprintOf(bundle);
  const hasSession = (state.sessions[peer]?.length ?? 0) > 0;
  if (trusted !== undefined && sameKeys(trusted, bundle)) {
    rememberPostQuantum(state, peer, bundle);
    // A bundle no session will start from is dropped (its one-time prekey is spent anyway).
    if (hasSession) delete state.unusedBundles?.[peer];
    else keepBundle(state, peer, bundle);
    return { address: peer, changed: false, previousFingerprint: fingerprint, fingerprint };
  }
  state.peers[peer] = {
    identitySigningKey: bundle.identitySigningKey,
    identityDHKey: bundle.identityDHKey,
  };
  delete state.sessions[peer];
  forgetPostQuantum(state, peer);
  rememberPostQuantum(state, peer, bundle);
  keepBundle(state, peer, bundle);
  return {
    address: peer,
    changed: true,
    previousFingerprint: trusted === undefined ? null : fingerprintOf(trusted),
    fingerprint,
  };
}

/** The safety number with `peer` from the keys trusted here; PEER_UNKNOWN without them. */
export function safetyNumberReport(state: StoredState, peer: string): SafetyNumberReport {
  const trusted = state.peers[peer];
  if (trusted === undefined) {
    throw new ClientError(
      "PEER_UNKNOWN",
      `no identity keys of ${peer} are known here yet: they are learnt with the first message to or from ${peer}, or by trusting ${peer}`,
    );
  }
  const own = {
    address: state.address,
    keys: keysOf(state.identity),
  };
  const numberWith = (keys: PeerKeys) => safetyNumber(own, { address: peer, keys: keysOf(keys) });
  const changed = state.changedPeers?.[peer];
  return {
    address: peer,
    safetyNumber: numberWith(trusted),
    fingerprint: fingerprintOf(trusted),
    ownFingerprint: identityFingerprint(own.keys),
    ...(changed
      ? {
          changed: {
            safetyNumber: numberWith(changed),
            fingerprint: fingerprintOf(changed),
          },
        }
      : {}),
  };
}

function keepBundle(state: StoredState, peer: string, bundle: StoredBundle): void {
  state.unusedBundles ??= dictionary();
  state.unusedBundles[peer] = bundle;
}
