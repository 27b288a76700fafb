import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { RatchetError, type RatchetErrorCode, Session } from "@svc/ratchet";

/**
 * Sessions kept per peer. Two parties who both send a first message at once each start a session
 * from the other's; keeping the older ones lets either side decrypt what was sent on any of them
 * while both settle on the one used last, so crossing first messages lose nothing.
 */
export const MAX_SESSIONS_PER_PEER = 5;

/** A session as the state keeps it (Session.serialize(), base64). */
export function sessionOf(stored: string): Session {
  return Session.deserialize(decodeBase64(stored));
}

/** The next envelope on the peer's active session (the first of `sessions`). */
export function encryptOnActive(
  sessions: string[],
  plaintext: Uint8Array,
): { envelope: Uint8Array; sessions: string[] } | undefined {
  const [active, ...older] = sessions;
  if (active === undefined) return undefined;
  const session = sessionOf(active);
  const envelope = session.encrypt(plaintext);
  return { envelope, sessions: [encodeBase64(session.serialize()), ...older] };
}

export type SessionsDecryption =
  | { ok: true; plaintext: Uint8Array; sessions: string[] }
  /** No session took it; the codes say why, each session's. */
  | { ok: false; codes: RatchetErrorCode[] };

/**
 * Tries each of the peer's sessions (a failed decryption leaves a session as it was); the one
 * that decrypts becomes the active one.
 */
export function decryptOnSessions(sessions: string[], envelope: Uint8Array): SessionsDecryption {
  const codes: RatchetErrorCode[] = [];
  for (const [index, stored] of sessions.entries()) {
    const session = sessionOf(stored);
    try {
      const plaintext = session.decrypt(envelope);
      const others = sessions.filter((_, i) => i !== index);
      return { ok: true, plaintext, sessions: [encodeBase64(session.serialize()), ...others] };
    } catch (error) {
      if (!(error instanceof RatchetError)) throw error;
      codes.push(error.code);
    }
  }
  return { ok: false, codes };
}

/** `session` as the active one, in front of at most MAX_SESSIONS_PER_PEER - 1 older ones. */
export function withNewSession(sessions: string[] | undefined, session: Session): string[] {
  return [encodeBase64(session.serialize()), ...(sessions ?? [])].slice(0, MAX_SESSIONS_PER_PEER);
}
