import { assertBytes } from "@svc/canonical";
import type { IdentityKeys, PreKeyBundleKeys } from "@svc/protocol";
import { assertKey, assertObject } from "./assert.js";
import { dh, generateDh } from "./dh.js";
import { dhRatchet, ratchetDecrypt, ratchetEncrypt } from "./double-ratchet.js";
import { decodeEnvelope, encodePreKeyFields } from "./envelope.js";
import { RatchetError } from "./errors.js";
import type { Identity } from "./identity.js";
import { kdfRk } from "./kdf.js";
import type { PreKeyStore } from "./prekey-store.js";
import { defaultRandom, type RandomBytes } from "./random.js";
import type { SessionState } from "./state.js";
import { deserializeState, serializeState } from "./state-codec.js";
import { assertIdentity, verifyBundle, x3dhInitiate, x3dhRespond } from "./x3dh.js";

export interface SessionOptions {
  /** Source of the ratchet key pairs; defaults to globalThis.crypto.getRandomValues. */
  random?: RandomBytes;
}

/**
 * One end of a Double Ratchet session. encrypt and decrypt are synchronous, so calls on one
 * session never interleave; persist `serialize()` after each of them.
 */
export class Session {
  #state: SessionState;
  readonly #random: RandomBytes;

  /** Internal: use initiateSession, respondToFirstMessage or Session.deserialize. */
  constructor(state: SessionState, { random = defaultRandom }: SessionOptions = {}) {
    this.#state = state;
    this.#random = random;
  }

  /** Reads what {@link Session.serialize} wrote; garbage is RATCHET_MALFORMED_STATE. */
  static deserialize(bytes: Uint8Array, options?: SessionOptions): Session {
    assertBytes("bytes", bytes);
    return new Session(deserializeState(bytes), options);
  }

  /** The other party's identity keys, as bound into every message (AD). */
  get peerIdentity(): IdentityKeys {
    const ad = this.#state.ad;
    const offset = this.#state.role === "initiator" ? 64 : 0;
    return {
      identitySigningKey: ad.slice(offset, offset + 32),
      identityDHKey: ad.slice(offset + 32, offset + 64),
    };
  }

