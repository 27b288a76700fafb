import { decodeBase64, encodeBase64, isValidAddress, normalizeAddress } from "@svc/canonical";
import { type IdentityKeys, msgIdOf, RATCHET_ENVELOPE_TYPE } from "@svc/protocol";
import {
  type Identity,
  PQXDH_PREKEY_MESSAGE_KIND,
  PREKEY_MESSAGE_KIND,
  RatchetError,
  respondToFirstMessage,
} from "@svc/ratchet";
import { ClientError, type IdentityChange } from "./errors.js";
import { preKeyStoreOf } from "./prekeys.js";
import { decryptOnSessions, withNewSession } from "./sessions.js";
import type { StoredBundle, StoredState } from "./state.js";
import { identityChanged, recordChange, sameKeys as samePeerKeys } from "./trust.js";

/** A message as decrypted, before it is read for what it is (see {@link ReceivedMessage}). */
export interface InboundMessage {
  /** The sender's address, checked: only the sender's session (or identity) could produce it. */
  from: string;
  plaintext: Uint8Array;
  msgId: string;
  receivedAt: number;
}

/** A message as handed to the application. */
export interface ReceivedMessage extends InboundMessage {
  /**
   * Whom it was sent to: this device's account (its address when it has none), or, on a copy of
   * a message another device of the account sent, that message's recipient.
   */
  to: string;
  /** A copy of a message another device of this account sent (`from` is that device). */
  sent?: true;
}

/** One envelope as a bridge or an inbox fetch gives it. */
export interface InboundEnvelope {
  bytes: Uint8Array;
  from: string;
  receivedAt: number;
}

export type Outcome =
  /** Decrypted now or before, plaintext in `state.unacked`: hand it over, then ack. */
  | { kind: "deliver"; message: InboundMessage }
  /** Handed over before (or a replay of a message acked already): ack only. */
  | { kind: "ack"; msgId: string }
  /** Refused for good (tampered, replayed, truncated, forged): ack so it cannot block the inbox. */
  | { kind: "drop"; msgId: string; error: ClientError };

export interface InboundContext {
  identity: Identity;
  /** The identity keys the directory has for `address` (fetched once, KT-verified, cached). */
  peerIdentity(address: string): Promise<IdentityKeys>;
  /** `address`'s bundle fetched now (KT-verified), whatever is cached: uses up a one-time prekey. */
  directoryBundle(address: string): Promise<StoredBundle>;
}

/** Offsets of the sender's identity keys in a prekey envelope, X3DH or PQXDH (docs/protocol.md §11). */
const SENDER_KEYS = { signing: 2, dh: 34, end: 66 } as const;

/**
 * Decides what one envelope is and changes `state` accordingly (sessions, one-time prekeys,
 * `unacked`, cursor); the caller saves `state` before anything is handed over or acked. Errors
 * other than the outcomes (a peer's bundle that could not be fetched) leave `state` untouched.
 */
export async function processEnvelope(
  context: InboundContext,
  state: StoredState,
  envelope: InboundEnvelope,
): Promise<Outcome> {
  const msgId = msgIdOf(envelope.bytes);
  const outcome = await decide(context, state, envelope, msgId);
  state.cursor = Math.max(state.cursor, envelope.receivedAt);
  return outcome;
}

async function decide(
  context: InboundContext,
  state: StoredState,
  envelope: InboundEnvelope,
  msgId: string,
): Promise<Outcome> {
  const known = state.unacked[msgId];
  if (known !== undefined) {
    return known.plaintext === null
      ? { kind: "ack", msgId }
      : {
          kind: "deliver",
          message: storedMessage(msgId, known.from, known.receivedAt, known.plaintext),
        };
  }
  if (state.recentlyAcked.includes(msgId)) return { kind: "ack", msgId };

  const drop = (failure: Omit<DecryptFailure, "ok">): Outcome => ({
    kind: "drop",
    msgId,
    error: new ClientError(
      failure.code,
      `envelope ${msgId} from ${envelope.from}: ${failure.reason}`,
      failure.identityChange ? { msgId, identityChange: failure.identityChange } : { msgId },
    ),
  });
  if (!isValidAddress(envelope.from)) {
    return drop({ code: "DECRYPT_FAILED", reason: "the sender gave no address" });
  }
  const from = normalizeAddress(envelope.from);
  const decrypted = await decryptFrom(context, state, from, envelope.bytes);
  if (!decrypted.ok) return drop(decrypted);
  return deliver(state, msgId, from, envelope.receivedAt, decrypted.plaintext);
}

export interface DecryptFailure {
  ok: false;
  code: "DECRYPT_FAILED" | "SENDER_MISMATCH" | "IDENTITY_CHANGED";
  reason: string;
  identityChange?: IdentityChange;
}

