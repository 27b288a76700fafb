import { assertBytes, concatBytes } from "@svc/canonical";
import { type IdentityKeys, ML_KEM_1024, type PreKeyBundleKeys } from "@svc/protocol";
import { assertKey, assertKeyId, assertObject } from "./assert.js";
import { type DhKeyPair, dh } from "./dh.js";
import { RatchetError } from "./errors.js";
import type { Identity } from "./identity.js";
import { kdfX3dh } from "./kdf.js";
import { verifyEd25519, verifyEd25519Async } from "./platform.js";

export const ASSOCIATED_DATA_SIZE = 128;
const SIGNATURE_SIZE = 64;

/** One Diffie-Hellman of a key agreement: our private key, their public key. */
export type DhInput = [privateKey: Uint8Array, publicKey: Uint8Array];

export interface X3dhResult {
  /** SK: the first root key of the Double Ratchet. */
  sharedKey: Uint8Array;
  /** AD, bound into every message of the session. */
  associatedData: Uint8Array;
}

/** DH1..DH3 [DH4] of X3DH §3.3 (and PQXDH §3.3) as the initiator, in order. */
export function initiatorDhInputs(
  identity: Identity,
  bundle: PreKeyBundleKeys,
  ephemeral: DhKeyPair,
): DhInput[] {
  const signedPreKey = bundle.signedPreKey.publicKey;
  const inputs: DhInput[] = [
    [identity.identityDHPrivateKey, signedPreKey],
    [ephemeral.privateKey, bundle.identityDHKey],
    [ephemeral.privateKey, signedPreKey],
  ];
  if (bundle.oneTimePreKey) inputs.push([ephemeral.privateKey, bundle.oneTimePreKey.publicKey]);
  return inputs;
}

/** The same DH1..DH3 [DH4] as the responder (X3DH §3.4). */
export function responderDhInputs(
  identity: Identity,
  signedPreKeyPrivate: Uint8Array,
  oneTimePreKeyPrivate: Uint8Array | undefined,
  initiator: IdentityKeys,
  baseKey: Uint8Array,
): DhInput[] {
  const inputs: DhInput[] = [
    [signedPreKeyPrivate, initiator.identityDHKey],
    [identity.identityDHPrivateKey, baseKey],
    [signedPreKeyPrivate, baseKey],
  ];
  if (oneTimePreKeyPrivate) inputs.push([oneTimePreKeyPrivate, baseKey]);
  return inputs;
}

/** X3DH as the initiator (X3DH §3.3), after {@link verifyBundle}. */
export function x3dhInitiate(
  identity: Identity,
  bundle: PreKeyBundleKeys,
  ephemeral: DhKeyPair,
): X3dhResult {
  return {
    sharedKey: kdfX3dh(initiatorDhInputs(identity, bundle, ephemeral).map((pair) => dh(...pair))),
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
  const inputs = responderDhInputs(
    identity,
    signedPreKeyPrivate,
    oneTimePreKeyPrivate,
    initiator,
    baseKey,
  );
  return {
    sharedKey: kdfX3dh(inputs.map((pair) => dh(...pair))),
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
 * Shape checks name the bad member (TypeError/RangeError); a prekey signature that does not
 * verify (strict RFC 8032) is a RatchetError: the bundle itself is untrusted.
 */
export function verifyBundle(bundle: PreKeyBundleKeys): void {
  for (const signed of signedPreKeys(bundle)) {
    if (!verifyEd25519(signed.signature, signed.publicKey, bundle.identitySigningKey)) {
      throw badSignature(signed.name);
    }
  }
}

/** {@link verifyBundle} with the platform's Ed25519 where there is one. */
export async function verifyBundleAsync(bundle: PreKeyBundleKeys): Promise<void> {
  const signed = signedPreKeys(bundle);
  const verdicts = await Promise.all(
    signed.map((key) =>
      verifyEd25519Async(key.signature, key.publicKey, bundle.identitySigningKey),
    ),
  );
  const failed = signed.find((_, i) => !verdicts[i]);
  if (failed) throw badSignature(failed.name);
}

export function assertIdentity(name: string, identity: Identity): void {
  assertObject(name, identity);
  assertKey(`${name}.identitySigningKey`, identity.identitySigningKey);
  assertKey(`${name}.identityDHKey`, identity.identityDHKey);
  assertKey(`${name}.identityDHPrivateKey`, identity.identityDHPrivateKey);
}

interface SignedKey {
  name: string;
  publicKey: Uint8Array;
  signature: Uint8Array;
}

/** Checks the bundle's shape, then lists the keys whose signatures must verify. */
function signedPreKeys(bundle: PreKeyBundleKeys): SignedKey[] {
  assertObject("bundle", bundle);
  assertKey("bundle.identitySigningKey", bundle.identitySigningKey);
  assertKey("bundle.identityDHKey", bundle.identityDHKey);
  const { signedPreKey, oneTimePreKey, kemPreKey } = bundle;
  assertObject("bundle.signedPreKey", signedPreKey);
  assertKeyId("bundle.signedPreKey.keyId", signedPreKey.keyId);
  assertKey("bundle.signedPreKey.publicKey", signedPreKey.publicKey);
  assertSignature("bundle.signedPreKey.signature", signedPreKey.signature);
  if (oneTimePreKey !== undefined) {
    assertObject("bundle.oneTimePreKey", oneTimePreKey);
    assertKeyId("bundle.oneTimePreKey.keyId", oneTimePreKey.keyId);
    assertKey("bundle.oneTimePreKey.publicKey", oneTimePreKey.publicKey);
  }
  const signed: SignedKey[] = [{ name: "signed prekey", ...signedPreKey }];
  if (kemPreKey !== undefined) {
    assertObject("bundle.kemPreKey", kemPreKey);
    assertKeyId("bundle.kemPreKey.keyId", kemPreKey.keyId);
    assertBytes("bundle.kemPreKey.publicKey", kemPreKey.publicKey);
    if (kemPreKey.publicKey.length !== ML_KEM_1024.publicKey) {
      throw new RangeError(`bundle.kemPreKey.publicKey must be ${ML_KEM_1024.publicKey} bytes`);
    }
    assertSignature("bundle.kemPreKey.signature", kemPreKey.signature);
    if (typeof kemPreKey.lastResort !== "boolean") {
      throw new TypeError("bundle.kemPreKey.lastResort must be a boolean");
    }
    signed.push({ name: "KEM prekey", ...kemPreKey });
  }
  return signed;
}

function assertSignature(name: string, value: unknown): asserts value is Uint8Array {
  assertBytes(name, value);
  if (value.length !== SIGNATURE_SIZE) {
    throw new RangeError(`${name} must be ${SIGNATURE_SIZE} bytes`);
  }
}

function badSignature(name: string): RatchetError {
  return new RatchetError("RATCHET_BAD_SIGNATURE", `${name} signature does not verify`);
}
