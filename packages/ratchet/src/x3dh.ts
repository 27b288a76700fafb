import { ed25519 } from "@noble/curves/ed25519.js";
import { assertBytes, concatBytes } from "@svc/canonical";
import type { IdentityKeys, PreKeyBundleKeys } from "@svc/protocol";
import { assertKey, assertKeyId, assertObject } from "./assert.js";
import { type DhKeyPair, dh } from "./dh.js";
import { RatchetError } from "./errors.js";
import type { Identity } from "./identity.js";
import { kdfX3dh } from "./kdf.js";

export const ASSOCIATED_DATA_SIZE = 128;
const SIGNATURE_SIZE = 64;

export interface X3dhResult {
  /** SK: the first root key of the Double Ratchet. */
  sharedKey: Uint8Array;
  /** AD, bound into every message of the session. */
  associatedData: Uint8Array;
}

/** X3DH as the initiator (X3DH §3.3), after {@link verifyBundle}. */
export function x3dhInitiate(
  identity: Identity,
  bundle: PreKeyBundleKeys,
  ephemeral: DhKeyPair,
): X3dhResult {
  const signedPreKey = bundle.signedPreKey.publicKey;
  const dhOutputs = [
    dh(identity.identityDHPrivateKey, signedPreKey),
    dh(ephemeral.privateKey, bundle.identityDHKey),
    dh(ephemeral.privateKey, signedPreKey),
  ];
  if (bundle.oneTimePreKey)
    dhOutputs.push(dh(ephemeral.privateKey, bundle.oneTimePreKey.publicKey));
  return {
    sharedKey: kdfX3dh(dhOutputs),
    associatedData: associatedData(identity, bundle),
  };
}

/** X3DH as the responder (X3DH §3.4), from the prekeys a first message names. */
export function x3dhRespond(
  identity: Identity,
  signedPreKeyPrivate: Uint8Array,
  oneTimePreKeyPrivate: Uint8Array | undefined,
  initiator: IdentityKeys,
  baseKey: Uint8Array,
): X3dhResult {
  const dhOutputs = [
    dh(signedPreKeyPrivate, initiator.identityDHKey),
    dh(identity.identityDHPrivateKey, baseKey),
    dh(signedPreKeyPrivate, baseKey),
  ];
  if (oneTimePreKeyPrivate) dhOutputs.push(dh(oneTimePreKeyPrivate, baseKey));
  return {
    sharedKey: kdfX3dh(dhOutputs),
    associatedData: associatedData(initiator, identity),
  };
}

/**
 * AD = initiator identitySigningKey || identityDHKey || responder identitySigningKey ||
 * identityDHKey (128 bytes). Both keys of each side: the signing key is the one key
 * transparency and the directory vouch for, the DH key the one X3DH uses.
 */
export function associatedData(initiator: IdentityKeys, responder: IdentityKeys): Uint8Array {
  return concatBytes(
    initiator.identitySigningKey,
    initiator.identityDHKey,
    responder.identitySigningKey,
    responder.identityDHKey,
  );
}

/**
 * Shape checks name the bad member (TypeError/RangeError); a signed prekey whose signature does
 * not verify (strict RFC 8032) is a RatchetError: the bundle itself is untrusted.
 */
export function verifyBundle(bundle: PreKeyBundleKeys): void {
  assertObject("bundle", bundle);
  assertKey("bundle.identitySigningKey", bundle.identitySigningKey);
  assertKey("bundle.identityDHKey", bundle.identityDHKey);
  const { signedPreKey, oneTimePreKey } = bundle;
  assertObject("bundle.signedPreKey", signedPreKey);
  assertKeyId("bundle.signedPreKey.keyId", signedPreKey.keyId);
  assertKey("bundle.signedPreKey.publicKey", signedPreKey.publicKey);
  assertBytes("bundle.signedPreKey.signature", signedPreKey.signature);
  if (signedPreKey.signature.length !== SIGNATURE_SIZE) {
    throw new RangeError(`bundle.signedPreKey.signature must be ${SIGNATURE_SIZE} bytes`);
  }
  if (oneTimePreKey !== undefined) {
    assertObject("bundle.oneTimePreKey", oneTimePreKey);
    assertKeyId("bundle.oneTimePreKey.keyId", oneTimePreKey.keyId);
    assertKey("bundle.oneTimePreKey.publicKey", oneTimePreKey.publicKey);
  }
  if (!verifyEd25519(signedPreKey.signature, signedPreKey.publicKey, bundle.identitySigningKey)) {
    throw new RatchetError("RATCHET_BAD_SIGNATURE", "signed prekey signature does not verify");
  }
}

export function assertIdentity(name: string, identity: Identity): void {
  assertObject(name, identity);
  assertKey(`${name}.identitySigningKey`, identity.identitySigningKey);
  assertKey(`${name}.identityDHKey`, identity.identityDHKey);
  assertKey(`${name}.identityDHPrivateKey`, identity.identityDHPrivateKey);
}

function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}
