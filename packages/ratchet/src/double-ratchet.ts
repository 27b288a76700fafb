import { concatBytes, equalBytes } from "@svc/canonical";
import { decrypt, encrypt, NONCE_SIZE } from "./aead.js";
import { type DhKeyPair, dh, generateDh } from "./dh.js";
import { type DecodedEnvelope, encodeEnvelopePrefix } from "./envelope.js";
import { RatchetError } from "./errors.js";
import { kdfCk, kdfRk } from "./kdf.js";
import { drawRandom, type RandomBytes } from "./random.js";
import {
  MAX_MESSAGE_NUMBER,
  MAX_SKIP,
  MAX_SKIPPED_AGE,
  MAX_SKIPPED_KEYS,
  type SessionState,
  type SkippedMessageKey,
  sendsPreKeyFields,
} from "./state.js";

/** RatchetEncrypt: the next message of the sending chain, as a complete envelope. */
export function ratchetEncrypt(
  state: SessionState,
  plaintext: Uint8Array,
  random: RandomBytes,
): { state: SessionState; envelope: Uint8Array } {
  if (state.ns === MAX_MESSAGE_NUMBER) {
    throw new RatchetError("RATCHET_CHAIN_EXHAUSTED", "the sending chain is exhausted");
  }
  const { chainKey, messageKey } = kdfCk(state.cks);
  const header = { dh: state.dhs.publicKey, pn: state.pn, n: state.ns };
  const prefix = encodeEnvelopePrefix(sendsPreKeyFields(state) ? state.preKeyFields : null, header);
  const nonce = drawRandom(random, NONCE_SIZE);
  const ciphertext = encrypt(messageKey, nonce, plaintext, concatBytes(state.ad, prefix));
  return {
    state: { ...state, cks: chainKey, ns: state.ns + 1 },
    envelope: concatBytes(prefix, nonce, ciphertext),
  };
}

/**
 * RatchetDecrypt. Returns the new state and never modifies `state`: a failed decryption
 * (RatchetError) leaves the session as it was.
 */
export function ratchetDecrypt(
  state: SessionState,
  envelope: DecodedEnvelope,
  random: RandomBytes,
): { state: SessionState; plaintext: Uint8Array } {
  const { header } = envelope;
  if (envelope.preKeyBytes) {
    const ours = state.role === "responder" && equalBytes(envelope.preKeyBytes, state.preKeyFields);
    if (!ours) {
      throw new RatchetError("RATCHET_SESSION_MISMATCH", "first message of another session");
    }
  }
  const ad = concatBytes(state.ad, envelope.prefix);
  const skipped = trySkippedMessageKeys(state, envelope, ad);
  if (skipped) return skipped;

  let next = state;
  if (!equalBytes(header.dh, state.dhr)) {
    next = dhRatchet(skipMessageKeys(next, header.pn), header.dh, random);
  } else if (header.n < state.nr) {
    throw new RatchetError("RATCHET_REPLAY", "message key already used");
  }
  next = skipMessageKeys(next, header.n);
  if (next.ckr === null) throw decryptFailed();
  const { chainKey, messageKey } = kdfCk(next.ckr);
  const plaintext = decrypt(messageKey, envelope.nonce, envelope.ciphertext, ad);
  if (!plaintext) throw decryptFailed();
  next = { ...next, ckr: chainKey, nr: next.nr + 1 };
  const changed = next.step !== state.step || next.mkSkipped !== state.mkSkipped;
  return { state: changed ? pruneSkipped(next) : next, plaintext };
}

/** TrySkippedMessageKeys: a stored key for (dh, n) decrypts, and is deleted on success. */
export function trySkippedMessageKeys(
  state: SessionState,
  { header, nonce, ciphertext }: DecodedEnvelope,
  ad: Uint8Array,
): { state: SessionState; plaintext: Uint8Array } | null {
  // Keys of the current chain are all below nr: an in-order message needs no search.
  if (header.n >= state.nr && equalBytes(header.dh, state.dhr)) return null;
  const index = state.mkSkipped.findIndex(
    (key) => key.n === header.n && equalBytes(key.dh, header.dh),
  );
  const key = state.mkSkipped[index];
  if (!key) return null;
  const plaintext = decrypt(key.mk, nonce, ciphertext, ad);
  if (!plaintext) throw decryptFailed();
  const mkSkipped = state.mkSkipped.filter((_, i) => i !== index);
  return { state: { ...state, mkSkipped }, plaintext };
}

/** SkipMessageKeys: stores the receiving chain's message keys below `until`. */
export function skipMessageKeys(state: SessionState, until: number): SessionState {
  if (until - state.nr > MAX_SKIP) {
    throw new RatchetError(
      "RATCHET_TOO_MANY_SKIPPED",
      `message ${until} would skip more than ${MAX_SKIP} keys`,
    );
  }
  if (state.ckr === null || until <= state.nr) return state;
  const added: SkippedMessageKey[] = [];
  let ckr = state.ckr;
  for (let n = state.nr; n < until; n++) {
    const { chainKey, messageKey } = kdfCk(ckr);
    added.push({ dh: state.dhr, n, mk: messageKey, step: state.step });
    ckr = chainKey;
  }
  return { ...state, ckr, nr: until, mkSkipped: [...state.mkSkipped, ...added] };
}

/** What DHRatchet reads; the responder's first step starts from its signed prekey and SK. */
type StepInput = Pick<SessionState, "rk" | "ns" | "step">;
type RatchetInput = StepInput & { dhs: { privateKey: Uint8Array } };
type RatchetOutput = Pick<SessionState, "rk" | "dhs" | "dhr" | "cks" | "pn" | "ns" | "nr" | "step">;

/** DHRatchet: a new receiving chain for the peer's new ratchet key, and a new sending chain. */
export function dhRatchet<T extends RatchetInput>(
  state: T,
  theirRatchetKey: Uint8Array,
  random: RandomBytes,
): Omit<T, keyof RatchetOutput | "ckr"> & RatchetOutput & { ckr: Uint8Array } {
  const receiving = dh(state.dhs.privateKey, theirRatchetKey);
  const dhs = generateDh(random);
  return ratchetStep(state, theirRatchetKey, dhs, receiving, dh(dhs.privateKey, theirRatchetKey));
}

/**
 * DHRatchet from its two DH outputs, DH(old DHs, their key) and DH(new DHs, their key): lets
 * session setup compute them asynchronously.
 */
export function ratchetStep<T extends StepInput>(
  state: T,
  theirRatchetKey: Uint8Array,
  dhs: DhKeyPair,
  receivingDh: Uint8Array,
  sendingDh: Uint8Array,
): Omit<T, keyof RatchetOutput | "ckr"> & RatchetOutput & { ckr: Uint8Array } {
  const receiving = kdfRk(state.rk, receivingDh);
  const sending = kdfRk(receiving.rootKey, sendingDh);
  return {
    ...state,
    pn: state.ns,
    ns: 0,
    nr: 0,
    dhr: theirRatchetKey,
    dhs,
    rk: sending.rootKey,
    ckr: receiving.chainKey,
    cks: sending.chainKey,
    step: state.step + 1,
  };
}

/** Drops skipped keys too many steps old, then the oldest beyond the cap. */
function pruneSkipped(state: SessionState): SessionState {
  const fresh = state.mkSkipped.filter((key) => state.step - key.step <= MAX_SKIPPED_AGE);
  return { ...state, mkSkipped: fresh.slice(-MAX_SKIPPED_KEYS) };
}

function decryptFailed(): RatchetError {
  return new RatchetError("RATCHET_DECRYPT_FAILED", "message authentication failed");
}
