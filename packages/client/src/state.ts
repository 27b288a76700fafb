import { decodeBase64, encodeBase64 } from "@svc/canonical";
import type { SthJson } from "@svc/kt-verify";
import type { Identity } from "@svc/ratchet";
import * as v from "valibot";
import { ClientError } from "./errors.js";

export const STATE_VERSION = 1;

/**
 * Everything one identity's client keeps between runs, as JSON with base64 bytes. It holds
 * private keys: store it like them.
 */
export interface StoredState {
  version: typeof STATE_VERSION;
  /** The own address, normalized (D2). */
  address: string;
  /** True once keys register and inbox register have both answered. */
  registered: boolean;
  identity: {
    /** Ed25519 seed (RFC 8032 private key). */
    signingSeed: string;
    identitySigningKey: string;
    identityDHPrivateKey: string;
    identityDHKey: string;
  };
  /** Signed prekeys whose private keys are kept, the one registered last at the end. */
  signedPreKeys: StoredPreKey[];
  /** One-time prekeys by keyId: handed out by the server or still queued there. */
  oneTimePreKeys: Record<string, { publicKey: string; privateKey: string }>;
  /** keyIds are never reused (docs/protocol.md §7: a consumed keyId may be uploaded again). */
  nextOneTimePreKeyId: number;
  /**
   * The ML-KEM-1024 last-resort prekey (PQXDH), with `uploaded` once the server has taken it.
   * Absent in states written before KEM prekeys: the next replenish creates and uploads one.
   */
  kemLastResortPreKey?: StoredKemPreKey;
  /**
   * One-time ML-KEM-1024 prekeys by keyId: their 64-byte keygen seeds (base64), handed out by the
   * server or still queued there. Absent in states written before KEM prekeys.
   */
  kemPreKeys?: Record<string, string>;
  /** KEM keyIds (one-time and last-resort alike) are never reused either. */
  nextKemPreKeyId?: number;
  /** Ratchet sessions (Session.serialize(), base64) by peer address, the active one first. */
  sessions: Record<string, string[]>;
  /**
   * Identity keys of peers as the directory (KT-verified when the server has KT) gave them first:
   * the keys trusted for each peer until trust() accepts others.
   */
  peers: Record<string, PeerKeys>;
  /**
   * Other identity keys the directory gave for a peer of `peers` (to a send, or when a first
   * message named other keys): sending to that peer is refused (IDENTITY_CHANGED) until trust()
   * accepts them; their bundle waits in `unusedBundles`. Absent in states written before.
   */
  changedPeers?: Record<string, ChangedPeer>;
  /**
   * Bundles fetched and verified but not used yet, by peer: the next session with the peer starts
   * from it instead of fetching another (which would use up another one-time prekey).
   */
  unusedBundles?: Record<string, StoredBundle>;
  /**
   * Peers the directory once served with a KEM prekey under their trusted identity keys: a bundle
   * of theirs without one is a downgrade to classic X3DH, refused (PQ_DOWNGRADE).
   */
  postQuantumPeers?: Record<string, true>;
  /**
   * The latest verified device list of each account seen (the own one and peers'), by account:
   * a list served later must chain from it. Absent in states written before device lists.
   */
  accounts?: Record<string, KnownDeviceList>;
  /** The pinned KT log and the last STH verified; null while the server was not seen with KT. */
  kt: KtPin | null;
  /** Bridge cursor: the receivedAt of the last envelope processed. */
  cursor: number;
  /**
   * Envelopes decrypted but not acknowledged. `plaintext` is kept until the message has been
   * handed over (handler resolved, or receive() returned it); then it is dropped and the ack sent.
   */
  unacked: Record<string, UnackedMessage>;
  /** The msgIds acknowledged last (at most RECENTLY_ACKED), so a replay is acked, not redelivered. */
  recentlyAcked: string[];
}

/** A device list version as verified and remembered: its hash (base64) and devices. */
export interface KnownDeviceList {
  version: number;
  listHash: string;
  devices: Array<{ address: string; identitySigningKey: string }>;
}

export interface PeerKeys {
  identitySigningKey: string;
  identityDHKey: string;
}

/** Keys the directory (a verified bundle) has for a peer, other than the trusted ones. */
export type ChangedPeer = PeerKeys;

/** A bundle answer without its ktProof (checked already). */
export interface StoredBundle extends PeerKeys {
  signedPreKey: { keyId: number; publicKey: string; signature: string };
  oneTimePreKey?: { keyId: number; publicKey: string };
  kemPreKey?: { keyId: number; publicKey: string; signature: string; lastResort: boolean };
}

/** The last-resort KEM prekey: its keygen seed, and what is uploaded. */
export interface StoredKemPreKey {
  keyId: number;
  /** The 64-byte ML-KEM keygen seed d || z, base64. */
  seed: string;
  publicKey: string;
  signature: string;
  /** True once a register or replenish carrying it was answered. */
  uploaded: boolean;
}

export interface StoredPreKey {
  keyId: number;
  publicKey: string;
  privateKey: string;
  signature: string;
}

export interface UnackedMessage {
  from: string;
  receivedAt: number;
  plaintext: string | null;
}

/** Pinned on first use from GET /v1/kt/log_id; once pinned, every bundle must prove its keys. */
export interface KtPin {
  logPublicKey: string;
  /**
   * The log's VRF public key (base64), pinned with the log key when the server has a private
   * index (format 3); from then on only format-3 proofs are accepted. Absent from states pinned
   * before (or against a log without one): learnt and pinned when a format-3 proof first comes.
   */
  vrfPublicKey?: string;
  trustedSth: SthJson | null;
}