  /** The next message as a 0x02 envelope. */
  encrypt(plaintext: Uint8Array): Uint8Array {
    assertBytes("plaintext", plaintext);
    const { state, envelope } = ratchetEncrypt(this.#state, plaintext, this.#random);
    this.#state = state;
    return envelope;
  }

  /** The plaintext of a 0x02 envelope; on any RatchetError the session is unchanged. */
  decrypt(envelope: Uint8Array): Uint8Array {
    assertBytes("envelope", envelope);
    const { state, plaintext } = ratchetDecrypt(
      this.#state,
      decodeEnvelope(envelope),
      this.#random,
    );
    this.#state = state;
    return plaintext;
  }

  serialize(): Uint8Array {
    return serializeState(this.#state);
  }
}

/**
 * X3DH with a served bundle (its signed prekey signature checked first), then the first message.
 * Until the peer answers, every envelope of the session carries the X3DH fields (prekey form), so
 * the peer can start the session from whichever arrives first.
 */
export async function initiateSession(
  identity: Identity,
  bundle: PreKeyBundleKeys,
  plaintext: Uint8Array,
  options: SessionOptions = {},
): Promise<{ session: Session; envelope: Uint8Array }> {
  assertIdentity("identity", identity);
  verifyBundle(bundle);
  assertBytes("plaintext", plaintext);
  const random = options.random ?? defaultRandom;
  const ephemeral = generateDh(random);
  const { sharedKey, associatedData } = x3dhInitiate(identity, bundle, ephemeral);
  const preKeyFields = encodePreKeyFields({
    identitySigningKey: identity.identitySigningKey,
    identityDHKey: identity.identityDHKey,
    baseKey: ephemeral.publicKey,
    signedPreKeyId: bundle.signedPreKey.keyId,
    oneTimePreKeyId: bundle.oneTimePreKey?.keyId ?? null,
  });
  const dhs = generateDh(random);
  const dhr = bundle.signedPreKey.publicKey;
  const { rootKey, chainKey } = kdfRk(sharedKey, dh(dhs.privateKey, dhr));
  const session = new Session(
    {
      role: "initiator",
      ad: associatedData,
      preKeyFields,
      rk: rootKey,
      dhs,
      dhr,
      cks: chainKey,
      ckr: null,
      ns: 0,
      nr: 0,
      pn: 0,
      step: 0,
      mkSkipped: [],
    },
    { random },
  );
  return { session, envelope: session.encrypt(plaintext) };
}

/**
 * Starts the responder's session from a prekey envelope. The one-time prekey it names is deleted
 * from the store once the message has decrypted, before the plaintext is returned; a later
 * envelope naming it is RATCHET_UNKNOWN_PREKEY. Later envelopes of the same session, prekey form
 * or not, go to `session.decrypt`: with a session for the sender already, try that first, and
 * RATCHET_SESSION_MISMATCH there means the sender started a new one. Whether `senderIdentity` is
 * who it claims to be (key transparency, a safety number) is the caller's to check.
 */
export async function respondToFirstMessage(
  identity: Identity,
  store: PreKeyStore,
  envelope: Uint8Array,
  options: SessionOptions = {},
): Promise<{ session: Session; plaintext: Uint8Array; senderIdentity: IdentityKeys }> {
  assertIdentity("identity", identity);
  assertObject("store", store);
  assertBytes("envelope", envelope);
  const random = options.random ?? defaultRandom;
  const decoded = decodeEnvelope(envelope);
  const { preKey, preKeyBytes } = decoded;
  if (!preKey || !preKeyBytes) {
    throw new RatchetError("RATCHET_SESSION_MISMATCH", "not a first message (no X3DH fields)");
  }
  const signedPreKey = await store.signedPreKey(preKey.signedPreKeyId);
  if (!signedPreKey) throw unknownPreKey("signed", preKey.signedPreKeyId);
  assertKey("store.signedPreKey()", signedPreKey);
  const oneTimeId = preKey.oneTimePreKeyId;
  const oneTimePreKey = oneTimeId === null ? undefined : await store.oneTimePreKey(oneTimeId);
  if (oneTimeId !== null && !oneTimePreKey) throw unknownPreKey("one-time", oneTimeId);
  if (oneTimePreKey) assertKey("store.oneTimePreKey()", oneTimePreKey);

  const senderIdentity = {
    identitySigningKey: preKey.identitySigningKey,
    identityDHKey: preKey.identityDHKey,
  };
  const { sharedKey, associatedData } = x3dhRespond(
    identity,
    signedPreKey,
    oneTimePreKey,
    senderIdentity,
    preKey.baseKey,
  );
  // The responder's first DH-ratchet step, from the signed prekey the initiator ratcheted with.
  const ratcheted = dhRatchet(
    { rk: sharedKey, dhs: { privateKey: signedPreKey }, ns: 0, step: 0 },
    decoded.header.dh,
    random,
  );
  const start: SessionState = {
    ...ratcheted,
    role: "responder",
    ad: associatedData,
    preKeyFields: preKeyBytes,
    mkSkipped: [],
  };
  const { state, plaintext } = ratchetDecrypt(start, decoded, random);
  if (oneTimeId !== null && !(await store.removeOneTimePreKey(oneTimeId))) {
    throw unknownPreKey("one-time", oneTimeId);
  }
  return { session: new Session(state, { random }), plaintext, senderIdentity };
}

function unknownPreKey(kind: string, keyId: number): RatchetError {
  return new RatchetError("RATCHET_UNKNOWN_PREKEY", `no ${kind} prekey ${keyId} in the store`);
}
