import type { DhKeyPair } from "./dh.js";

/** Most message keys one chain may skip for a single envelope (the specification's MAX_SKIP). */
export const MAX_SKIP = 1000;
/** Most skipped message keys a session keeps; beyond it the oldest are dropped. */
export const MAX_SKIPPED_KEYS = 2000;
/**
 * A skipped key is dropped once its receiving chain is more than this many DH-ratchet steps old.
 * Counted in steps, not time: deterministic, and it bounds what a later state compromise reveals.
 */
export const MAX_SKIPPED_AGE = 5;
/** N and PN are u32 on the wire; N stops below this, so the receiver's Nr still fits. */
export const MAX_MESSAGE_NUMBER = 0xffff_ffff;

/** A message key kept for a message that has not arrived yet (MKSKIPPED). */
export interface SkippedMessageKey {
  /** The ratchet public key of its chain. */
  dh: Uint8Array;
  n: number;
  mk: Uint8Array;
  /** The receiving DH-ratchet step of its chain (see {@link SessionState.step}). */
  step: number;
}

/**
 * The Double Ratchet state (Double Ratchet §3.2, names as there) plus what X3DH left behind.
 * A plain record: functions return a new one and never modify the one they were given.
 */
export interface SessionState {
  role: "initiator" | "responder";
  /** X3DH AD (128 bytes), bound into every message. */
  ad: Uint8Array;
  /**
   * Encoded X3DH (or PQXDH) fields of the initiator's first messages. The initiator sends them with every
   * message until it has received one; the responder accepts only prekey envelopes carrying these.
   */
  preKeyFields: Uint8Array;
  /** RK */
  rk: Uint8Array;
  /** DHs */
  dhs: DhKeyPair;
  /** DHr */
  dhr: Uint8Array;
  /** CKs */
  cks: Uint8Array;
  /** CKr: null until the initiator receives its first message. */
  ckr: Uint8Array | null;
  ns: number;
  nr: number;
  pn: number;
  /** Receiving DH-ratchet steps taken so far; ages skipped keys. */
  step: number;
  /** MKSKIPPED, oldest first. */
  mkSkipped: readonly SkippedMessageKey[];
}

/** The initiator adds its X3DH fields to what it sends until the responder has answered. */
export function sendsPreKeyFields(state: SessionState): boolean {
  return state.role === "initiator" && state.ckr === null;
}