export const RECENTLY_ACKED = 1000;

const base64 = v.pipe(v.string(), v.regex(/^[A-Za-z0-9+/]*={0,2}$/));
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const Sth = v.object({
  treeSize: count,
  timestampMs: count,
  rootHash: base64,
  indexRoot: base64,
  logId: base64,
  signature: base64,
});

const StoredStateSchema = v.object({
  version: v.literal(STATE_VERSION),
  address: v.string(),
  registered: v.boolean(),
  identity: v.object({
    signingSeed: base64,
    identitySigningKey: base64,
    identityDHPrivateKey: base64,
    identityDHKey: base64,
  }),
  signedPreKeys: v.array(
    v.object({ keyId: count, publicKey: base64, privateKey: base64, signature: base64 }),
  ),
  oneTimePreKeys: v.record(v.string(), v.object({ publicKey: base64, privateKey: base64 })),
  nextOneTimePreKeyId: count,
  // Optional: states written before KEM prekeys have none, and still load.
  kemLastResortPreKey: v.optional(
    v.object({
      keyId: count,
      seed: base64,
      publicKey: base64,
      signature: base64,
      uploaded: v.boolean(),
    }),
  ),
  kemPreKeys: v.optional(v.record(v.string(), base64)),
  nextKemPreKeyId: v.optional(count),
  postQuantumPeers: v.optional(v.record(v.string(), v.literal(true))),
  // Optional: states written before device lists have none, and still load.
  accounts: v.optional(
    v.record(
      v.string(),
      v.object({
        version: v.pipe(count, v.minValue(1)),
        listHash: base64,
        devices: v.array(v.object({ address: v.string(), identitySigningKey: base64 })),
      }),
    ),
  ),
  sessions: v.record(v.string(), v.array(base64)),
  peers: v.record(v.string(), v.object({ identitySigningKey: base64, identityDHKey: base64 })),
  changedPeers: v.optional(
    v.record(
      v.string(),
      v.object({
        identitySigningKey: base64,
        identityDHKey: base64,
      }),
    ),
  ),
  unusedBundles: v.optional(
    v.record(
      v.string(),
      v.object({
        identitySigningKey: base64,
        identityDHKey: base64,
        signedPreKey: v.object({ keyId: count, publicKey: base64, signature: base64 }),
        oneTimePreKey: v.optional(v.object({ keyId: count, publicKey: base64 })),
        kemPreKey: v.optional(
          v.object({ keyId: count, publicKey: base64, signature: base64, lastResort: v.boolean() }),
        ),
      }),
    ),
  ),
  kt: v.nullable(
    v.object({
      logPublicKey: base64,
      // Optional: states written before KT's private index have none, and still load.
      vrfPublicKey: v.optional(base64),
      trustedSth: v.nullable(Sth),
    }),
  ),
  cursor: count,
  unacked: v.record(
    v.string(),
    v.object({ from: v.string(), receivedAt: count, plaintext: v.nullable(base64) }),
  ),
  recentlyAcked: v.array(v.string()),
});

/** A loaded record, checked member by member; anything else is ClientError BAD_STATE. */
export function parseState(json: unknown): StoredState {
  const result = v.safeParse(StoredStateSchema, json);
  if (result.success) {
    const state = result.output as StoredState;
    return {
      ...state,
      oneTimePreKeys: dictionary(state.oneTimePreKeys),
      sessions: dictionary(state.sessions),
      peers: dictionary(state.peers),
      ...(state.changedPeers ? { changedPeers: dictionary(state.changedPeers) } : {}),
      ...(state.unusedBundles ? { unusedBundles: dictionary(state.unusedBundles) } : {}),
      ...(state.kemPreKeys ? { kemPreKeys: dictionary(state.kemPreKeys) } : {}),
      ...(state.postQuantumPeers ? { postQuantumPeers: dictionary(state.postQuantumPeers) } : {}),
      ...(state.accounts ? { accounts: dictionary(state.accounts) } : {}),
      unacked: dictionary(state.unacked),
    };
  }
  const issue = result.issues[0];
  const where = issue ? (v.getDotPath(issue) ?? "state") : "state";
  throw new ClientError(
    "BAD_STATE",
    `the key store's state is not version ${STATE_VERSION}: ${where}`,
  );
}

/**
 * A record keyed by untrusted strings (addresses, message ids): without a prototype, so that a
 * peer named "toString" or "__proto__" is looked up and stored like any other.
 */
export function dictionary<T>(entries: Record<string, T> = {}): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

/** The ratchet's view of the stored identity. */
export function identityOf(state: StoredState): Identity {
  return {
    identitySigningKey: decodeBase64(state.identity.identitySigningKey, 32),
    identityDHKey: decodeBase64(state.identity.identityDHKey, 32),
    signingPrivateKey: decodeBase64(state.identity.signingSeed, 32),
    identityDHPrivateKey: decodeBase64(state.identity.identityDHPrivateKey, 32),
  };
}

export function storedIdentity(identity: Identity): StoredState["identity"] {
  return {
    signingSeed: encodeBase64(identity.signingPrivateKey),
    identitySigningKey: encodeBase64(identity.identitySigningKey),
    identityDHPrivateKey: encodeBase64(identity.identityDHPrivateKey),
    identityDHKey: encodeBase64(identity.identityDHKey),
  };
}

/** The signed prekey registered last. */
export function currentSignedPreKey(state: StoredState): StoredPreKey {
  const key = state.signedPreKeys.at(-1);
  if (key === undefined) throw new ClientError("BAD_STATE", "the state holds no signed prekey");
  return key;
}
