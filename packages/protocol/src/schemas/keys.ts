import * as v from "valibot";
import { base64Text, count, OkResponse, signedPayloadEntries } from "./fields.js";

const keyId = count("keyId");

export const OneTimePreKeyEntry = v.strictObject({ keyId, publicKey: base64Text("publicKey") });
export const SignedPreKeyEntry = v.strictObject({
  keyId,
  publicKey: base64Text("publicKey"),
  signature: base64Text("signature"),
});
const OneTimePreKeyEntries = v.array(OneTimePreKeyEntry, "oneTimePreKeys must be an array");
/** An ML-KEM-1024 prekey: the identity signing key's Ed25519 signature over the raw key bytes. */
export const KemPreKeyEntry = v.strictObject({
  keyId,
  publicKey: base64Text("publicKey"),
  signature: base64Text("signature"),
});
const KemPreKeyEntries = v.array(KemPreKeyEntry, "kemPreKeys must be an array");

/**
 * POST /v1/keys/register. Unknown members are a 400; the address is checked after the schema so
 * that a bad one is SVC_INVALID_ADDRESS, and caps on the number of prekeys come later.
 */
export const KeysRegisterBody = v.strictObject({
  address: v.string("address must be a string"),
  identitySigningKey: base64Text("identitySigningKey"),
  identityDHKey: base64Text("identityDHKey"),
  signedPreKey: SignedPreKeyEntry,
  oneTimePreKeys: v.optional(OneTimePreKeyEntries),
  kemLastResortPreKey: v.optional(KemPreKeyEntry),
  kemPreKeys: v.optional(KemPreKeyEntries),
  ...signedPayloadEntries,
});

/** Appends one-time prekeys of either kind; `kemLastResortPreKey` rotates the last-resort key. */
export const KeysReplenishBody = v.strictObject({
  address: v.string("address must be a string"),
  oneTimePreKeys: v.optional(OneTimePreKeyEntries),
  kemPreKeys: v.optional(KemPreKeyEntries),
  kemLastResortPreKey: v.optional(KemPreKeyEntry),
  ...signedPayloadEntries,
});

export const KeysDeleteBody = v.strictObject(signedPayloadEntries);

/** A bundle as served, without its optional `ktProof`. */
export const PreKeyBundle = v.object({
  identitySigningKey: v.string(),
  identityDHKey: v.string(),
  signedPreKey: SignedPreKeyEntry,
  oneTimePreKey: v.optional(OneTimePreKeyEntry),
  /**
   * Present when the address has a last-resort ML-KEM key: its oldest one-time KEM prekey, else
   * (`lastResort: true`) the last-resort key.
   */
  kemPreKey: v.optional(
    v.strictObject({ ...KemPreKeyEntry.entries, lastResort: v.boolean("lastResort") }),
  ),
});

export const KeysRegisterResponse = OkResponse;
export const KeysDeleteResponse = OkResponse;
/**
 * `remaining`, `kemRemaining`: one-time prekeys of each kind queued after the append. Servers
 * that predate ML-KEM prekeys send no `kemRemaining`/`kemCount`; a client reads the absence as
 * "this server takes no KEM keys".
 */
export const KeysReplenishResponse = v.object({
  ok: v.boolean(),
  remaining: count("remaining"),
  kemRemaining: v.optional(count("kemRemaining")),
});
/** `kemCount`: one-time KEM prekeys queued, the last-resort key not counted. */
export const KeysCountResponse = v.object({
  count: count("count"),
  kemCount: v.optional(count("kemCount")),
});

export type KeysRegisterRequest = v.InferInput<typeof KeysRegisterBody>;
export type KeysReplenishRequest = v.InferInput<typeof KeysReplenishBody>;
export type PreKeyBundleJson = v.InferOutput<typeof PreKeyBundle>;
export type SignedPreKeyJson = v.InferOutput<typeof SignedPreKeyEntry>;
export type OneTimePreKeyJson = v.InferOutput<typeof OneTimePreKeyEntry>;
export type KemPreKeyJson = v.InferOutput<typeof KemPreKeyEntry>;
