import { assertBytes } from "@svc/canonical";
import type { IdentityKeys, PreKeyBundleKeys } from "@svc/protocol";
import { assertKey, assertObject } from "./assert.js";
import { ratchetDecrypt, ratchetEncrypt, ratchetStep } from "./double-ratchet.js";
import {
  decodeEnvelope,
  encodePreKeyFields,
  isPostQuantum,
  type KemPreKeyFields,
} from "./envelope.js";
import { RatchetError } from "./errors.js";
import type { Identity } from "./identity.js";
import { kdfPqxdh, kdfRk, kdfX3dh } from "./kdf.js";
import { KEM_SEED_SIZE, kemDecapsulate, kemEncapsulate } from "./kem.js";
import { dhAllAsync, dhAsync, generateDhAsync } from "./platform.js";
import type { PreKeyStore } from "./prekey-store.js";
import { defaultRandom, type RandomBytes } from "./random.js";
import type { SessionState } from "./state.js";
import { deserializeState, serializeState } from "./state-codec.js";
import {
  assertIdentity,
  associatedData,
  initiatorDhInputs,
  responderDhInputs,
  verifyBundleAsync,
} from "./x3dh.js";

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

  /** Whether the session was set up with PQXDH (an ML-KEM shared secret in SK), not X3DH alone. */
  get postQuantum(): boolean {
    return isPostQuantum(this.#state.preKeyFields);
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
 * PQXDH when the bundle carries a KEM prekey, X3DH otherwise, with a served bundle (its prekey
 * signatures checked first), then the first message. Until the peer answers, every envelope of
 * the session carries the key agreement's fields (prekey form), so the peer can start the session
 * from whichever arrives first.
 */
export async function initiateSession(
  identity: Identity,
  bundle: PreKeyBundleKeys,
  plaintext: Uint8Array,
  options: SessionOptions = {},
): Promise<{ session: Session; envelope: Uint8Array }> {
  assertIdentity("identity", identity);
  await verifyBundleAsync(bundle);
  assertBytes("plaintext", plaintext);
  const random = options.random ?? defaultRandom;
  // Each of these draws its randomness before it returns, in this order (the vectors depend on
  // it); the key pairs are generated meanwhile, and every DH below runs at once.
  const ephemeralPair = generateDhAsync(random);
  const kem = bundle.kemPreKey && kemEncapsulate(bundle.kemPreKey.publicKey, random);
  const [ephemeral, dhs] = await Promise.all([ephemeralPair, generateDhAsync(random)]);
  const dhr = bundle.signedPreKey.publicKey;
  const [dhOutputs, ratchetDh] = await Promise.all([
    dhAllAsync(initiatorDhInputs(identity, bundle, ephemeral)),
    dhAsync(dhs.privateKey, dhr),
  ]);
  const sharedKey = kem ? kdfPqxdh(dhOutputs, kem.sharedSecret) : kdfX3dh(dhOutputs);
  const preKeyFields = encodePreKeyFields({
    identitySigningKey: identity.identitySigningKey,
    identityDHKey: identity.identityDHKey,
    baseKey: ephemeral.publicKey,
    signedPreKeyId: bundle.signedPreKey.keyId,
    oneTimePreKeyId: bundle.oneTimePreKey?.keyId ?? null,
    ...(bundle.kemPreKey &&
      kem && {
        kemPreKey: {
          keyId: bundle.kemPreKey.keyId,
          lastResort: bundle.kemPreKey.lastResort,
          ciphertext: kem.ciphertext,
        },
      }),
  });
  const { rootKey, chainKey } = kdfRk(sharedKey, ratchetDh);
  const session = new Session(
    {
      role: "initiator",
      ad: associatedData(identity, bundle),
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
 * Starts the responder's session from a prekey envelope (X3DH, or PQXDH: kind 0x03). The one-time
 * prekeys it names, EC and KEM, are deleted from the store once the message has decrypted,
 * before the plaintext is returned; a later envelope naming one is RATCHET_UNKNOWN_PREKEY. A
 * last-resort KEM prekey stays. Later envelopes of the same session, prekey form or not, go to
 * `session.decrypt`: with a session for the sender already, try that first, and
 * RATCHET_SESSION_MISMATCH there means the sender started a new one. Whether `senderIdentity` is
 * who it claims to be (key transparency, a safety number) is the caller's to check.
 */
export async function respondToFirstMessage(
  identity: Identity,
  store: PreKeyStore,
  envelope: Uint8Array,
  options: SessionOptions = {},
): Promise<{
  session: Session;
  plaintext: Uint8Array;
  senderIdentity: IdentityKeys;
  postQuantum: boolean;
}> {
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
  const kemSharedSecret = preKey.kemPreKey && (await decapsulate(store, preKey.kemPreKey));

  const senderIdentity = {
    identitySigningKey: preKey.identitySigningKey,
    identityDHKey: preKey.identityDHKey,
  };
  // The responder's first DH-ratchet step starts from the signed prekey the initiator ratcheted
  // with: its receiving DH and the new key pair need nothing of X3DH, so all of it runs at once.
  const theirs = decoded.header.dh;
  const [dhOutputs, receivingDh, dhs] = await Promise.all([
    dhAllAsync(
      responderDhInputs(identity, signedPreKey, oneTimePreKey, senderIdentity, preKey.baseKey),
    ),
    dhAsync(signedPreKey, theirs),
    generateDhAsync(random),
  ]);
  const sharedKey = kemSharedSecret ? kdfPqxdh(dhOutputs, kemSharedSecret) : kdfX3dh(dhOutputs);
  const ratcheted = ratchetStep(
    { rk: sharedKey, ns: 0, step: 0 },
    theirs,
    dhs,
    receivingDh,
    await dhAsync(dhs.privateKey, theirs),
  );
  const start: SessionState = {
    ...ratcheted,
    role: "responder",
    ad: associatedData(senderIdentity, identity),
    preKeyFields: preKeyBytes,
    mkSkipped: [],
  };
  const { state, plaintext } = ratchetDecrypt(start, decoded, random);
  if (oneTimeId !== null && !(await store.removeOneTimePreKey(oneTimeId))) {
    throw unknownPreKey("one-time", oneTimeId);
  }
  const kem = preKey.kemPreKey;
  if (kem && !kem.lastResort && !(await store.removeKemPreKey?.(kem.keyId))) {
    throw unknownPreKey("one-time KEM", kem.keyId);
  }
  const session = new Session(state, { random });
  return { session, plaintext, senderIdentity, postQuantum: session.postQuantum };
}

/** SS of PQXDH: decapsulation with the KEM prekey the first message names. */
async function decapsulate(store: PreKeyStore, kem: KemPreKeyFields): Promise<Uint8Array> {
  if (!store.kemPreKey || (!kem.lastResort && !store.removeKemPreKey)) {
    throw new RatchetError(
      "RATCHET_UNKNOWN_PREKEY",
      "a PQXDH first message, and the prekey store keeps no KEM prekeys (kemPreKey, removeKemPreKey)",
    );
  }
  const seed = await store.kemPreKey(kem.keyId, kem.lastResort);
  const kind = kem.lastResort ? "last-resort KEM" : "one-time KEM";
  if (!seed) throw unknownPreKey(kind, kem.keyId);
  assertBytes("store.kemPreKey()", seed);
  if (seed.length !== KEM_SEED_SIZE) {
    throw new RangeError(`store.kemPreKey() must be ${KEM_SEED_SIZE} bytes, got ${seed.length}`);
  }
  return kemDecapsulate(seed, kem.ciphertext);
}

function unknownPreKey(kind: string, keyId: number): RatchetError {
  return new RatchetError("RATCHET_UNKNOWN_PREKEY", `no ${kind} prekey ${keyId} in the store`);
}
