import type { OneTimePreKey, SignedPreKey } from "@svc/prekeys";
import * as v from "valibot";
import { decodeKey, signedPayloadEntries } from "../../../http/signed-body.js";

/** Largest keys request body (101 prekeys, the largest useful body, take about 9 KiB). */
export const KEYS_BODY_LIMIT = 64 * 1024;

const keyId = v.pipe(
  v.number("keyId must be an integer"),
  v.safeInteger("keyId must be an integer"),
  v.minValue(0, "keyId must not be negative"),
);
const base64 = (field: string) => v.string(`${field} must be a base64 string`);

const OneTimePreKeyEntry = v.strictObject({ keyId, publicKey: base64("publicKey") });
const OneTimePreKeyEntries = v.array(OneTimePreKeyEntry, "oneTimePreKeys must be an array");

/** Unknown members are a 400 (strict objects); caps on the number of entries come later (D5). */
export const RegisterBody = v.strictObject({
  address: v.string("address must be a string"),
  identitySigningKey: base64("identitySigningKey"),
  identityDHKey: base64("identityDHKey"),
  signedPreKey: v.strictObject({
    keyId,
    publicKey: base64("publicKey"),
    signature: base64("signature"),
  }),
  oneTimePreKeys: v.optional(OneTimePreKeyEntries),
  ...signedPayloadEntries,
});

export const ReplenishBody = v.strictObject({
  address: v.string("address must be a string"),
  oneTimePreKeys: OneTimePreKeyEntries,
  ...signedPayloadEntries,
});

export const DeleteBody = v.strictObject(signedPayloadEntries);

export function decodeSignedPreKey(entry: v.InferOutput<typeof RegisterBody>["signedPreKey"]) {
  return {
    keyId: entry.keyId,
    publicKey: decodeKey(entry.publicKey, 32, "signedPreKey.publicKey"),
    signature: decodeKey(entry.signature, 64, "signedPreKey.signature", "SVC_BAD_REQUEST"),
  } satisfies SignedPreKey;
}

export function decodeOneTimePreKeys(
  entries: v.InferOutput<typeof OneTimePreKeyEntries> | undefined,
): OneTimePreKey[] {
  return (entries ?? []).map((entry, i) => ({
    keyId: entry.keyId,
    publicKey: decodeKey(entry.publicKey, 32, `oneTimePreKeys.${i}.publicKey`),
  }));
}
