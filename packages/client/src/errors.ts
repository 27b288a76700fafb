import { CodedError } from "@svc/canonical";

/** Stable codes of {@link ClientError}: failures found on this side of the wire. */
export type ClientErrorCode =
  /** init() on a store that already holds an identity. */
  | "IDENTITY_EXISTS"
  /** An operation that needs an identity on a store that has none (run init first). */
  | "NO_IDENTITY"
  /** kt "require" (the default), or a log pinned earlier, and the server has no KT log. */
  | "KT_UNAVAILABLE"
  /** A bundle's ktProof does not prove its keys (a lying server); `cause` is the KtVerifyError. */
  | "KT_VERIFICATION_FAILED"
  /** An envelope that does not decrypt: tampered, replayed, truncated or of an unknown session. */
  | "DECRYPT_FAILED"
  /** A first message whose sender identity keys are not the ones the directory has for `from`. */
  | "SENDER_MISMATCH"
  /**
   * A peer's identity keys are not the ones trusted for it (a bundle, or a first message, shows
   * others): send is refused until trust(address); `identityChange` has both fingerprints.
   */
  | "IDENTITY_CHANGED"
  /** safetyNumber() for a peer whose identity keys this client has not learnt yet. */
  | "PEER_UNKNOWN"
  /** session() for a peer with no session yet (no message sent to or received from it). */
  | "NO_SESSION"
  /**
   * A peer's bundle comes without the ML-KEM prekey it must carry: its KT leaf commits a KEM key,
   * or the peer was served with one before under the same identity keys. Sending would fall back
   * to classic X3DH, which a server must not be able to force; nothing is sent.
   */
  | "PQ_DOWNGRADE"
  /** A server answer that is not what the protocol schema says. */
  | "BAD_RESPONSE"
  /** The server did not answer (or a bridge did not open) in time. */
  | "TIMEOUT"
  /** The request did not reach the server (connection refused, reset, DNS). */
  | "NETWORK"
  /** The client was closed. */
  | "CLOSED"
  /** Another writer holds the key store. */
  | "STORE_LOCKED"
  /** The key store holds something that is not a StoredState of a known version. */
  | "BAD_STATE"
  /**
   * An account's device list fails verification: a broken chain from the version remembered, a
   * lower version, a bad signature, a failing KT proof, a device whose KT-verified bundle has
   * other keys, or a 404 for an account whose list was seen. Nothing is sent.
   */
  | "DEVICE_LIST_INVALID"
  /** removeDevice() of a device the account's list does not name. */
  | "DEVICE_NOT_LISTED"
  /** A device-list operation on a device whose address has no `:<device>` part, so no account. */
  | "NO_ACCOUNT"
  /** Another device changed the account's list first (after one retry on the new version). */
  | "DEVICE_LIST_CONFLICT"
  /** The approving device refused the link request: the code was wrong (or is used up). */
  | "LINK_REFUSED"
  /** No link request, or no approval, came in time. */
  | "LINK_TIMEOUT";

/** What IDENTITY_CHANGED is about: fingerprints (docs/protocol.md §16) of both identities. */
export interface IdentityChange {
  address: string;
  /** The identity keys trusted for `address`. */
  trustedFingerprint: string;
  /** The other keys seen. */
  newFingerprint: string;
}

/** The one error class of @svc/client besides SvcError (which stands for a server's ErrorResponse). */
export class ClientError extends CodedError<ClientErrorCode> {
  override readonly name = "ClientError";
  /** The envelope concerned, when the error is about one. */
  readonly msgId: string | undefined;
  /** Set on IDENTITY_CHANGED. */
  readonly identityChange: IdentityChange | undefined;

  constructor(
    code: ClientErrorCode,
    message: string,
    options: { cause?: unknown; msgId?: string; identityChange?: IdentityChange } = {},
  ) {
    super(code, message, options);
    this.msgId = options.msgId;
    this.identityChange = options.identityChange;
  }
}