/**
 * Decrypts an envelope from `from` (a normalized address) on one of its sessions, or starts the
 * session a first message asks for once its sender keys are the directory's for `from`. Changes
 * `state.sessions` (and one-time prekeys) only on success; the caller saves.
 */
export async function decryptFrom(
  context: InboundContext,
  state: StoredState,
  from: string,
  bytes: Uint8Array,
): Promise<{ ok: true; plaintext: Uint8Array } | DecryptFailure> {
  const fail = (code: DecryptFailure["code"], reason: string): DecryptFailure => ({
    ok: false,
    code,
    reason,
  });
  const existing = state.sessions[from] ?? [];
  const decrypted = decryptOnSessions(existing, bytes);
  if (decrypted.ok) {
    state.sessions[from] = decrypted.sessions;
    return { ok: true, plaintext: decrypted.plaintext };
  }
  if (decrypted.codes.includes("RATCHET_REPLAY")) return fail("DECRYPT_FAILED", "a replay");
  if (!isPreKeyEnvelope(bytes)) {
    return fail(
      "DECRYPT_FAILED",
      existing.length ? "no session decrypts it" : "no session with the sender",
    );
  }

  // A first message from a peer whose keys are trusted here, naming others: anyone can deposit in
  // `from`'s name, so the directory decides. Still the trusted keys: a forgery. Others: the peer
  // changed identity, which is refused (and remembered, so that sending to it is refused too)
  // until trust() accepts the directory's new keys.
  const trusted = state.peers[from];
  if (trusted !== undefined && !samePeerKeys(trusted, senderKeysOf(bytes))) {
    const directory = await context.directoryBundle(from);
    if (samePeerKeys(trusted, directory)) {
      return fail(
        "SENDER_MISMATCH",
        "the sender identity keys are not the directory's for this address",
      );
    }
    recordChange(state, from, directory, directory);
    const error = identityChanged(from, trusted, directory, "now the directory has");
    return {
      ok: false,
      code: "IDENTITY_CHANGED",
      reason: `a first message under other identity keys: ${error.message}; refused until they are trusted`,
      ...(error.identityChange ? { identityChange: error.identityChange } : {}),
    };
  }
  // A peer not known yet: its sender keys must be the ones the directory has for `from`.
  const expected = await context.peerIdentity(from);
  if (!sameKeys(expected, bytes)) {
    return fail(
      "SENDER_MISMATCH",
      "the sender identity keys are not the directory's for this address",
    );
  }
  try {
    const { session, plaintext } = await respondToFirstMessage(
      context.identity,
      preKeyStoreOf(state),
      bytes,
    );
    state.sessions[from] = withNewSession(state.sessions[from], session);
    return { ok: true, plaintext };
  } catch (error) {
    if (!(error instanceof RatchetError)) throw error;
    return fail("DECRYPT_FAILED", `${error.code}: ${error.message}`);
  }
}

function deliver(
  state: StoredState,
  msgId: string,
  from: string,
  receivedAt: number,
  plaintext: Uint8Array,
): Outcome {
  state.unacked[msgId] = { from, receivedAt, plaintext: encodeBase64(plaintext) };
  return { kind: "deliver", message: { from, plaintext, msgId, receivedAt } };
}

export function storedMessage(
  msgId: string,
  from: string,
  receivedAt: number,
  plaintext: string,
): InboundMessage {
  return { from, plaintext: decodeBase64(plaintext), msgId, receivedAt };
}

/** A first message: X3DH (kind 0x02) or PQXDH (0x03), the sender's identity keys in front. */
function isPreKeyEnvelope(bytes: Uint8Array): boolean {
  return (
    bytes.length > SENDER_KEYS.end &&
    bytes[0] === RATCHET_ENVELOPE_TYPE &&
    (bytes[1] === PREKEY_MESSAGE_KIND || bytes[1] === PQXDH_PREKEY_MESSAGE_KIND)
  );
}

function senderKeysOf(envelope: Uint8Array): { identitySigningKey: string; identityDHKey: string } {
  return {
    identitySigningKey: encodeBase64(envelope.subarray(SENDER_KEYS.signing, SENDER_KEYS.dh)),
    identityDHKey: encodeBase64(envelope.subarray(SENDER_KEYS.dh, SENDER_KEYS.end)),
  };
}

function sameKeys(expected: IdentityKeys, envelope: Uint8Array): boolean {
  const signing = envelope.subarray(SENDER_KEYS.signing, SENDER_KEYS.dh);
  const dh = envelope.subarray(SENDER_KEYS.dh, SENDER_KEYS.end);
  return equal(signing, expected.identitySigningKey) && equal(dh, expected.identityDHKey);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
